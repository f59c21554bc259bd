/// A polygon on the picture, in the recorded frame's pixels: a zone's outline
/// (`MotionZone`) or a part to ignore (`--motion-ignore`).
///
///     try MotionPolygon("0,0 320,0 320,240 0,240")
public struct MotionPolygon: Sendable, Equatable {
  public var points: [(x: Double, y: Double)] {
    get { zip(xs, ys).map { ($0, $1) } }
    set {
      xs = newValue.map(\.x)
      ys = newValue.map(\.y)
    }
  }
  private var xs: [Double]
  private var ys: [Double]

  /// - Parameter text: three or more points `X,Y`, separated by spaces.
  /// - Throws: `MotionOptionError` naming the point that is not `X,Y`.
  public init(_ text: String) throws(MotionOptionError) {
    xs = []
    ys = []
    for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
      let parts = word.split(separator: ",", omittingEmptySubsequences: false)
      guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]), x.isFinite, y.isFinite else {
        throw MotionOptionError("'\(word)' is not a point X,Y (pixels, e.g. 120,40)")
      }
      xs.append(x)
      ys.append(y)
    }
    guard xs.count >= 3 else {
      throw MotionOptionError("'\(text)' has \(xs.count) point\(xs.count == 1 ? "" : "s"): a polygon needs at least 3 (X,Y X,Y X,Y)")
    }
  }

  public init(points: [(x: Double, y: Double)]) {
    xs = points.map(\.x)
    ys = points.map(\.y)
  }

  public static func == (a: MotionPolygon, b: MotionPolygon) -> Bool { a.xs == b.xs && a.ys == b.ys }

  /// The first point outside a `width`×`height` frame, if one is.
  func pointOutside(width: Int, height: Int) -> (x: Double, y: Double)? {
    points.first { $0.x < 0 || $0.y < 0 || $0.x > Double(width) || $0.y > Double(height) }
  }

  /// True when (x, y) lies inside (even-odd rule).
  func contains(x: Double, y: Double) -> Bool {
    var inside = false
    var j = xs.count - 1
    for i in 0..<xs.count {
      if (ys[i] > y) != (ys[j] > y), x < (xs[j] - xs[i]) * (y - ys[i]) / (ys[j] - ys[i]) + xs[i] {
        inside.toggle()
      }
      j = i
    }
    return inside
  }
}
