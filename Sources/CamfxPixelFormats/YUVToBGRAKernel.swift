/// The SIMD body shared by the YUV → BGRA converters: 16 pixels per step in 16-bit
/// lanes (one AVX2 register per vector), bit-identical to the scalar formula of
/// `YUVToBGRAKernel.bgra(y:cb:cr:)`.
///
/// The arithmetic is libyuv's kind of fixed point: each channel is computed ×64
/// (6 fraction bits) in an unsigned 16-bit lane, and every product is the high half of
/// a 16 × 16-bit multiply (`pmulhuw`) of the sample shifted into the high byte, so the
/// coefficients keep 14 to 16 significant bits:
///
///     luma term     L = (Y·256 · 19077) >> 16                 = ⌊Y · 74.52⌋   (1.164383·64)
///     chroma terms  (C·256 · k) >> 16 for k = 26149, 6419, 13320, 33050
///                   (1.596027, 0.391762, 0.812968, 2.017232, each ·64·256)
///     channel       = clamp((L ± chroma terms + offset) >> 6, 0, 255)
///
/// Offsets fold in Y − 16, C − 128 and rounding (+32). Every result is within ±1 of
/// the Double BT.601 formula (checked for all 2^24 inputs when the constants were
/// chosen; the tests check it on random and exhaustive samples).
///
/// Clamping costs two instructions per channel: with `M = 16384`, the luma lane holds
/// `L + M` and each chroma lane holds `n = M − (chroma part of the channel)` (always
/// 0…65535), so one unsigned saturating subtraction (`psubusw`) gives
/// `max(channel·64, 0)`, and one saturating addition clamps the top (see `store16`).
///
/// The chroma lanes are computed once per chroma sample: for 4:2:0 input once for two
/// rows. The multipliers are literal constants: a coefficient vector kept in a stored
/// property gets widened to 32-bit lanes outside the loop, and the multiply then runs
/// on 32-bit lanes; and no shift follows a multiply directly (LLVM would merge the two
/// shifts into a 32-bit multiply).
@usableFromInline
struct YUVToBGRAKernel {
  // The scalar constants (the vectors below repeat them).
  @usableFromInline static let lumaScale: Int32 = 19077
  @usableFromInline static let crToRed: Int32 = 26149
  @usableFromInline static let cbToGreen: Int32 = 6419
  @usableFromInline static let crToGreen: Int32 = 13320
  @usableFromInline static let cbToBlue: Int32 = 33050
  /// (−(16·19077)/256 − 128·k/256 + 32), rounded, then tuned by ±1 to the fewest
  /// off-by-one results against the Double formula.
  @usableFromInline static let redOffset: Int32 = -14234
  @usableFromInline static let greenOffset: Int32 = 8708
  @usableFromInline static let blueOffset: Int32 = -17685
  /// The bias that keeps every lane unsigned (see the type's discussion).
  @usableFromInline static let bias: Int32 = 16384

  @usableFromInline init() {}

  /// One pixel: the scalar twin of the SIMD body (row ends, tests).
  @inlinable @inline(__always)
  static func bgra(y: Int32, cb: Int32, cr: Int32) -> UInt32 {
    let luma = (y &* lumaScale) &>> 8
    let r = min(max((luma &+ ((cr &* crToRed) &>> 8) &+ redOffset) &>> 6, 0), 255)
    let g = min(max((luma &- ((cb &* cbToGreen) &>> 8) &- ((cr &* crToGreen) &>> 8) &+ greenOffset) &>> 6, 0), 255)
    let b = min(max((luma &+ ((cb &* cbToBlue) &>> 8) &+ blueOffset) &>> 6, 0), 255)
    return UInt32(truncatingIfNeeded: b | g &<< 8 | r &<< 16) | 0xFF00_0000
  }

  /// What each of sixteen pixels' chroma contributes: the subtrahends `n` per channel.
  struct ChromaTerms {
    var red: SIMD16<UInt16>, green: SIMD16<UInt16>, blue: SIMD16<UInt16>
  }

