/// One `--control name=value`: a control named as `camfx controls` lists it
/// (`brightness`, `horizontal_flip`) and the value to set.
public struct ControlAssignment: Sendable, Hashable, CustomStringConvertible {
  public var name: String
  public var value: Int64

  public init(name: String, value: Int64) {
    self.name = name
    self.value = value
  }

  /// Parses `name=value`; the value is an integer, or `true`/`false`/`on`/`off`.
  /// - Throws: `CaptureOptionError` naming the text.
  public init(parsing text: String) throws {
    let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty else {
      throw CaptureOptionError("invalid control '\(text)': expected name=value, e.g. brightness=140")
    }
    let valueText = parts[1].lowercased()
    let value: Int64
    switch valueText {
    case "true", "on", "yes": value = 1
    case "false", "off", "no": value = 0
    default:
      guard let v = Int64(valueText) else {
        throw CaptureOptionError("invalid control '\(text)': value '\(parts[1])' is not an integer")
      }
      value = v
    }
    self.init(name: CameraControl.normalizedName(String(parts[0])), value: value)
  }

  public var description: String { "\(name)=\(value)" }
}
