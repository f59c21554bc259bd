import CamfxCore

/// Turns every pixel grey: Y = round(Kr·R + Kg·G + Kb·B), written to B, G and R; alpha
/// is left as it was.
///
///     camfx snapshot --filter grayscale=matrix=bt709 -o gray.png
///
/// The weights are BT.601's (the default, as for standard-definition video and JPEG) or
/// BT.709's (HD). The kernel works in 8-bit fixed point (weights summing to 256) on
/// sixteen pixels at a time; its result is within ±1 of the floating-point formula for
/// every colour.
public struct Grayscale: RowLocalYUV420Filter {
  public static let name = "grayscale"
  public static let summary = "Converts to grey (luma of BT.601 or BT.709), alpha untouched."
  public static let example = "camfx snapshot --filter grayscale=matrix=bt709 -o gray.png"
  public static let options: [FilterOption] = [
    FilterOption(
      "matrix", .choice(Matrix.allCases.map(\.rawValue)), default: Matrix.bt601.rawValue,
      help: "luma weights: bt601 (0.299, 0.587, 0.114) or bt709 (0.2126, 0.7152, 0.0722)"),
  ]

  /// Which standard's luma weights to use.
  public enum Matrix: String, Sendable, CaseIterable {
    case bt601, bt709

    /// (Kr, Kg, Kb) as the standard gives them.
    public var weights: (r: Double, g: Double, b: Double) {
      switch self {
      case .bt601: return (0.299, 0.587, 0.114)
      case .bt709: return (0.2126, 0.7152, 0.0722)
      }
    }

    /// The weights × 256, rounded so that they sum to exactly 256 (white stays 255)
    /// and each is within 0.53 of the exact product, which keeps the result within ±1.
    var fixedPoint: (r: UInt32, g: UInt32, b: UInt32) {
      switch self {
      case .bt601: return (77, 150, 29)  // 76.544, 150.272, 29.184
      case .bt709: return (54, 183, 19)  // 54.426, 183.091, 18.483
      }
    }
  }

  public let matrix: Matrix

  public init(matrix: Matrix = .bt601) {
    self.matrix = matrix
  }

  public init(options: FilterOptions) throws {
    // The option table only admits the choices, so this cannot fail.
    self.init(matrix: Matrix(rawValue: options.string("matrix") ?? "") ?? .bt601)
  }

  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry { input }

  /// Each pixel becomes its own grey.
  public var isRowLocal: Bool { true }

  public func process(band: inout PixelBuffer, firstRow: Int) { process(&band) }

  public func process(_ frame: inout PixelBuffer) {
    let k = matrix.fixedPoint
    let width = frame.width, height = frame.height, bytesPerRow = frame.bytesPerRow
    frame.withUnsafeMutableBytes { base in
      for y in 0..<height {
        Self.convertRow(base + y * bytesPerRow, count: width, kr: k.r, kg: k.g, kb: k.b)
      }
    }
  }

