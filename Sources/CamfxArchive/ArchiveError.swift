/// Why the archive cannot be set up or a file cannot be uploaded, in one line.
public struct ArchiveError: Error, CustomStringConvertible, Sendable, Equatable {
  public let description: String
  public init(_ description: String) { self.description = description }
}
