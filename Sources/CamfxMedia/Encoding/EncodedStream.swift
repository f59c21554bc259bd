import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxFrames

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
  package let parameters: UnsafeMutablePointer<AVCodecParameters>
  package let timeBase: AVRational
  /// The nominal frame rate (video), `0/1` otherwise.
  package let frameRate: AVRational

  init(kind: Kind, index: Int, encoder: UnsafeMutablePointer<AVCodecContext>) throws(FFmpegError) {
    parameters = try Self.makeParameters { p throws(FFmpegError) in
      try check(avcodec_parameters_from_context(p, encoder), "describing a stream")
    }
    self.kind = kind
    self.index = index
    timeBase = encoder.pointee.time_base
    frameRate = kind == .video ? encoder.pointee.framerate : AVRational(num: 0, den: 1)
  }

  /// New codec parameters filled in by `fill` (freed again if it throws).
  private static func makeParameters(
    _ fill: (UnsafeMutablePointer<AVCodecParameters>) throws(FFmpegError) -> Void
  ) throws(FFmpegError) -> UnsafeMutablePointer<AVCodecParameters> {
    guard let p = avcodec_parameters_alloc() else {
      throw FFmpegError(code: camfx_averror(ENOMEM), operation: "describing a stream")
    }
    do throws(FFmpegError) {
      try fill(p)
    } catch {
      var q: UnsafeMutablePointer<AVCodecParameters>? = p
      avcodec_parameters_free(&q)
      throw error
    }
    return p
  }

  /// A stream copied from an input as it is (`--video-codec copy`): its codec
  /// parameters, time base and frame rate.
  package init(kind: Kind, index: Int, copying stream: UnsafeMutablePointer<AVStream>) throws(FFmpegError) {
    parameters = try Self.makeParameters { p throws(FFmpegError) in
      try check(avcodec_parameters_copy(p, stream.pointee.codecpar), "describing a stream")
      // The input's codec tag means nothing in another container.
      p.pointee.codec_tag = 0
    }
    self.kind = kind
    self.index = index
    timeBase = stream.pointee.time_base
    frameRate = kind == .video ? stream.pointee.avg_frame_rate : AVRational(num: 0, den: 1)
  }

  /// A video stream of compressed frames made elsewhere (a camera's MJPEG or H.264),
  /// copied as they come: `codec` is FFmpeg's name (`mjpeg`, `h264`), `header` the
  /// codec's global header (H.264: its SPS and PPS in Annex B form), timestamps are in
  /// microseconds.
  /// - Throws: `FFmpegError` for a codec FFmpeg does not know.
  public init(video codec: String, width: Int, height: Int, framesPerSecond: Double, header: [UInt8] = [])
    throws(FFmpegError)
  {
    guard let descriptor = avcodec_descriptor_get_by_name(codec) else {
      throw FFmpegError.invalid("codec '\(codec)'", "FFmpeg does not know it")
    }
    parameters = try Self.makeParameters { p throws(FFmpegError) in
      p.pointee.codec_type = AVMEDIA_TYPE_VIDEO
      p.pointee.codec_id = descriptor.pointee.id
      p.pointee.width = Int32(width)
      p.pointee.height = Int32(height)
      // A camera's JPEGs are full-range 4:2:2 or 4:2:0; players read it from the JPEG.
      if descriptor.pointee.id == AV_CODEC_ID_MJPEG { p.pointee.color_range = AVCOL_RANGE_JPEG }
      if !header.isEmpty {
        guard let extradata = av_mallocz(header.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
          throw FFmpegError(code: camfx_averror(ENOMEM), operation: "describing a stream")
        }
        header.withUnsafeBytes { extradata.copyMemory(from: $0.baseAddress!, byteCount: header.count) }
        p.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
        p.pointee.extradata_size = Int32(header.count)
      }
    }
    kind = .video
    index = 0
    timeBase = AVRational(num: 1, den: 1_000_000)
    frameRate = av_d2q(framesPerSecond, 1001 * 1000)
  }

  /// `ticks` of this stream's time base as an exact time.
  public func time(ticks: Int64) -> MediaTime { MediaTime(ticks: ticks, in: timeBase) }

  /// Why packets of `other` cannot follow this stream's in one stream (different codec,
  /// size, pixel format, rate, channels or codec headers), or nil when they can.
  public func differenceForJoining(_ other: EncodedStream) -> String? {
    let a = parameters.pointee, b = other.parameters.pointee
    if a.codec_id != b.codec_id { return "\(codecName) against \(other.codecName)" }
    if kind == .video {
      if a.width != b.width || a.height != b.height { return "\(a.width)x\(a.height) against \(b.width)x\(b.height)" }
      if a.format != b.format { return "pixel format \(a.format) against \(b.format)" }
      if a.profile != b.profile { return "\(codecName) profile \(a.profile) against \(b.profile)" }
    } else {
      if a.sample_rate != b.sample_rate { return "\(a.sample_rate) Hz against \(b.sample_rate) Hz" }
      if a.ch_layout.nb_channels != b.ch_layout.nb_channels {
        return "\(a.ch_layout.nb_channels) against \(b.ch_layout.nb_channels) channels"
      }
    }
    let sameHeaders = a.extradata_size == b.extradata_size
      && (a.extradata_size == 0 || memcmp(a.extradata, b.extradata, Int(a.extradata_size)) == 0)
    return sameHeaders ? nil : "other \(codecName) settings (codec headers differ)"
  }

  /// The codec's name (`h264`, `mjpeg` ...).
  public var codecName: String { String(cString: avcodec_get_name(parameters.pointee.codec_id)) }

  deinit {
    var p: UnsafeMutablePointer<AVCodecParameters>? = parameters
    avcodec_parameters_free(&p)
  }
}
