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

  /// A stream copied from an input as it is (`--video-codec copy`): its codec
  /// parameters, time base and frame rate.
  init(kind: Kind, index: Int, copying stream: UnsafeMutablePointer<AVStream>) throws(FFmpegError) {
    guard let p = avcodec_parameters_alloc() else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "avcodec_parameters_alloc")
    }
    parameters = p
    self.kind = kind
    self.index = index
    timeBase = stream.pointee.time_base
    frameRate = kind == .video ? stream.pointee.avg_frame_rate : AVRational(num: 0, den: 1)
    do throws(FFmpegError) {
      try check(avcodec_parameters_copy(p, stream.pointee.codecpar), "avcodec_parameters_copy")
    } catch {
      var q: UnsafeMutablePointer<AVCodecParameters>? = p
      avcodec_parameters_free(&q)
      throw error
    }
    // The input's codec tag means nothing in another container.
    p.pointee.codec_tag = 0
  }

  /// The codec's name (`h264`, `mjpeg` ...).
  public var codecName: String { String(cString: avcodec_get_name(parameters.pointee.codec_id)) }

  deinit {
    var p: UnsafeMutablePointer<AVCodecParameters>? = parameters
    avcodec_parameters_free(&p)
  }
}
