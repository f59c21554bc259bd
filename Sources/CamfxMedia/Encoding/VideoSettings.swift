import CamfxCore

/// How the video track is encoded, like AVFoundation's `AVVideoSettings` dictionary.
///
/// Defaults suit live recording: H.264 via libx264, CRF 23, no B-frames (so frames are
/// never reordered), a keyframe every two seconds. `codec` may name any FFmpeg video
/// encoder that takes yuv420p: libx265, libsvtav1, libvpx-vp9, mjpeg, or a hardware
/// encoder such as h264_v4l2m2m (Raspberry Pi) or h264_nvenc. Every field is checked by
/// `validate()` (and by `MovieWriter.init`), which names the bad value.
public struct VideoSettings: Sendable, Equatable {
  /// Rate control: a target average bit rate, or a constant rate factor (quality).
  public enum RateControl: Sendable, Equatable {
    /// Average bits per second (`--video-bitrate 4M`).
    case bitrate(Int)
    /// Constant rate factor, 0 (lossless) ... 51 (worst); 23 is libx264's default (`--crf`).
    case crf(Double)
  }

  /// H.264 profiles camfx accepts (`--profile`).
  public enum Profile: String, Sendable, CaseIterable {
    case baseline, main, high

    /// Parses `baseline`, `main` or `high`.
    /// - Throws: `MediaSettingsError` "unknown H.264 profile 'x' (expected baseline, main or high)".
    public init(parsing text: String) throws(MediaSettingsError) {
      guard let p = Profile(rawValue: text.lowercased()) else {
        throw MediaSettingsError("unknown H.264 profile '\(text)' (expected baseline, main or high)")
      }
      self = p
    }
  }

  /// libx264's speed/quality presets (`--x264-preset`), fastest first.
  public static let x264Presets = [
    "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
  ]

