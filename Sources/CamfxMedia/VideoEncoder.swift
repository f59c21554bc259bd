import CFFmpeg
import CamfxPixelFormats

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
      throw MediaSettingsError("unknown video codec '\(settings.codec)' (FFmpeg has no encoder by that name; try libx264)")
    }
    guard codec.pointee.type == AVMEDIA_TYPE_VIDEO else {
      throw MediaSettingsError("'\(settings.codec)' is not a video encoder")
    }
    if let formats = codec.pointee.pix_fmts {
      var i = 0
      var found = false
      while formats[i] != AV_PIX_FMT_NONE {
        if formats[i] == AV_PIX_FMT_YUV420P { found = true; break }
        i += 1
      }
      guard found else { throw MediaSettingsError("video codec '\(settings.codec)' does not accept yuv420p frames") }
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
    let priv = c.pointee.priv_data
    func setOption(_ key: String, _ value: String, what: String) throws {
      guard let priv, av_opt_set(priv, key, value, 0) >= 0 else {
        throw MediaSettingsError("video codec '\(settings.codec)' does not support \(what)")
      }
    }
    switch settings.rateControl {
    case .bitrate(let b): c.pointee.bit_rate = Int64(b)
    case .crf(let q): try setOption("crf", String(q), what: "--crf (use --video-bitrate)")
    }
    if let preset = settings.preset { try setOption("preset", preset, what: "presets") }
    if let profile = settings.profile { try setOption("profile", profile.rawValue, what: "profiles") }
    try check(avcodec_open2(c, codec, nil), "avcodec_open2 \(settings.codec)")
  }
}
