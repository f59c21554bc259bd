/// Settings for a movie that camfx rejects before touching FFmpeg: an unknown codec or
/// profile, a malformed bitrate, an odd frame size for yuv420p, an unsupported container.
///
/// `description` is the one-line message users see, naming the bad value.
public struct MediaSettingsError: Error, CustomStringConvertible, Sendable, Equatable {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
