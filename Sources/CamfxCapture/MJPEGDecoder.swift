import CFFmpeg
import CamfxCore

/// Decodes Motion-JPEG camera frames to BGRA with libavcodec's `mjpeg` decoder and
/// libswscale, rejecting corrupt frames instead of passing on half-grey images.
///
/// One owner of the codec context, packet, frame and scaler; freed in `deinit`.
final class MJPEGDecoder {
  private let context: UnsafeMutablePointer<AVCodecContext>
  private var packet: UnsafeMutablePointer<AVPacket>?
  private var frame: UnsafeMutablePointer<AVFrame>?
  private var scaler: OpaquePointer?
  /// A copy of the compressed frame with the zeroed padding libavcodec may read past
  /// the end; grown only when a frame is larger than any before.
  private var input: UnsafeMutableRawPointer
  private var inputCapacity: Int
  /// sws_scale's destination plane pointers and strides (BGRA uses the first), kept
  /// here so decoding a frame allocates no arrays.
  private let planes = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: 4)
  private let strides = UnsafeMutablePointer<Int32>.allocate(capacity: 4)

  /// - Throws: `V4L2Error(.failed)` naming the libavcodec call if the decoder is missing.
  init(device: String) throws {
    guard let codec = avcodec_find_decoder(AV_CODEC_ID_MJPEG), let context = avcodec_alloc_context3(codec) else {
      throw V4L2Error(.failed, operation: "avcodec_find_decoder(mjpeg)", device: device, detail: "libavcodec has no MJPEG decoder")
    }
    self.context = context
    // Report damaged data as an error rather than concealing it.
    context.pointee.err_recognition |= AV_EF_EXPLODE | AV_EF_BITSTREAM | AV_EF_BUFFER
    context.pointee.thread_count = 1
    inputCapacity = 0
    input = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 64)
    packet = av_packet_alloc()
    frame = av_frame_alloc()
    let status = avcodec_open2(context, codec, nil)
    if status < 0 || packet == nil || frame == nil {
      throw V4L2Error(.failed, code: -status, operation: "avcodec_open2(mjpeg)", device: device)
    }
  }

  deinit {
    var c: UnsafeMutablePointer<AVCodecContext>? = context
    avcodec_free_context(&c)
    av_packet_free(&packet)
    av_frame_free(&frame)
    if let scaler { sws_freeContext(scaler) }
    input.deallocate()
    planes.deallocate()
    strides.deallocate()
  }

  /// Decodes one JPEG image of exactly `destination`'s size into it.
  /// - Returns: `false` when the data is not a complete, valid JPEG of that size (the
  ///   caller drops and counts the frame).
  func decode(_ data: UnsafeRawPointer, count: Int, into destination: PixelBuffer) -> Bool {
    guard count > 0, let packet, let frame else { return false }
    let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
    if count + padding > inputCapacity {
      input.deallocate()
      inputCapacity = count + padding
      input = UnsafeMutableRawPointer.allocate(byteCount: inputCapacity, alignment: 64)
    }
    input.copyMemory(from: data, byteCount: count)
    (input + count).initializeMemory(as: UInt8.self, repeating: 0, count: padding)
    packet.pointee.data = input.assumingMemoryBound(to: UInt8.self)
    packet.pointee.size = Int32(count)
    defer { av_frame_unref(frame) }
    guard avcodec_send_packet(context, packet) >= 0, avcodec_receive_frame(context, frame) >= 0 else {
      avcodec_flush_buffers(context)
      return false
    }
    let f = frame.pointee
    guard f.decode_error_flags == 0, f.flags & AV_FRAME_FLAG_CORRUPT == 0,
      Int(f.width) == destination.width, Int(f.height) == destination.height
    else { return false }
    scaler = sws_getCachedContext(
      scaler, f.width, f.height, AVPixelFormat(rawValue: f.format), f.width, f.height, AV_PIX_FMT_BGRA,
      SWS_BILINEAR | SWS_ACCURATE_RND, nil, nil, nil)
    guard let scaler else { return false }
    planes.initialize(repeating: nil, count: 4)
    strides.initialize(repeating: 0, count: 4)
    strides[0] = Int32(destination.bytesPerRow)
    let rows = destination.withUnsafeMutableBytes { out -> Int32 in
      planes[0] = out.assumingMemoryBound(to: UInt8.self)
      defer { planes[0] = nil }
      return withUnsafeBytes(of: f.data) { sourcePlanes in
        withUnsafeBytes(of: f.linesize) { sourceStrides in
          sws_scale(
            scaler, sourcePlanes.baseAddress!.assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
            sourceStrides.baseAddress!.assumingMemoryBound(to: Int32.self), 0, f.height, planes, strides)
        }
      }
    }
    return Int(rows) == destination.height
  }
}