  /// Frame size. yuv420p stores chroma at half resolution, so both sides must be even
  /// (see `validate()`).
  public var width: Int
  public var height: Int
  /// FFmpeg encoder name (`avcodec_find_encoder_by_name`); it must accept yuv420p.
  public var codec: String = "libx264"
  /// The codec name that asks for no encoder: the source's own packets are copied.
  public static let copyCodec = "copy"
  /// True when `codec` is `copy` (a `PacketCopySession`, not an encoder).
  public var copiesPackets: Bool { codec == Self.copyCodec }
  /// `nil`: the encoder's usual quality setting (CRF 23 for libx264, CRF 32 for
  /// libvpx-vp9, q 3 for mjpeg, the encoder's own default for libx265 and libsvtav1,
  /// and a bit rate of 0.1 bit per pixel for encoders with no quality mode).
  public var rateControl: RateControl? = nil
  /// Nominal frames per second. Tells the encoder's rate control the frame rate and
  /// sets the stream's average frame rate; timestamps still come from the frames.
  public var fps: Double = 30
  /// Maximum distance between keyframes in frames (`--gop`); `nil` means two seconds' worth.
  public var gop: Int? = nil
  /// Consecutive B-frames allowed (`--bframes`); 0 means no frame reordering.
  public var bframes: Int = 0
  /// H.264 profile; `nil` lets libx264 choose (high).
  public var profile: Profile? = nil
  /// libx264 or libx265 preset (`--x264-preset`); `nil` means the encoder's default
  /// (`medium`), or what `realtime` picks.
  public var preset: String? = nil
  /// Favour speed, as a live source needs: libx264/libx265 `veryfast` (unless `preset`
  /// says otherwise), libsvtav1 preset 10, libvpx-vp9 in its realtime mode.
  public var realtime = false
  /// The encoder's `tune` (`--tune zerolatency`: no lookahead and no frame threads,
  /// so each frame leaves the encoder as soon as it is coded).
  public var tune: String? = nil
  /// Ticks per second of the encoder's time base. Frame timestamps are rescaled to
  /// it (`av_rescale_q`), so it must be fine enough to keep them distinct: 90 kHz, as
  /// in MPEG transport streams, represents every common frame rate exactly enough.
  public var timescale: Int32 = 90_000

  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }

  public init(geometry: FrameGeometry) {
    self.init(width: geometry.width, height: geometry.height)
  }

  public var geometry: FrameGeometry { FrameGeometry(width: width, height: height) }

  /// The keyframe interval actually used: `gop`, or `2 × fps` rounded.
  public var effectiveGOP: Int { gop ?? max(1, Int((fps * 2).rounded())) }

  /// The short codec names `--video-codec` takes, and the encoder each one means.
  public static let encoders: KeyValuePairs<String, String> = [
    "h264": "libx264", "hevc": "libx265", "av1": "libsvtav1", "vp9": "libvpx-vp9", "mjpeg": "mjpeg",
  ]

  /// The encoder a `--video-codec` name means (`h265` is taken for `hevc`).
  /// - Throws: `MediaSettingsError` listing the names for an unknown one.
  public static func encoder(forCodec name: String) throws(MediaSettingsError) -> String {
    let key = name.lowercased() == "h265" ? "hevc" : name.lowercased()
    guard let encoder = encoders.first(where: { $0.key == key })?.value else {
      throw MediaSettingsError(
        "unknown --video-codec '\(name)' (expected \(encoders.map(\.key).joined(separator: ", ")) or copy; "
          + "--encoder NAME takes any FFmpeg encoder)")
    }
    return encoder
  }

  /// True for the encoders that take x264's preset names.
  var usesX264Presets: Bool { codec == "libx264" || codec == "libx265" }

  /// Checks every field and names the first bad one.
  ///
  /// An odd width or height is an error rather than silently rounded: yuv420p (what
  /// H.264 encoders take) samples chroma per 2×2 block, and dropping a row or column
  /// behind the user's back would change the picture they asked for.
  /// - Throws: `MediaSettingsError`.
  public func validate() throws(MediaSettingsError) {
    do { try geometry.validate() } catch { throw MediaSettingsError("\(error)") }
    if width < 2 || height < 2 {
      throw MediaSettingsError("frame size \(geometry) is too small; H.264 in yuv420p needs at least 2x2")
    }
    if width % 2 != 0 || height % 2 != 0 {
      let even = "\(width & ~1)x\(height & ~1)"
      throw MediaSettingsError(
        "frame size \(geometry) has an odd side; H.264 in yuv420p needs an even width and height (crop to e.g. \(even))")
    }
    // libavcodec's own limit for a picture (av_image_check_size: the padded frame's
    // bytes must fit an int), checked here so the message names the size, not FFmpeg's call.
    if (width + 128) * (height + 128) >= Int(Int32.max) / 8 {
      throw MediaSettingsError(
        "frame size \(geometry) is too large for the encoder (at most about 260 million pixels; 8192x8192 works)")
    }
    try checkEncoderLimits()
    guard fps.isFinite, fps > 0, fps <= 1000 else {
      throw MediaSettingsError("invalid fps '\(fps)': must be between 0 and 1000")
    }
    let maximumCRF: Double = codec == "libsvtav1" || codec == "libvpx-vp9" ? 63 : 51
    switch rateControl {
    case .bitrate(let b)? where b < 1000:
      // libx264 counts in kbit/s: less than 1k is no rate at all to it.
      throw MediaSettingsError("invalid video bitrate \(b) bit/s: at least 1k (1000 bit/s)")
    case .crf(let c)? where !(c >= 0 && c <= maximumCRF):
      throw MediaSettingsError("invalid crf '\(c)': must be between 0 and \(Int(maximumCRF))")
    default: break
    }
    if let gop, gop < 1 || gop > 100_000 {
      throw MediaSettingsError("invalid gop \(gop): must be between 1 and 100000 frames")
    }
    guard bframes >= 0, bframes <= 16 else {
      throw MediaSettingsError("invalid bframes \(bframes): must be between 0 and 16")
    }
    if profile != nil && codec != "libx264" {
      throw MediaSettingsError("--profile sets an H.264 profile; the \(codec) encoder takes its own")
    }
    if profile == .baseline && bframes > 0 {
      throw MediaSettingsError("the baseline profile has no B-frames; use --bframes 0 or another profile")
    }
    if preset != nil && !usesX264Presets {
      throw MediaSettingsError("--x264-preset applies to libx264 and libx265, not \(codec)")
    }
    if let preset, !Self.x264Presets.contains(preset) {
      throw MediaSettingsError(
        "unknown x264 preset '\(preset)' (expected one of \(Self.x264Presets.joined(separator: ", ")))")
    }
    if let tune { try Self.checkTune(tune, codec: codec) }
    guard timescale > 0 else { throw MediaSettingsError("invalid video timescale \(timescale)") }
  }

  /// libx264's tunes (`x264_tune_names`); the first six tune its psychovisual options,
  /// so only one of them applies at a time.
  static let x264Tunes = ["film", "animation", "grain", "stillimage", "psnr", "ssim", "fastdecode", "zerolatency"]
  /// libx265's tunes (`x265_tune_names`), one at a time.
  static let x265Tunes = ["psnr", "ssim", "grain", "fastdecode", "zerolatency", "animation"]

  /// Refuses a tune libx264 or libx265 would refuse: they say why only on stderr, past
  /// av_log, and avcodec_open2 returns a bare EINVAL.
  static func checkTune(_ tune: String, codec: String) throws(MediaSettingsError) {
    switch codec {
    case "libx264":
      // x264's own parsing: any of ",./-+" separates tunes, case does not matter.
      let parts = tune.lowercased().split(whereSeparator: { ",./-+".contains($0) }).map(String.init)
      let expected = "expected " + list(x264Tunes, or: true) + "; several join with commas, e.g. film,zerolatency"
      guard !parts.isEmpty else { throw MediaSettingsError("unknown --tune '\(tune)' for libx264 (\(expected))") }
      if let unknown = parts.first(where: { !x264Tunes.contains($0) }) {
        let within = parts.count > 1 ? " in '\(tune)'" : ""
        throw MediaSettingsError("unknown --tune '\(unknown)'\(within) for libx264 (\(expected))")
      }
      // x264 warns and ignores a second one, which would record something else than asked.
      let psychovisual = Array(x264Tunes.prefix(6))
      if parts.filter(psychovisual.contains).count > 1 {
        throw MediaSettingsError(
          "--tune '\(tune)' names more than one of \(list(psychovisual, or: false)); libx264 takes one of them "
            + "(fastdecode and zerolatency combine with any)")
      }
    case "libx265":
      // x265 also knows zero-latency, fast-decode and vmaf, spelled exactly so.
      guard x265Tunes.contains(tune) || ["zero-latency", "fast-decode", "vmaf"].contains(tune) else {
        throw MediaSettingsError("unknown --tune '\(tune)' for libx265 (expected \(list(x265Tunes, or: true)))")
      }
    default: break
    }
  }

  /// The frame sizes the encoder takes (found by trying: `ffmpeg -f lavfi -i
  /// testsrc=size=WxH -c:v ENCODER -f null -`); outside them it fails to open with a
  /// bare EINVAL and says why only on stderr.
  func checkEncoderLimits() throws(MediaSettingsError) {
    switch codec {
    case "libsvtav1":
      // SVT-AV1 1.4: "Source Width must be at least 64", "Source Height must be less
      // than or equal to 8704".
      if width < 64 || height < 64 {
        throw MediaSettingsError("frame size \(geometry) is too small for libsvtav1 (AV1), which needs at least 64x64")
      }
      if height > 8704 {
        throw MediaSettingsError("frame size \(geometry) is too tall for libsvtav1 (AV1), which takes at most 8704 rows")
      }
      // "The target bit rate must be between [0, 100000] kbps".
      if case .bitrate(let b)? = rateControl, b > 100_000_000 {
        throw MediaSettingsError("invalid video bitrate \(b) bit/s for libsvtav1 (AV1): at most 100M (100 Mbit/s)")
      }
    case "libx265":
      // libavcodec's libx265 wrapper refuses less than 16x16 ("Image size is too small");
      // placebo's transform depth needs 32x32 CTUs, which x265 shrinks for smaller pictures.
      let placebo = preset == "placebo"
      let minimum = placebo ? 32 : 16
      if width < minimum || height < minimum {
        throw MediaSettingsError(
          "frame size \(geometry) is too small for libx265 (HEVC)\(placebo ? " with preset placebo" : ""), "
            + "which needs at least \(minimum)x\(minimum)")
      }
    default: break
    }
  }

  /// "a, b or c" (`or`), "a, b, c" otherwise.
  private static func list(_ names: [String], or: Bool) -> String {
    guard or, names.count > 1 else { return names.joined(separator: ", ") }
    return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
  }
}
