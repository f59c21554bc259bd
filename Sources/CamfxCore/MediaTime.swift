/// A rational timestamp, `value / timescale` seconds, like Core Media's `CMTime`.
///
/// Timestamps travel from source to file unchanged and are only ever *rescaled*
/// (to the encoder's or container's time base), never invented.
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
  public var value: Int64
  public var timescale: Int32

  public init(value: Int64, timescale: Int32) {
    precondition(timescale > 0, "MediaTime timescale must be positive")
    self.value = value
    self.timescale = timescale
  }

  public static let zero = MediaTime(value: 0, timescale: 1)

  public var seconds: Double { Double(value) / Double(timescale) }

  /// This time expressed in another timescale, rounded to the nearest tick.
  public func converted(to newScale: Int32) -> MediaTime {
    if newScale == timescale { return self }
    let num = value.multipliedFullWidth(by: Int64(newScale))
    let (q, r) = Int64(timescale).dividingFullWidth(num)
    // round half away from zero
    let twiceR = r.magnitude * 2
    let adjust: Int64 = twiceR >= UInt64(timescale) ? (value >= 0 ? 1 : -1) : 0
    return MediaTime(value: q + adjust, timescale: newScale)
  }

  public static func < (a: MediaTime, b: MediaTime) -> Bool {
    Int128(a.value) * Int128(b.timescale) < Int128(b.value) * Int128(a.timescale)
  }

  public static func == (a: MediaTime, b: MediaTime) -> Bool {
    Int128(a.value) * Int128(b.timescale) == Int128(b.value) * Int128(a.timescale)
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(seconds) }

  public static func + (a: MediaTime, b: MediaTime) -> MediaTime {
    if a.timescale == b.timescale { return MediaTime(value: a.value + b.value, timescale: a.timescale) }
    let scale = max(a.timescale, b.timescale)
    return MediaTime(value: a.converted(to: scale).value + b.converted(to: scale).value, timescale: scale)
  }

  public static func - (a: MediaTime, b: MediaTime) -> MediaTime {
    a + MediaTime(value: -b.value, timescale: b.timescale)
  }

  public var description: String { "\(value)/\(timescale)" }
}
