/// A `--source` that cannot be opened. `description` is one line naming the source.
public struct SourceError: Error, CustomStringConvertible, Equatable {
  /// The source as the user named it.
  public var source: String
  public var reason: String

  public init(source: String, reason: String) {
    self.source = source
    self.reason = reason
  }

  public var description: String { "source '\(source)': \(reason)" }
}
