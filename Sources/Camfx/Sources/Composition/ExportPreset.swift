import CamfxCore
import CamfxMedia

/// `compose --preset`, as `AVAssetExportSession`'s presets: a codec, a size cap (the
/// picture is scaled down to fit inside it, never up) and bit rates.
///
/// | preset | video | size at most | video bit rate | sound |
/// |---|---|---|---|---|
/// | `480p` | H.264 | 854×480 | 1.5 Mbit/s | AAC 128 kbit/s |
/// | `540p` | H.264 | 960×540 | 2 Mbit/s | AAC 128 kbit/s |
/// | `720p` | H.264 | 1280×720 | 4 Mbit/s | AAC 160 kbit/s |
/// | `1080p` | H.264 | 1920×1080 | 8 Mbit/s | AAC 192 kbit/s |
/// | `2160p` | H.264 | 3840×2160 | 35 Mbit/s | AAC 192 kbit/s |
/// | `hevc-1080p` | HEVC | 1920×1080 | 5 Mbit/s | AAC 192 kbit/s |
/// | `hevc-2160p` | HEVC | 3840×2160 | 20 Mbit/s | AAC 192 kbit/s |
public struct ExportPreset: Sendable, Equatable {
  public let name: String
  public let codec: String
  public let maximumSize: FrameGeometry?
  public let videoBitrate: Int
  public let audioBitrate: Int

  public static let all: [ExportPreset] = [
    ExportPreset(name: "480p", codec: "libx264", maximumSize: FrameGeometry(width: 854, height: 480), videoBitrate: 1_500_000, audioBitrate: 128_000),
    ExportPreset(name: "540p", codec: "libx264", maximumSize: FrameGeometry(width: 960, height: 540), videoBitrate: 2_000_000, audioBitrate: 128_000),
    ExportPreset(name: "720p", codec: "libx264", maximumSize: FrameGeometry(width: 1280, height: 720), videoBitrate: 4_000_000, audioBitrate: 160_000),
    ExportPreset(name: "1080p", codec: "libx264", maximumSize: FrameGeometry(width: 1920, height: 1080), videoBitrate: 8_000_000, audioBitrate: 192_000),
    ExportPreset(name: "2160p", codec: "libx264", maximumSize: FrameGeometry(width: 3840, height: 2160), videoBitrate: 35_000_000, audioBitrate: 192_000),
    ExportPreset(name: "hevc-1080p", codec: "libx265", maximumSize: FrameGeometry(width: 1920, height: 1080), videoBitrate: 5_000_000, audioBitrate: 192_000),
    ExportPreset(name: "hevc-2160p", codec: "libx265", maximumSize: FrameGeometry(width: 3840, height: 2160), videoBitrate: 20_000_000, audioBitrate: 192_000),
  ]

  /// `passthrough`: the packets as they are (`PassthroughComposition`), no preset of these.
  public static let passthrough = "passthrough"

  /// Every name `--preset` takes.
  public static var names: [String] { all.map(\.name) + [passthrough] }

  /// - Throws: `RecordingOptionError` listing the presets.
  public init(parsing text: String) throws {
    guard let preset = Self.all.first(where: { $0.name == text.lowercased() }) else {
      throw RecordingOptionError("unknown --preset '\(text)' (expected \(Self.names.joined(separator: ", ")))")
    }
    self = preset
  }

  init(name: String, codec: String, maximumSize: FrameGeometry?, videoBitrate: Int, audioBitrate: Int) {
    self.name = name
    self.codec = codec
    self.maximumSize = maximumSize
    self.videoBitrate = videoBitrate
    self.audioBitrate = audioBitrate
  }

  /// Sets the encoders' codec and bit rates.
  public func apply(to video: inout VideoSettings, audio: inout RecordingPipeline.AudioOptions) throws {
    video.codec = codec
    video.rateControl = .bitrate(videoBitrate)
    audio.codec = "aac"
    audio.bitrate = audioBitrate
  }

  /// `size` scaled down to fit inside `cap` keeping its aspect ratio (even sides), or
  /// `size` itself when it fits.
  public static func capped(_ size: FrameGeometry, to cap: FrameGeometry) -> FrameGeometry {
    guard size.width > cap.width || size.height > cap.height else { return size }
    let scale = min(Double(cap.width) / Double(size.width), Double(cap.height) / Double(size.height))
    let w = Int((Double(size.width) * scale / 2).rounded()) * 2
    let h = Int((Double(size.height) * scale / 2).rounded()) * 2
    return FrameGeometry(width: max(2, min(w, cap.width & ~1)), height: max(2, min(h, cap.height & ~1)))
  }
}
