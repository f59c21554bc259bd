import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames

/// One encoded packet on the packet bus: an encoder's output (or a copied stream's
/// packet), shared by reference between every output that takes it and never copied
/// per output. It owns a reference to the packet's data (`AVPacket`); outputs that
/// change timestamps for their own container do it on a reference of their own
/// (`av_packet_ref`), so the packet itself stays as published.
///
/// `@unchecked Sendable`: the packet is written only by its producer before it is
/// published (`offset(by:)`), and only read afterwards.
public final class EncodedPacket: @unchecked Sendable {
  public let stream: EncodedStream
  package let pointer: UnsafeMutablePointer<AVPacket>

  /// Takes over `packet`'s data (leaving `packet` empty), as an encoder's output is
  /// published.
  /// - Throws: `FFmpegError` (ENOMEM).
  package init(stream: EncodedStream, movingFrom packet: UnsafeMutablePointer<AVPacket>) throws(FFmpegError) {
    guard let p = av_packet_alloc() else { throw FFmpegError(code: camfx_averror(ENOMEM), operation: "keeping a packet") }
    av_packet_move_ref(p, packet)
    self.stream = stream
    pointer = p
  }

  /// A packet with another reference to `packet`'s data (no copy of the data).
  /// - Throws: `FFmpegError` (ENOMEM).
  package init(stream: EncodedStream, referencing packet: UnsafeMutablePointer<AVPacket>) throws(FFmpegError) {
    guard let p = av_packet_alloc() else { throw FFmpegError(code: camfx_averror(ENOMEM), operation: "keeping a packet") }
    let r = av_packet_ref(p, packet)
    guard r >= 0 else {
      var q: UnsafeMutablePointer<AVPacket>? = p
      av_packet_free(&q)
      throw FFmpegError(code: r, operation: "keeping a packet")
    }
    self.stream = stream
    pointer = p
  }

  deinit {
    var p: UnsafeMutablePointer<AVPacket>? = pointer
    av_packet_free(&p)
  }

  /// The packet's bytes, lent for the call.
  public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    try body(UnsafeRawBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size)))
  }

  /// The packet's size in bytes.
  public var byteCount: Int { Int(pointer.pointee.size) }

  /// The packet's decode time in seconds.
  public var decodeSeconds: Double {
    let ts = pointer.pointee.dts != CAMFX_AV_NOPTS_VALUE ? pointer.pointee.dts : pointer.pointee.pts
    return Double(ts) * av_q2d(stream.timeBase)
  }

  /// The packet's presentation time in seconds.
  public var presentationSeconds: Double {
    let ts = pointer.pointee.pts != CAMFX_AV_NOPTS_VALUE ? pointer.pointee.pts : pointer.pointee.dts
    return Double(ts) * av_q2d(stream.timeBase)
  }

  /// The packet's duration in seconds (0 when the encoder left it unset).
  public var durationSeconds: Double { Double(pointer.pointee.duration) * av_q2d(stream.timeBase) }

  /// True for a keyframe.
  public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

  /// The presentation (else decode) time, exactly.
  public var presentationTime: MediaTime {
    let ts = pointer.pointee.pts != CAMFX_AV_NOPTS_VALUE ? pointer.pointee.pts : pointer.pointee.dts
    return stream.time(ticks: ts)
  }

  /// The decode (else presentation) time, exactly.
  public var decodeTime: MediaTime {
    let ts = pointer.pointee.dts != CAMFX_AV_NOPTS_VALUE ? pointer.pointee.dts : pointer.pointee.pts
    return stream.time(ticks: ts)
  }

  /// The duration, exactly (zero when unset).
  public var duration: MediaTime { stream.time(ticks: pointer.pointee.duration) }

  /// Another reference to the packet's data, moved later by `time` (earlier when
  /// negative): how an output that starts part-way (a segment, an event clip) starts
  /// its own timestamps at zero without touching the shared packet.
  /// - Throws: `FFmpegError` (ENOMEM).
  public func reference(offsetBy time: MediaTime) throws(FFmpegError) -> EncodedPacket {
    let moved = try EncodedPacket(stream: stream, referencing: pointer)
    moved.offset(by: time)
    return moved
  }

  /// Moves the packet later by `time` (earlier when negative), rounded to the nearest of
  /// its stream's ticks: how a copy starts at zero, and how joined movies continue one
  /// another. Only its producer calls it, before the packet is published.
  public func offset(by time: MediaTime) {
    let ticks = av_rescale_q(time.value, AVRational(num: 1, den: time.timescale), stream.timeBase)
    if pointer.pointee.pts != CAMFX_AV_NOPTS_VALUE { pointer.pointee.pts += ticks }
    if pointer.pointee.dts != CAMFX_AV_NOPTS_VALUE { pointer.pointee.dts += ticks }
  }
}
