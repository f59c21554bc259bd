/// The time between two frames as a fraction of a second (`struct v4l2_fract`), the
/// way V4L2 states frame rates: 1/30 s is 30 fps.
public struct FrameInterval: Sendable, Hashable, Comparable, CustomStringConvertible {
  public var numerator: UInt32
  public var denominator: UInt32

  public init(numerator: UInt32, denominator: UInt32) {
    self.numerator = numerator
    self.denominator = denominator
  }

  /// The interval of a whole number of frames per second.
  public init(framesPerSecond fps: Int) {
    self.init(numerator: 1, denominator: UInt32(fps))
  }

  /// Frames per second (0 for a zero interval).
  public var framesPerSecond: Double {
    numerator == 0 ? 0 : Double(denominator) / Double(numerator)
  }

  /// True when both intervals give the same rate within 0.5% (30000/1001 ≈ 29.97 is not 30).
  public func isClose(to other: FrameInterval) -> Bool {
    let a = framesPerSecond, b = other.framesPerSecond
    return abs(a - b) <= 0.005 * max(a, b)
  }

  public static func < (a: FrameInterval, b: FrameInterval) -> Bool {
    UInt64(a.numerator) * UInt64(b.denominator) < UInt64(b.numerator) * UInt64(a.denominator)
  }

  /// `30`, `29.97`, `7.5`.
  public var description: String {
    let fps = framesPerSecond
    if fps == fps.rounded() { return String(Int(fps)) }
    return String((fps * 100).rounded() / 100)
  }
}
