import CamfxCore

/// A named capture quality, like `AVCaptureSession.Preset`: a fixed size (`vga`,
/// `720p`, `1080p`) or a size chosen from what the camera offers (`high`: its largest;
/// `medium`: 640×480 or nearest; `low`: 320×240 or nearest).
public enum CapturePreset: String, Sendable, CaseIterable, CustomStringConvertible {
  case vga
  case hd720 = "720p"
  case hd1080 = "1080p"
  case high
  case medium
  case low

  /// Parses `--preset`.
  /// - Throws: `CaptureOptionError` listing the presets.
  public init(parsing text: String) throws {
    guard let preset = CapturePreset(rawValue: text.lowercased()) else {
      throw CaptureOptionError(
        "unknown preset '\(text)'; expected one of: \(CapturePreset.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    self = preset
  }

  /// The exact size the preset demands, or `nil` when it picks from what is offered.
  public var fixedSize: FrameGeometry? {
    switch self {
    case .vga: return FrameGeometry(width: 640, height: 480)
    case .hd720: return FrameGeometry(width: 1280, height: 720)
    case .hd1080: return FrameGeometry(width: 1920, height: 1080)
    case .high, .medium, .low: return nil
    }
  }

  /// The size `medium` and `low` aim for (the nearest offered size by area is used).
  var targetSize: FrameGeometry {
    switch self {
    case .low: return FrameGeometry(width: 320, height: 240)
    default: return FrameGeometry(width: 640, height: 480)
    }
  }

  public var description: String { rawValue }
}
