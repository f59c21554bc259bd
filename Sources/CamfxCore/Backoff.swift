/// Waits that double after each failed try, up to a ceiling, and start again from the
/// floor after a success: how camfx waits for a free pooled buffer (microseconds) and for
/// a live server to come back (seconds) alike.
///
///     var backoff = Backoff(first: 1, maximum: 30)
///     while !connect() { pause(backoff.next()) }   // 1, 2, 4 ... 30, 30 s
///     backoff.reset()
public struct Backoff: Sendable {
  public let first: Double
  public let maximum: Double
  /// The wait `next()` returns next.
  public private(set) var current: Double

  public init(first: Double, maximum: Double) {
    precondition(first > 0 && maximum >= first, "a back-off needs 0 < first <= maximum")
    self.first = first
    self.maximum = maximum
    current = first
  }

  /// The wait before the next try, in the caller's unit; the one after it is twice as
  /// long, up to `maximum`.
  public mutating func next() -> Double {
    defer { current = min(current * 2, maximum) }
    return current
  }

  /// After a success: the next wait is `first` again.
  public mutating func reset() { current = first }
}
