import CFFmpeg

/// One stream that a `MovieWriter`'s encoders produce, as its outputs add it to their
/// containers: the codec parameters (with the codec's global header) and the time
/// base of its packets.
///
/// `@unchecked Sendable`: the parameters are filled in once, from the opened encoder,
/// and only read afterwards.
public final class EncodedStream: @unchecked Sendable {
  public enum Kind: Sendable { case video, audio }
  public let kind: Kind
  /// The position of the stream among the writer's streams (video first).
  public let index: Int
  let parameters: UnsafeMutablePointer<AVCodecParameters>
  let timeBase: AVRational
  /// The nominal frame rate (video), `0/1` otherwise.
  let frameRate: AVRational

  init(kind: Kind, index: Int, encoder: UnsafeMutablePointer<AVCodecContext>) throws(FFmpegError) {
    guard let p = avcodec_parameters_alloc() else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "avcodec_parameters_alloc")
    }
    parameters = p
    self.kind = kind
    self.index = index
    timeBase = encoder.pointee.time_base
    frameRate = kind == .video ? encoder.pointee.framerate : AVRational(num: 0, den: 1)
    do throws(FFmpegError) {
      try check(avcodec_parameters_from_context(p, encoder), "avcodec_parameters_from_context")
    } catch {
      var q: UnsafeMutablePointer<AVCodecParameters>? = p
      avcodec_parameters_free(&q)
      throw error
    }
  }

  deinit {
    var p: UnsafeMutablePointer<AVCodecParameters>? = parameters
    avcodec_parameters_free(&p)
  }
}

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
}

/// Where a `MovieWriter` sends every packet its encoders make: a movie file, and
/// later segmenters and network streams. Each output owns its muxer and decides for
/// itself what a failure means; one encode feeds them all.
///
/// The writer calls these methods from one thread at a time (under its output lock):
/// `prepare` once, then `write` for every packet in decode order per stream, then
/// `finish` or `cancel`.
public protocol MovieOutput: AnyObject {
  /// The streams every later packet belongs to; called once, before any packet.
  func prepare(streams: [EncodedStream]) throws(FFmpegError)
  /// Muxes one packet (timestamps in its stream's time base).
  func write(_ packet: EncodedPacket) throws(FFmpegError)
  /// Writes what is left and completes the output (an empty movie if nothing came).
  func finish() throws(FFmpegError)
  /// Ends at once: what was written is kept and completed as far as possible;
  /// an output that received nothing leaves nothing behind.
  func cancel()
  /// Bytes written so far.
  var bytesWritten: Int64 { get }
  /// Asked before the video frame at `seconds` (presentation time) is encoded: true
  /// makes the encoder code it as a keyframe (a segment boundary).
  func requestsKeyframe(atSeconds seconds: Double) -> Bool
  /// Set when the output wants the recording to end cleanly (`--min-free` reached),
  /// with the reason as one line.
  var stopRequest: String? { get }
  /// Video frames it holds, and where the last one ends (seconds): fewer than were
  /// encoded when it stopped muxing at a size limit.
  var videoPacketsWritten: Int { get }
  var videoEndSeconds: Double { get }
}

extension MovieOutput {
  public func requestsKeyframe(atSeconds seconds: Double) -> Bool { false }
  public var stopRequest: String? { nil }
}
