/// The size of the frames flowing between two pipeline stages.
public struct FrameGeometry: Sendable, Hashable, CustomStringConvertible {
  public var width: Int
  public var height: Int

  /// The largest side camfx accepts anywhere (images, sizes, frames).
  public static let maximumSide = 16384

  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }

  /// Parses `WxH` (e.g. `1280x720`) and validates it.
  /// - Throws: `GeometryError` naming the text when it is malformed, zero or too large.
  public init(parsing text: String) throws {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
      throw GeometryError(text: text, reason: "expected WIDTHxHEIGHT, e.g. 1280x720")
    }
    let g = FrameGeometry(width: w, height: h)
    try g.validate(text: text)
    self = g
  }

  /// Checks that both sides are in `1...maximumSide`.
  public func validate(text: String? = nil) throws {
    guard width > 0, height > 0 else {
      throw GeometryError(text: text ?? description, reason: "width and height must be at least 1")
    }
    guard width <= Self.maximumSide, height <= Self.maximumSide else {
      throw GeometryError(
        text: text ?? description, reason: "width and height must be at most \(Self.maximumSide)")
    }
  }

  public var pixelCount: Int { width * height }
  public var description: String { "\(width)x\(height)" }
}

/// A frame size that is malformed or out of range.
public struct GeometryError: Error, CustomStringConvertible {
  public var text: String
  public var reason: String
  public init(text: String, reason: String) {
    self.text = text
    self.reason = reason
  }
  public var description: String { "invalid size '\(text)': \(reason)" }
}
