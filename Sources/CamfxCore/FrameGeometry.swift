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
  /// - Parameter option: the option the text was given to (`--size`), named first in
  ///   the error.
  /// - Throws: `GeometryError` naming the option and the text when it is malformed,
  ///   zero or too large.
  public init(parsing text: String, option: String? = nil) throws {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
      throw GeometryError(text: text, reason: "expected WIDTHxHEIGHT, e.g. 1280x720", option: option)
    }
    let g = FrameGeometry(width: w, height: h)
    do {
      try g.validate(text: text)
    } catch var error as GeometryError {
      error.option = option
      throw error
    }
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
  /// The option the size was given to (`--size`), when it came from one.
  public var option: String?
  public init(text: String, reason: String, option: String? = nil) {
    self.text = text
    self.reason = reason
    self.option = option
  }
  public var description: String { (option.map { "\($0): " } ?? "") + "invalid size '\(text)': \(reason)" }
}
