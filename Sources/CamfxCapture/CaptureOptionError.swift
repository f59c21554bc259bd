/// A capture option the user gave that camfx cannot use (unknown input format, preset,
/// control syntax, audio device name). `description` is the one-line message.
public struct CaptureOptionError: Error, Sendable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
