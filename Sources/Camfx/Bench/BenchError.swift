/// A benchmark that could not be set up (a C call failed), keeping the call and code.
public struct BenchError: Error, CustomStringConvertible {
  /// The C function that failed, e.g. `pthread_create`.
  public var operation: String
  /// Its return code (an errno value for pthread calls).
  public var code: Int32

  public init(operation: String, code: Int32) {
    self.operation = operation
    self.code = code
  }

  public var description: String { "bench: \(operation) failed with code \(code)" }
}
