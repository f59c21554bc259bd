/// The weights that make one line of `destinationLength` samples from one of
/// `sourceLength` (a row or a column), for one `ScaleMethod`: for destination sample
/// `i`, `tapCount` weights for source samples `start[i] ..< start[i] + tapCount`.
///
/// Weights that would fall beyond an edge are added to the edge sample, so every
/// window lies inside the source. Each window's fixed-point weights (`fixed`, 14
/// fractional bits) sum to exactly `1 << 14`; `weights` keeps them in floating point,
/// which is the reference the kernels are tested against.
public struct ResamplingTable: Sendable {
  public let sourceLength: Int
  public let destinationLength: Int
  public let tapCount: Int
  /// First source sample of each destination sample's window.
  public let start: [Int]
  /// `tapCount` weights per destination sample, in floating point, summing to 1.
  public let weights: [Double]
  /// The same weights in fixed point with `fractionBits` fractional bits.
  public let fixed: [Int32]

  public static let fractionBits = 14

  /// True when the table copies (same length, one tap of weight 1 each).
  public var isIdentity: Bool { sourceLength == destinationLength && tapCount == 1 }

  public init(method: ScaleMethod, sourceLength n: Int, destinationLength m: Int) {
    precondition(n > 0 && m > 0)
    sourceLength = n
    destinationLength = m
    let s = Double(n) / Double(m)
    // Each destination sample's weights over the whole source line, sparse.
    var windows: [[(Int, Double)]] = []
    windows.reserveCapacity(m)
    for i in 0..<m {
      var taps: [(Int, Double)] = []
      func add(_ j: Int, _ w: Double) {
        guard w != 0 else { return }
        let k = min(max(j, 0), n - 1)  // beyond an edge: the edge sample
        if let at = taps.firstIndex(where: { $0.0 == k }) { taps[at].1 += w } else { taps.append((k, w)) }
      }
      switch method {
      case .nearest:
        add(Int(((Double(i) + 0.5) * s).rounded(.down)), 1)
      case .area:
        let lo = Double(i) * s, hi = Double(i + 1) * s
        var j = Int(lo.rounded(.down))
        while Double(j) < hi {
          add(j, min(hi, Double(j + 1)) - max(lo, Double(j)))
          j += 1
        }
      case .bilinear, .fastBilinear, .bicubic:
        let c = (Double(i) + 0.5) * s - 0.5
        let f = method.widening(s)
        let reach = method.radius * f
        var j = Int((c - reach).rounded(.down))
        while Double(j) < c + reach {
          add(j, method.kernel((Double(j) - c) / f))
          j += 1
        }
      }
      let sum = taps.reduce(0) { $0 + $1.1 }
      windows.append(taps.map { ($0.0, $0.1 / sum) }.sorted { $0.0 < $1.0 })
    }
    // One window length for all, as short as the widest window's span.
    let span = windows.map { ($0.last?.0 ?? 0) - ($0.first?.0 ?? 0) + 1 }.max() ?? 1
    let count = min(span, n)
    var start: [Int] = []
    var weights: [Double] = []
    var fixed: [Int32] = []
    start.reserveCapacity(m)
    weights.reserveCapacity(m * count)
    fixed.reserveCapacity(m * count)
    let one = 1 << Self.fractionBits
    for window in windows {
      let first = min(window.first?.0 ?? 0, n - count)
      var dense = [Double](repeating: 0, count: count)
      for (j, w) in window { dense[j - first] += w }
      var quantised = dense.map { Int32(($0 * Double(one)).rounded()) }
      // Rounding may leave the sum a little off 1: the largest weight takes the rest.
      let error = Int32(one) - quantised.reduce(0, +)
      if error != 0, let largest = quantised.indices.max(by: { quantised[$0] < quantised[$1] }) {
        quantised[largest] += error
      }
      start.append(first)
      weights += dense
      fixed += quantised
    }
    self.tapCount = count
    self.start = start
    self.weights = weights
    self.fixed = fixed
  }
}
