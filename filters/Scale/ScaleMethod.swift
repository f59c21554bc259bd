/// How `scale` (and `fit`) weigh source pixels into a destination pixel.
///
/// Every method maps pixel centres: destination pixel `i` of `n` sits at source position
/// `c = (i + 0.5) · s − 0.5` with `s = source / n`. A kernel `K` of radius `R` weighs the
/// source pixels `j` with `|j − c| < R · f` by `K((j − c) / f)`, where `f = max(1, s)`
/// widens the kernel when shrinking (so that every source pixel counts, as libswscale
/// does; `fast_bilinear` keeps `f = 1`), and the weights are normalised to sum to 1.
/// Pixels beyond an edge repeat the edge pixel.
public enum ScaleMethod: String, Sendable, CaseIterable {
  /// The source pixel whose area holds the destination pixel's centre.
  case nearest
  /// The triangle `K(x) = 1 − |x|`, `R = 1`.
  case bilinear
  /// The same triangle, never widened: the two source pixels nearest the centre, as
  /// libyuv's `kFilterBilinear` and OpenCV's `INTER_LINEAR` weigh them. Fewer taps than
  /// `bilinear` when shrinking, so faster, but it aliases (skips pixels) below 1:2.
  case fastBilinear = "fast_bilinear"
  /// Keys' cubic convolution with `a = −0.6`, `R = 2` (libswscale's `SWS_BICUBIC`,
  /// Mitchell–Netravali with B = 0, C = 0.6):
  ///
  ///     K(x) = (a+2)|x|³ − (a+3)|x|² + 1          for |x| ≤ 1
  ///            a|x|³ − 5a|x|² + 8a|x| − 4a         for 1 < |x| < 2
  case bicubic
  /// The box: each destination pixel is the mean of the source area it covers, every
  /// source pixel weighed by how much of it lies inside (`[i·s, (i+1)·s)`). At an
  /// exact 2:1 that is the mean of each 2×2 block.
  case area

  static let bicubicA = -0.6

  /// How much the kernel is widened when shrinking by `s` (source ÷ destination).
  func widening(_ s: Double) -> Double { self == .fastBilinear ? 1 : max(1, s) }

  /// The kernel's value at `x` (in kernel units) for the kernel methods.
  func kernel(_ x: Double) -> Double {
    let t = abs(x)
    switch self {
    case .bilinear, .fastBilinear:
      return t < 1 ? 1 - t : 0
    case .bicubic:
      let a = Self.bicubicA
      if t <= 1 { return ((a + 2) * t - (a + 3)) * t * t + 1 }
      if t < 2 { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a }
      return 0
    case .nearest, .area:
      preconditionFailure("\(self) is not a convolution kernel")
    }
  }

  var radius: Double {
    switch self {
    case .bilinear, .fastBilinear: return 1
    case .bicubic: return 2
    case .nearest, .area: return 0.5
    }
  }
}
