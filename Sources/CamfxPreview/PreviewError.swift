/// A preview that cannot be served: an address that cannot be bound, a bad `--listen`
/// or `--preview-auth` value, a JPEG that cannot be made. One line for users.
public struct PreviewError: Error, CustomStringConvertible, Sendable, Equatable {
  public let description: String
  public init(_ description: String) { self.description = description }
}
