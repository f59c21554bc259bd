/// A motion option that cannot be used: one line naming what is wrong.
public struct MotionOptionError: Error, CustomStringConvertible, Sendable, Equatable {
  public let description: String
  public init(_ description: String) { self.description = description }
}