  /// High half of each unsigned 16 × 16-bit product (`pmulhuw`).
  ///
  /// This and the other lane-wise helpers are spelled out lane by lane, with no loop:
  /// the SLP vectorizer turns them into one instruction, whereas a generic SIMD
  /// conversion becomes a call into the standard library in multi-threaded release
  /// builds, and a 16-step loop is not always unrolled before vectorizing (it then
  /// becomes a real loop over the lanes).
  @inline(__always)
  static func multiplyHigh(_ a: SIMD16<UInt16>, _ k: Int32) -> SIMD16<UInt16> {
    @inline(__always) func lane(_ i: Int) -> UInt16 { UInt16(truncatingIfNeeded: (UInt32(a[i]) &* UInt32(k)) &>> 16) }
    return SIMD16(lane(0), lane(1), lane(2), lane(3), lane(4), lane(5), lane(6), lane(7), lane(8), lane(9), lane(10), lane(11), lane(12), lane(13), lane(14), lane(15))
  }

  /// All-ones lanes where `mask` is set, as integers (a mask is a vector of 0 / −1).
  @inline(__always)
  static func lanes(_ mask: SIMDMask<SIMD16<Int16>>) -> SIMD16<UInt16> {
    unsafeBitCast(mask, to: SIMD16<UInt16>.self)
  }

  /// `max(a − b, 0)` per lane (`psubusw`), in whole-vector operations only.
  @inline(__always)
  static func subtractSaturating(_ a: SIMD16<UInt16>, _ b: SIMD16<UInt16>) -> SIMD16<UInt16> {
    (a &- b) & ~lanes(a .< b)
  }

  /// Chroma terms of sixteen pixels from their Cb and Cr, each ·256 (the sample in the
  /// high byte of the lane).
  @inline(__always)
  func chroma(cb: SIMD16<UInt16>, cr: SIMD16<UInt16>) -> ChromaTerms {
    let redBase = SIMD16<UInt16>(repeating: UInt16(Self.bias - Self.redOffset))
    let greenBase = SIMD16<UInt16>(repeating: UInt16(Self.bias - Self.greenOffset))
    let blueBase = SIMD16<UInt16>(repeating: UInt16(Self.bias - Self.blueOffset))
    return ChromaTerms(
      red: redBase &- Self.multiplyHigh(cr, Self.crToRed),
      green: greenBase &+ Self.multiplyHigh(cb, Self.cbToGreen) &+ Self.multiplyHigh(cr, Self.crToGreen),
      blue: blueBase &- Self.multiplyHigh(cb, Self.cbToBlue))
  }

  /// Converts sixteen pixels, given their Y ·256 and their chroma terms, and stores
  /// 64 bytes of BGRA.
  @_transparent
  func store16(luma: SIMD16<UInt16>, chroma c: ChromaTerms, to destination: UnsafeMutableRawPointer, byteOffset: Int) {
    let l = Self.multiplyHigh(luma, Self.lumaScale) &+ SIMD16(repeating: UInt16(Self.bias))
    // max(channel·64, 0), then min(…, 255·64 + 63) as x − max(x − 16383, 0).
    let top = SIMD16<UInt16>(repeating: 16383)
    let blueLow = Self.subtractSaturating(l, c.blue), greenLow = Self.subtractSaturating(l, c.green)
    let redLow = Self.subtractSaturating(l, c.red)
    let blue = blueLow &- Self.subtractSaturating(blueLow, top)
    let green = greenLow &- Self.subtractSaturating(greenLow, top)
    let red = redLow &- Self.subtractSaturating(redLow, top)
    // B | G << 8 and R | A << 8 per pixel, then the two interleaved into pixels within
    // each 128-bit half (punpcklwd, punpckhwd). The lanes are in kernel order (see
    // `pairedHighBytes`), so the two results are pixels 0…7 and 8…15 in order. G is
    // added, not or-ed: with both words made by `|`, LLVM hoists the interleave above
    // the `|` and spends two more cross-lane shuffles.
    let bg = (blue &>> 6) &+ (green &<< 2) & 0xFF00
    let ra = (red &>> 6) | 0xFF00
    let first = SIMD16<UInt16>(
      bg[0], ra[0], bg[1], ra[1], bg[2], ra[2], bg[3], ra[3], bg[8], ra[8], bg[9], ra[9], bg[10], ra[10], bg[11], ra[11])
    let second = SIMD16<UInt16>(
      bg[4], ra[4], bg[5], ra[5], bg[6], ra[6], bg[7], ra[7], bg[12], ra[12], bg[13], ra[13], bg[14], ra[14], bg[15], ra[15])
    destination.storeBytes(of: first, toByteOffset: byteOffset, as: SIMD16<UInt16>.self)
    destination.storeBytes(of: second, toByteOffset: byteOffset &+ 32, as: SIMD16<UInt16>.self)
  }

