import ArgumentParser
import Camfx
import CamfxCapture
#if canImport(Glibc)
import Glibc
#endif

/// The camera options `snapshot` and `record` share. They only matter when the source
/// is a camera (`--source /dev/videoN`, or no `--source` with a camera attached).
struct CameraOptions: ParsableArguments {
  @Option(name: .customLong("input-format"), help: ArgumentHelp(
    "Camera pixel format: mjpeg, h264, yuyv, nv12, yu12, rgb24, bgr24 (default: the best the camera offers).",
    valueName: "format"))
  var inputFormat: String?

  @Option(help: ArgumentHelp(
    "Camera size preset: vga, 720p, 1080p, high (largest), medium (640x480), low (320x240).", valueName: "preset"))
  var preset: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("Camera frames to discard first, while exposure settles.", valueName: "n"))
  var skip = 0

  @Option(name: .customLong("control"), help: ArgumentHelp(
    "Set a camera control before capture, e.g. brightness=140; repeatable (see `camfx controls`).",
    valueName: "name=value"))
  var controls: [String] = []

  /// The options as `CameraSettings`.
  /// - Throws: `CaptureOptionError` naming a bad value.
  func settings() throws -> CameraSettings {
    guard skip >= 0 else { throw CaptureOptionError("--skip must be at least 0, got \(skip)") }
    return CameraSettings(
      pixelFormat: try inputFormat.map { try CameraPixelFormat(parsing: $0) },
      preset: try preset.map { try CapturePreset(parsing: $0) },
      controls: try controls.map { try ControlAssignment(parsing: $0) },
      skipFrames: skip)
  }

  /// True when any camera option was given (so a non-camera source can say it ignores them).
  var isSet: Bool { inputFormat != nil || preset != nil || skip != 0 || !controls.isEmpty }
}

/// Prints a camera's or microphone's adjustments ("the driver set 25 fps instead of
/// 30 fps") on stderr, one line each.
func reportNotes(_ notes: [String], from device: String) {
  for note in notes { printToStandardError("camfx: \(device): \(note)") }
}

func printToStandardError(_ line: String) {
  var stream = StandardErrorStream()
  print(line, to: &stream)
}

struct StandardErrorStream: TextOutputStream {
  mutating func write(_ string: String) {
    let bytes = Array(string.utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
}

/// The microphone forms of `--audio`: `default`, or an ALSA device name such as
/// `hw:Loopback,1,0`, `plughw:1,0`, `sysdefault:CARD=PCH`.
enum MicrophoneOption {
  /// The ALSA device `text` names, or `nil` when it is not a microphone (none, sine…).
  static func device(_ text: String) -> String? {
    if text == "default" { return text }
    let prefixes = ["hw:", "plughw:", "sysdefault", "dsnoop:", "pulse", "pipewire"]
    return prefixes.contains { text.hasPrefix($0) } ? text : nil
  }
}
