import CFFmpeg
import CamfxCore

/// An encoded packet on its way from an encoder to the outputs: the encoder's own
/// `AVPacket`, lent for the call. An output that keeps it takes a reference
/// (`av_packet_ref`), which shares the data instead of copying it.
public struct EncodedPacket {
  public let stream: EncodedStream
  let pointer: UnsafeMutablePointer<AVPacket>

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

  /// Moves the packet later by `time` (earlier when negative), rounded to the nearest of
  /// its stream's ticks: how a copy starts at zero, and how joined movies continue one
  /// another.
  public func offset(by time: MediaTime) {
    let ticks = av_rescale_q(time.value, AVRational(num: 1, den: time.timescale), stream.timeBase)
    if pointer.pointee.pts != CAMFX_AV_NOPTS_VALUE { pointer.pointee.pts += ticks }
    if pointer.pointee.dts != CAMFX_AV_NOPTS_VALUE { pointer.pointee.dts += ticks }
  }
}