  /// The lane order every vector of sixteen pixels uses: pixels 0…3, 8…11, 4…7,
  /// 12…15. Interleaving two such vectors within their 128-bit halves (`store16`)
  /// then yields pixels 0…7 and 8…15 in order, with no lane-crossing shuffle at the end.
  ///
  /// Eight chroma bytes (for pixel pairs 0…7) spread over sixteen lanes in that order,
  /// each in the lane's high byte.
  @inline(__always)
  static func pairedHighBytes(_ b: SIMD8<UInt8>) -> SIMD16<UInt16> {
    let z: UInt8 = 0
    return unsafeBitCast(SIMD32<UInt8>(z, b[0], z, b[0], z, b[1], z, b[1], z, b[4], z, b[4], z, b[5], z, b[5], z, b[2], z, b[2], z, b[3], z, b[3], z, b[6], z, b[6], z, b[7], z, b[7]), to: SIMD16<UInt16>.self)
  }

  /// Sixteen luma bytes as sixteen lanes in the kernel's order, each in the lane's high byte.
  @inline(__always)
  static func highBytes(_ b: SIMD16<UInt8>) -> SIMD16<UInt16> {
    let z: UInt8 = 0
    return unsafeBitCast(SIMD32<UInt8>(z, b[0], z, b[1], z, b[2], z, b[3], z, b[8], z, b[9], z, b[10], z, b[11], z, b[4], z, b[5], z, b[6], z, b[7], z, b[12], z, b[13], z, b[14], z, b[15]), to: SIMD16<UInt16>.self)
  }

  /// Sixteen YUYV pixels (32 bytes) with their 8-byte groups reordered to the
  /// kernel's lane order (one `vpermq`); pixel pairs stay whole.
  @inline(__always)
  static func yuyvInKernelOrder(_ bytes: SIMD32<UInt8>) -> SIMD32<UInt8> {
    let q = unsafeBitCast(bytes, to: SIMD4<UInt64>.self)
    return unsafeBitCast(SIMD4<UInt64>(q[0], q[2], q[1], q[3]), to: SIMD32<UInt8>.self)
  }

  /// The Cb (`k` = 1) or Cr (`k` = 3) bytes of sixteen YUYV pixels in kernel order,
  /// each in the high byte of both lanes of its pixel pair (one `pshufb`).
  @inline(__always)
  static func yuyvChroma(_ b: SIMD32<UInt8>, at k: Int) -> SIMD16<UInt16> {
    let z: UInt8 = 0
    return unsafeBitCast(SIMD32<UInt8>(z, b[k], z, b[k], z, b[4 &+ k], z, b[4 &+ k], z, b[8 &+ k], z, b[8 &+ k], z, b[12 &+ k], z, b[12 &+ k], z, b[16 &+ k], z, b[16 &+ k], z, b[20 &+ k], z, b[20 &+ k], z, b[24 &+ k], z, b[24 &+ k], z, b[28 &+ k], z, b[28 &+ k]), to: SIMD16<UInt16>.self)
  }
}