  /// Converts `count` BGRA pixels starting at `row`, in place.
  ///
  /// Sixteen pixels per step, as two vectors of sixteen 16-bit lanes (one AVX2 register
  /// each; two SSE2 registers each on a baseline x86-64 build), each lane one byte pair
  /// as it lies in memory (B | G<<8, R | A<<8). Masking and shifting split them into
  /// even bytes (B, R) and odd bytes (G, A) without any shuffle; then
  ///
  ///     lane 2i   = Kb·B + Kg·G        lane 2i+1 = Kr·R       (16-bit multiply-adds)
  ///     y         = (lane 2i + lane 2i+1 + 128) >> 8          (in the 32-bit pixel lane)
  ///     pixel     = y·0x0101 | y·1 << 16 | A << 24              (one more 16-bit multiply)
  ///
  /// Every sum stays below 65536 because the weights add up to 256. The weight vectors
  /// are built once per row, outside the loop; the rest of the row (fewer than 16
  /// pixels) goes four at a time, then one at a time, through the same formula.
  @inline(__always)
  static func convertRow(_ row: UnsafeMutableRawPointer, count: Int, kr: UInt32, kg: UInt32, kb: UInt32) {
    let weights = Weights(kr: kr, kg: kg, kb: kb)
    var i = 0
    while i &+ 16 <= count {
      let p = row + i &* 4
      let first = p.loadUnaligned(as: SIMD16<UInt16>.self)
      let second = p.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt16>.self)
      p.storeBytes(of: weights.grey(first), as: SIMD8<UInt32>.self)
      p.storeBytes(of: weights.grey(second), toByteOffset: 32, as: SIMD8<UInt32>.self)
      i &+= 16
    }
    while i &+ 4 <= count {
      let p = row + i &* 4
      p.storeBytes(of: weights.grey(p.loadUnaligned(as: SIMD8<UInt16>.self)), as: SIMD4<UInt32>.self)
      i &+= 4
    }
    while i < count {
      let w = row.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self)
      let luma = ((w & 0xFF) &* kb &+ ((w &>> 8) & 0xFF) &* kg &+ ((w &>> 16) & 0xFF) &* kr &+ 128) &>> 8
      row.storeBytes(of: (w & 0xFF00_0000) | luma | (luma &<< 8) | (luma &<< 16), toByteOffset: i &* 4, as: UInt32.self)
      i &+= 1
    }
  }

  /// The weights as lane patterns for eight and four pixels.
  struct Weights {
    let even16: SIMD16<UInt16>, odd16: SIMD16<UInt16>
    let even8: SIMD8<UInt16>, odd8: SIMD8<UInt16>

    @inline(__always)
    init(kr: UInt32, kg: UInt32, kb: UInt32) {
      even8 = SIMD8(UInt16(kb), UInt16(kr), UInt16(kb), UInt16(kr), UInt16(kb), UInt16(kr), UInt16(kb), UInt16(kr))
      odd8 = SIMD8(UInt16(kg), 0, UInt16(kg), 0, UInt16(kg), 0, UInt16(kg), 0)
      even16 = SIMD16(lowHalf: even8, highHalf: even8)
      odd16 = SIMD16(lowHalf: odd8, highHalf: odd8)
    }

    /// Eight pixels (as 16-bit lanes) made grey, alpha kept.
    @inline(__always)
    func grey(_ v: SIMD16<UInt16>) -> SIMD8<UInt32> {
      let sums = unsafeBitCast((v & 0x00FF) &* even16 &+ (v &>> 8) &* odd16, to: SIMD8<UInt32>.self)
      let rounded = unsafeBitCast(sums &+ (sums &>> 16) &+ 128, to: SIMD32<UInt8>.self)
      var grey = SIMD32<UInt8>()
      for i in 0..<8 {
        grey[4 * i] = rounded[4 * i + 1]
        grey[4 * i + 1] = rounded[4 * i + 1]
        grey[4 * i + 2] = rounded[4 * i + 1]
      }
      return unsafeBitCast(grey, to: SIMD8<UInt32>.self) | (unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0xFF00_0000)
    }

    /// Four pixels (as 16-bit lanes) made grey, alpha kept.
    @inline(__always)
    func grey(_ v: SIMD8<UInt16>) -> SIMD4<UInt32> {
      let sums = unsafeBitCast((v & 0x00FF) &* even8 &+ (v &>> 8) &* odd8, to: SIMD4<UInt32>.self)
      let rounded = unsafeBitCast(sums &+ (sums &>> 16) &+ 128, to: SIMD16<UInt8>.self)
      var grey = SIMD16<UInt8>()
      for i in 0..<4 {
        grey[4 * i] = rounded[4 * i + 1]
        grey[4 * i + 1] = rounded[4 * i + 1]
        grey[4 * i + 2] = rounded[4 * i + 1]
      }
      return unsafeBitCast(grey, to: SIMD4<UInt32>.self) | (unsafeBitCast(v, to: SIMD4<UInt32>.self) & 0xFF00_0000)
    }
  }
}
