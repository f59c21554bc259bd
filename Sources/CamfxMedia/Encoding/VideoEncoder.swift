import CFFmpeg
import CamfxFFmpeg
import CamfxFrames
import CamfxPixelFormats
#if canImport(Glibc)
import Glibc
#endif

/// Owns the video `AVCodecContext` configured from `VideoSettings`.
final class VideoEncoder {
  let context: FFmpegCodecContext
  let settings: VideoSettings
  var pointer: UnsafeMutablePointer<AVCodecContext> { context.pointer }

  /// Finds and opens the encoder.
  /// - Throws: `MediaSettingsError` for an unknown codec or an option the codec lacks,
  ///   `FFmpegError` when FFmpeg refuses to open it.
  init(settings: VideoSettings, globalHeader: Bool) throws {
    try settings.validate()
    guard let codec = avcodec_find_encoder_by_name(settings.codec) else {
      throw MediaSettingsError(
        "FFmpeg has no encoder '\(settings.codec)'; the video encoders that take yuv420p here: "
          + Self.availableEncoders().joined(separator: ", "))
    }
    guard codec.pointee.type == AVMEDIA_TYPE_VIDEO else {
      throw MediaSettingsError("'\(settings.codec)' is not a video encoder")
    }
    guard Self.acceptsYUV420(codec) else {
      throw MediaSettingsError(
        "video encoder '\(settings.codec)' does not take yuv420p frames (a VAAPI or QSV encoder needs hardware frames, "
          + "which camfx does not make)")
    }
    self.settings = settings
    context = try FFmpegCodecContext(codec: codec)
    let c = context.pointer
    c.pointee.width = Int32(settings.width)
    c.pointee.height = Int32(settings.height)
    c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
    c.pointee.time_base = AVRational(num: 1, den: settings.timescale)
    c.pointee.framerate = av_d2q(settings.fps, 1_000_000)
    c.pointee.gop_size = Int32(settings.effectiveGOP)
    c.pointee.max_b_frames = Int32(settings.bframes)
    // BT.601 limited range, which is what BGRAToYUV420 produces.
    c.pointee.color_range = AVCOL_RANGE_MPEG
    c.pointee.colorspace = AVCOL_SPC_SMPTE170M
    c.pointee.color_primaries = AVCOL_PRI_SMPTE170M
    c.pointee.color_trc = AVCOL_TRC_SMPTE170M
    if globalHeader { c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
    let name = settings.codec
    // JPEG's own range is full; limited-range yuv420p is allowed as "unofficial".
    if name == "mjpeg" { c.pointee.strict_std_compliance = FF_COMPLIANCE_UNOFFICIAL }
    let priv = c.pointee.priv_data
    func hasOption(_ key: String) -> Bool {
      guard let priv else { return false }
      return av_opt_find(priv, key, nil, 0, 0) != nil
    }
    func setOption(_ key: String, _ value: String, what: String) throws {
      guard let priv, av_opt_set(priv, key, value, 0) >= 0 else {
        throw MediaSettingsError("video encoder '\(name)' does not support \(what)")
      }
    }
    switch settings.rateControl {
    case .bitrate(let b)?:
      c.pointee.bit_rate = Int64(b)
    case .crf(let q)?:
      guard hasOption("crf") else {
        throw MediaSettingsError("video encoder '\(name)' has no --crf (use --video-bitrate)")
      }
      try setOption("crf", String(q), what: "--crf")
      if name == "libvpx-vp9" { c.pointee.bit_rate = 0 }  // constant quality, not constrained
    case nil:
      switch name {
      case "libx264": try setOption("crf", "23", what: "--crf")
      case "libvpx-vp9":
        try setOption("crf", "32", what: "--crf")
        c.pointee.bit_rate = 0
      case "mjpeg":
        c.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
        c.pointee.global_quality = 3 * FF_QP2LAMBDA
      case "libx265", "libsvtav1": break  // their own constant-quality defaults
      default:
        // Hardware encoders have no common quality knob: 0.1 bit per pixel.
        c.pointee.bit_rate = Int64(Double(settings.width * settings.height) * settings.fps * 0.1)
      }
    }
    if let preset = settings.preset ?? (settings.realtime && settings.usesX264Presets ? "veryfast" : nil) {
      try setOption("preset", preset, what: "presets")
    }
    if settings.realtime {
      switch name {
      case "libsvtav1": try setOption("preset", "10", what: "presets")
      case "libvpx-vp9":
        try setOption("deadline", "realtime", what: "realtime")
        try setOption("cpu-used", "8", what: "realtime")
        try setOption("row-mt", "1", what: "realtime")
      default: break
      }
    }
    if let tune = settings.tune {
      if name == "libvpx-vp9" && tune == "zerolatency" {
        try setOption("lag-in-frames", "0", what: "--tune zerolatency")
      } else {
        guard hasOption("tune") else { throw MediaSettingsError("video encoder '\(name)' has no --tune") }
        try setOption("tune", tune, what: "--tune \(tune)")
      }
    }
    if let profile = settings.profile { try setOption("profile", profile.rawValue, what: "profiles") }
    // libx265 and SVT-AV1 write to stderr themselves, past av_log: they get av_log's
    // level (FFmpegLogging), so that their banners and errors show only when asked for.
    let libraryErrors = av_log_get_level() >= AV_LOG_ERROR
    if name == "libx265" {
      try setOption("x265-params", libraryErrors ? "log-level=error" : "log-level=none", what: "x265-params")
    }
    // SVT-AV1's level is SVT_LOG (0: fatal errors only); a value already set is kept.
    // The CLI sets it at start-up, before other threads run: this is for other callers.
    if name == "libsvtav1" { setenv("SVT_LOG", libraryErrors ? "1" : "0", 0) }
    let opened = avcodec_open2(c, codec, nil)
    if opened < 0 {
      let hardware = codec.pointee.capabilities & Int32(AV_CODEC_CAP_HARDWARE) != 0 || name.contains("_")
      // What libx264, libx265 and SVT-AV1 return for settings they refuse; FFmpeg's texts
      // for them ("Invalid data found when processing input") point elsewhere.
      let refused = [camfx_averror(EINVAL), CAMFX_AVERROR_INVALIDDATA, CAMFX_AVERROR_EXTERNAL].contains(opened)
      let message =
        hardware ? FFmpegError.text(for: opened) + " (is its device present and free?)"
        : refused ? "\(name) refused the frame size, rate or options" : FFmpegError.text(for: opened)
      throw FFmpegError(code: opened, operation: "opening video encoder '\(name)' for \(settings.geometry)", message: message)
    }
  }

  /// True once a picture was sent to the encoder.
  var hasSentFrames = false

  deinit {
    // SVT-AV1 waits forever in its deinit for an end of stream it was never sent, and
    // in its end of stream for a first picture it was never sent (an encoder opened
    // and dropped before any frame came): give it one, end the stream, and drain.
    guard settings.codec == "libsvtav1", avcodec_is_open(pointer) != 0, let packet = av_packet_alloc() else { return }
    defer {
      var p: UnsafeMutablePointer<AVPacket>? = packet
      av_packet_free(&p)
    }
    if !hasSentFrames, let frame = av_frame_alloc() {
      frame.pointee.width = pointer.pointee.width
      frame.pointee.height = pointer.pointee.height
      frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
      frame.pointee.pts = 0
      if av_frame_get_buffer(frame, 0) >= 0 {
        let f = frame.pointee
        let chromaRows = Int(f.height + 1) / 2
        memset(f.data.0!, 16, Int(f.linesize.0) * Int(f.height))
        memset(f.data.1!, 128, Int(f.linesize.1) * chromaRows)
        memset(f.data.2!, 128, Int(f.linesize.2) * chromaRows)
        _ = avcodec_send_frame(pointer, frame)
      }
      var f: UnsafeMutablePointer<AVFrame>? = frame
      av_frame_free(&f)
    }
    guard avcodec_send_frame(pointer, nil) >= 0 else { return }
    while avcodec_receive_packet(pointer, packet) >= 0 { av_packet_unref(packet) }
  }

  /// True when `codec` takes yuv420p frames (or says nothing of its formats).
  static func acceptsYUV420(_ codec: UnsafePointer<AVCodec>) -> Bool {
    guard let formats = codec.pointee.pix_fmts else { return true }
    var i = 0
    while formats[i] != AV_PIX_FMT_NONE {
      if formats[i] == AV_PIX_FMT_YUV420P { return true }
      i += 1
    }
    return false
  }

  /// The names of this FFmpeg's video encoders that take yuv420p, sorted.
  static func availableEncoders() -> [String] {
    var names: [String] = []
    var opaque: UnsafeMutableRawPointer? = nil
    while let codec = av_codec_iterate(&opaque) {
      guard av_codec_is_encoder(codec) != 0, codec.pointee.type == AVMEDIA_TYPE_VIDEO, acceptsYUV420(codec) else { continue }
      names.append(String(cString: codec.pointee.name))
    }
    return names.sorted()
  }
}
