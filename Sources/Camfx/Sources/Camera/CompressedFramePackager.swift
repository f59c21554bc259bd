import CFFmpeg
import CamfxFFmpeg
import CamfxFrames
import CamfxMedia

/// Wraps compressed frames that arrive as bytes (a camera's JPEGs) as packets of one
/// stream, in buffers from a pool: the outputs that keep a packet take a reference to
/// its buffer, and the buffer goes back to the pool when the last one lets go, so the
/// steady state allocates nothing.
///
///     let packager = try CompressedFramePackager(stream: stream, maximumBytes: camera.bufferSize)
///     let packet = try packager.packet(bytes, microseconds: t, durationMicroseconds: 33_333)
public final class CompressedFramePackager {
  public let stream: EncodedStream
  public let maximumBytes: Int
  private let pool: OpaquePointer
  private let packet: FFmpegPacket

  /// - Parameter maximumBytes: the largest frame (a camera's buffer size).
  public init(stream: EncodedStream, maximumBytes: Int) throws(FFmpegError) {
    // The packet comes first: deinit (the pool's only free) runs only once every stored
    // property is set, so a throw here after the pool was made leaked it.
    packet = try FFmpegPacket()
    guard maximumBytes > 0, let pool = av_buffer_pool_init(maximumBytes + Int(AV_INPUT_BUFFER_PADDING_SIZE), nil) else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "allocating a buffer pool")
    }
    self.stream = stream
    self.maximumBytes = maximumBytes
    self.pool = pool
  }

  /// A packet holding a copy of `bytes`, with its presentation time and duration in
  /// microseconds (the stream's time base must be 1/1000000).
  /// Every JPEG is a keyframe; H.264 frames say which they are.
  public func packet(
    _ bytes: UnsafeRawBufferPointer, microseconds: Int64, durationMicroseconds: Int64, isKeyframe: Bool = true
  ) throws(FFmpegError) -> EncodedPacket {
    guard bytes.count <= maximumBytes, let buffer = av_buffer_pool_get(pool) else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "allocating a buffer of \(bytes.count) bytes")
    }
    av_packet_unref(packet.pointer)
    let data = buffer.pointee.data!
    if let base = bytes.baseAddress { data.update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
    // The padding decoders may read past the end must be zero.
    (data + bytes.count).initialize(repeating: 0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE))
    let p = packet.pointer
    p.pointee.buf = buffer
    p.pointee.data = data
    p.pointee.size = Int32(bytes.count)
    p.pointee.pts = microseconds
    p.pointee.dts = microseconds
    p.pointee.duration = durationMicroseconds
    p.pointee.flags = isKeyframe ? AV_PKT_FLAG_KEY : 0
    p.pointee.stream_index = Int32(stream.index)
    return try EncodedPacket(stream: stream, movingFrom: p)
  }

  deinit {
    av_packet_unref(packet.pointer)
    var p: OpaquePointer? = pool
    av_buffer_pool_uninit(&p)
  }
}
