import ArgumentParser
import Camfx
import CamfxMedia

/// The video encoder's options, one group for every command that encodes (`record`,
/// `compose`).
struct EncoderOptions: ParsableArguments {
  @Option(name: .customLong("video-codec"), help: ArgumentHelp(
    "h264 (libx264, the default), hevc (libx265), av1 (libsvtav1), vp9 (libvpx-vp9), mjpeg, or copy (the input's own packets, no re-encoding).",
    valueName: "codec"))
  var videoCodec: String?

  @Option(help: ArgumentHelp(
    "Any FFmpeg video encoder by name, e.g. h264_v4l2m2m (Raspberry Pi), h264_nvenc; it must take yuv420p.",
    valueName: "name"))
  var encoder: String?

  @Option(help: ArgumentHelp(
    "The encoder's tune; zerolatency makes every frame leave the encoder at once (low-latency streams).",
    valueName: "tune"))
  var tune: String?

  @Option(name: .customLong("video-bitrate"), parsing: .unconditional, help: ArgumentHelp("Average video bit rate: 4M, 800k.", valueName: "rate"))
  var videoBitrate: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("Constant rate factor 0-51 instead of a bit rate (default 23).", valueName: "n"))
  var crf: Double?

  @Option(parsing: .unconditional, help: ArgumentHelp("Maximum frames between keyframes (default: 2 s worth).", valueName: "n"))
  var gop: Int?

  @Option(parsing: .unconditional, help: ArgumentHelp("Consecutive B-frames (0: no reordering, the default).", valueName: "n"))
  var bframes: Int?

  @Option(help: ArgumentHelp("H.264 profile: baseline, main or high.", valueName: "profile"))
  var profile: String?

  @Option(name: .customLong("x264-preset"), help: ArgumentHelp(
    "libx264 speed preset: ultrafast ... veryslow (default veryfast for live sources, medium for a movie or a composition).",
    valueName: "preset"))
  var x264Preset: String?

  func validate() throws {
    if videoBitrate != nil && crf != nil { throw ValidationError("use either --video-bitrate or --crf, not both") }
  }

  /// True for `--video-codec copy`: packets as they are, no encoder.
  var copies: Bool { videoCodec?.lowercased() == VideoSettings.copyCodec }

  /// The options given that only an encoder uses, by name (what a copy refuses).
  var given: [(String, Bool)] {
    [
      ("--encoder", encoder != nil), ("--crf", crf != nil), ("--video-bitrate", videoBitrate != nil), ("--gop", gop != nil),
      ("--bframes", bframes != nil), ("--tune", tune != nil), ("--profile", profile != nil),
      ("--x264-preset", x264Preset != nil),
    ]
  }

  /// Applies the options to `video` (checked later, as a whole, by `MovieSettings.validate`).
  func apply(to video: inout VideoSettings) throws {
    if videoCodec != nil && encoder != nil { throw RecordingOptionError("use either --video-codec or --encoder, not both") }
    if copies {
      video.codec = VideoSettings.copyCodec
    } else if let videoCodec {
      video.codec = try VideoSettings.encoder(forCodec: videoCodec)
    }
    if let encoder { video.codec = encoder }
    if let tune { video.tune = tune }
    if let videoBitrate { video.rateControl = .bitrate(try Bitrate.parse(videoBitrate)) }
    if let crf { video.rateControl = .crf(crf) }
    if let gop { video.gop = gop }
    if let bframes { video.bframes = bframes }
    if let profile { video.profile = try VideoSettings.Profile(parsing: profile) }
    if let x264Preset { video.preset = x264Preset }
  }
}
