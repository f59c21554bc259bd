/// The SIMD body shared by the YUV → BGRA converters: 16 pixels per step in 16-bit
/// lanes, bit-identical to the 32-bit formula of `PixelConverter.bgra(y:cb:cr:)`.
///
/// Why 16-bit lanes: the x86_64 baseline (SSE2) has no 32-bit lane multiply, but it
/// multiplies eight 16-bit lanes at once, keeping either the low half (`pmullw`) or the
/// high half (`pmulhw`) of each 32-bit product, and it narrows to bytes with
/// saturation (`packuswb`). Every 32-bit term `T` of the formula is therefore carried
/// as two 16-bit vectors, `T = high · 65536 + low` (`low` unsigned):
///
///     channel = (A + C) >> 16             A: luma term, (Y-16)·76309 + 32768
///             = Ah + Ch + carry           C: chroma term, e.g. (Cr-128)·104597
///     carry   = Al + Cl >= 65536          = Al > ~Cl, one signed compare after
///                                           flipping the top bits
///
/// A coefficient above 32767 is split as `k · 65536 + c`, so that `x · coefficient`
/// has high half `k · x + mulhigh(x, c)` and low half `mullow(x, c)`.
///
/// The luma halves are computed per pixel, the chroma halves once per chroma sample:
/// for 4:2:0 input once for two pixels and two rows. Even and odd pixels of a row are
/// worked on as separate vectors (they share chroma) and interleaved when stored.
///
/// The coefficient vectors are stored properties rather than literals in the
/// arithmetic: with a literal, LLVM turns a high-half multiply into a slower
/// `pmaddwd` sequence instead of `pmulhw`.
@usableFromInline
struct YUVToBGRAKernel {
  /// 76309 − 65536: luma scale, whole part 1.
  let lumaFactor = SIMD8<Int16>(repeating: 10773)
  /// 104597 − 2·65536: Cr to red, whole part 2.
  let crToRedFactor = SIMD8<Int16>(repeating: -26475)
  /// 132201 − 2·65536: Cb to blue, whole part 2.
  let cbToBlueFactor = SIMD8<Int16>(repeating: 1129)
  /// −25675: Cb to green (|coefficient| below 32768, no whole part).
  let cbToGreenFactor = SIMD8<Int16>(repeating: -25675)
  /// 65536 − 53279: Cr to green, whole part −1 (the term is −53279·v).
  let crToGreenFactor = SIMD8<Int16>(repeating: 12257)

  @usableFromInline init() {}

  /// The chroma halves of the three channels for eight chroma samples.
  struct ChromaTerms {
    var redHigh: SIMD8<Int16>, redKey: SIMD8<Int16>
    var greenHigh: SIMD8<Int16>, greenKey: SIMD8<Int16>
    var blueHigh: SIMD8<Int16>, blueKey: SIMD8<Int16>
  }

  /// High half of each signed 16 × 16-bit product (`pmulhw`).
  ///
  /// This and the other lane conversions are written per lane: the vectorizer turns
  /// them into one instruction, while the generic `SIMD8(truncatingIfNeeded:)` becomes
  /// a call to the standard library's prespecialization in multi-threaded release
  /// builds (SwiftPM's `-num-threads`), which costs more than the arithmetic.
  @inline(__always)
  static func multiplyHigh(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD8<Int16> {
    var high = SIMD8<Int16>()
    for i in 0..<8 { high[i] = Int16(truncatingIfNeeded: (Int32(a[i]) &* Int32(b[i])) &>> 16) }
    return high
  }

  /// The low 16 bits of each lane (values 0…255 here).
  @inline(__always)
  static func lowHalves(_ words: SIMD8<UInt32>) -> SIMD8<Int16> {
    var halves = SIMD8<Int16>()
    for i in 0..<8 { halves[i] = Int16(truncatingIfNeeded: words[i]) }
    return halves
  }

  /// The low byte of each 16-bit lane.
  @inline(__always)
  static func lowBytes(_ words: SIMD8<UInt16>) -> SIMD8<Int16> {
    SIMD8<Int16>(truncatingIfNeeded: words & SIMD8(repeating: 0xFF))
  }

  /// The high byte of each 16-bit lane.
  @inline(__always)
  static func highBytes(_ words: SIMD8<UInt16>) -> SIMD8<Int16> {
    SIMD8<Int16>(truncatingIfNeeded: words &>> SIMD8(repeating: 8))
  }

  /// Each byte widened to a 16-bit lane.
  @inline(__always)
  static func widened(_ bytes: SIMD8<UInt8>) -> SIMD8<Int16> {
    var lanes = SIMD8<Int16>()
    for i in 0..<8 { lanes[i] = Int16(bytes[i]) }
    return lanes
  }

  /// The key a luma low half is compared with: `Al + Cl >= 65536` exactly when
  /// `lumaLow > key` as signed lanes, with `lumaLow = Al ^ 0x8000` and
  /// `key = (~Cl) ^ 0x8000 = Cl ^ 0x7FFF`.
  @inline(__always)
  static func key(_ low: SIMD8<Int16>) -> SIMD8<Int16> { low ^ SIMD8(repeating: 0x7FFF) }

  /// Chroma terms of eight Cb and Cr samples (0…255 in 16-bit lanes).
  @inline(__always)
  func chroma(cb: SIMD8<Int16>, cr: SIMD8<Int16>) -> ChromaTerms {
    let u = cb &- SIMD8(repeating: 128), v = cr &- SIMD8(repeating: 128)
    // red: v · 104597 = v · 2 · 65536 + v · (−26475)
    let redHigh = v &+ v &+ Self.multiplyHigh(v, crToRedFactor)
    let redLow = v &* crToRedFactor
    // blue: u · 132201 = u · 2 · 65536 + u · 1129
    let blueHigh = u &+ u &+ Self.multiplyHigh(u, cbToBlueFactor)
    let blueLow = u &* cbToBlueFactor
    // green: −(u · 25675 + v · 53279) = (v · 12257 + u · (−25675)) − v · 65536; the two
    // products' low halves carry into the high half like the luma and chroma do.
    let crLow = v &* crToGreenFactor, cbLow = u &* cbToGreenFactor
    let highSum = Self.multiplyHigh(v, crToGreenFactor) &+ Self.multiplyHigh(u, cbToGreenFactor) &- v
    let carried = (crLow ^ SIMD8(repeating: -0x8000)) .> Self.key(cbLow)
    let greenHigh = highSum.replacing(with: highSum &+ SIMD8(repeating: 1), where: carried)
    let greenLow = crLow &+ cbLow
    return ChromaTerms(
      redHigh: redHigh, redKey: Self.key(redLow),
      greenHigh: greenHigh, greenKey: Self.key(greenLow),
      blueHigh: blueHigh, blueKey: Self.key(blueLow))
  }

  /// Luma halves of eight pixels (Y 0…255 in 16-bit lanes): `(Y−16)·76309 + 32768`
  /// as `high` and its low half with the top bit flipped (`low`, ready to compare).
  @inline(__always)
  func luma(_ y: SIMD8<Int16>) -> (high: SIMD8<Int16>, low: SIMD8<Int16>) {
    let y16 = y &- SIMD8(repeating: 16)
    let product = y16 &* lumaFactor
    // + 32768 carries into the high half exactly when the product's low half has its
    // top bit set; the flipped low half is then `product` itself.
    let high = y16 &+ Self.multiplyHigh(y16, lumaFactor) &- (product &>> 15)
    return (high, product)
  }

  /// One channel of eight pixels before clamping: `Ah + Ch + carry`.
  @inline(__always)
  static func channel(
    lumaHigh: SIMD8<Int16>, lumaLow: SIMD8<Int16>, chromaHigh: SIMD8<Int16>, chromaKey: SIMD8<Int16>
  ) -> SIMD8<Int16> {
    let sum = lumaHigh &+ chromaHigh
    return sum.replacing(with: sum &+ SIMD8(repeating: 1), where: lumaLow .> chromaKey)
  }

  /// Clamps sixteen lanes to 0…255 and narrows them (`packuswb`; written per lane
  /// because the vectorizer recognises this shape and not `clamped(...)`).
  @inline(__always)
  static func saturatedBytes(_ first: SIMD8<Int16>, _ second: SIMD8<Int16>) -> SIMD16<UInt8> {
    var bytes = SIMD16<UInt8>()
    for i in 0..<8 {
      bytes[i] = UInt8(truncatingIfNeeded: min(max(first[i], 0), 255))
      bytes[i + 8] = UInt8(truncatingIfNeeded: min(max(second[i], 0), 255))
    }
    return bytes
  }

  /// Converts 16 pixels, given as their even (0, 2, …, 14) and odd (1, 3, …, 15) luma
  /// samples and the eight chroma samples they share, and stores 64 bytes of BGRA.
  @_transparent
  func store16(
    evenLuma: SIMD8<Int16>, oddLuma: SIMD8<Int16>, chroma c: ChromaTerms,
    to destination: UnsafeMutableRawPointer, byteOffset: Int
  ) {
    let even = luma(evenLuma), odd = luma(oddLuma)
    let blue = Self.saturatedBytes(
      Self.channel(lumaHigh: even.high, lumaLow: even.low, chromaHigh: c.blueHigh, chromaKey: c.blueKey),
      Self.channel(lumaHigh: odd.high, lumaLow: odd.low, chromaHigh: c.blueHigh, chromaKey: c.blueKey))
    let green = Self.saturatedBytes(
      Self.channel(lumaHigh: even.high, lumaLow: even.low, chromaHigh: c.greenHigh, chromaKey: c.greenKey),
      Self.channel(lumaHigh: odd.high, lumaLow: odd.low, chromaHigh: c.greenHigh, chromaKey: c.greenKey))
    let red = Self.saturatedBytes(
      Self.channel(lumaHigh: even.high, lumaLow: even.low, chromaHigh: c.redHigh, chromaKey: c.redKey),
      Self.channel(lumaHigh: odd.high, lumaLow: odd.low, chromaHigh: c.redHigh, chromaKey: c.redKey))
    // Lanes 0…7 are the even pixels, 8…15 the odd ones. Zip blue with green and red
    // with alpha (punpck*bw), those pairs into pixels (punpck*wd), then the even
    // pixels with the odd ones (punpck*dq).
    let alpha = SIMD16<UInt8>(repeating: 255)
    let evenBlueGreen = Self.zipLow(blue, green), oddBlueGreen = Self.zipHigh(blue, green)
    let evenRedAlpha = Self.zipLow(red, alpha), oddRedAlpha = Self.zipHigh(red, alpha)
    let even0 = Self.zipLow(words: evenBlueGreen, evenRedAlpha), even4 = Self.zipHigh(words: evenBlueGreen, evenRedAlpha)
    let odd0 = Self.zipLow(words: oddBlueGreen, oddRedAlpha), odd4 = Self.zipHigh(words: oddBlueGreen, oddRedAlpha)
    destination.storeBytes(of: Self.zipLow(pixels: even0, odd0), toByteOffset: byteOffset, as: SIMD4<UInt32>.self)
    destination.storeBytes(of: Self.zipHigh(pixels: even0, odd0), toByteOffset: byteOffset + 16, as: SIMD4<UInt32>.self)
    destination.storeBytes(of: Self.zipLow(pixels: even4, odd4), toByteOffset: byteOffset + 32, as: SIMD4<UInt32>.self)
    destination.storeBytes(of: Self.zipHigh(pixels: even4, odd4), toByteOffset: byteOffset + 48, as: SIMD4<UInt32>.self)
  }

  /// Bytes 0…7 of `a` and `b` interleaved: a0 b0 a1 b1 … (`punpcklbw`).
  @inline(__always)
  static func zipLow(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> {
    SIMD16(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
  }

  /// Bytes 8…15 of `a` and `b` interleaved (`punpckhbw`).
  @inline(__always)
  static func zipHigh(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> {
    SIMD16(a[8], b[8], a[9], b[9], a[10], b[10], a[11], b[11], a[12], b[12], a[13], b[13], a[14], b[14], a[15], b[15])
  }

  /// 16-bit lanes 0…3 of `a` and `b` interleaved (`punpcklwd`).
  @inline(__always)
  static func zipLow(words a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD4<UInt32> {
    let x = unsafeBitCast(a, to: SIMD8<UInt16>.self), y = unsafeBitCast(b, to: SIMD8<UInt16>.self)
    return unsafeBitCast(SIMD8<UInt16>(x[0], y[0], x[1], y[1], x[2], y[2], x[3], y[3]), to: SIMD4<UInt32>.self)
  }

  /// 16-bit lanes 4…7 of `a` and `b` interleaved (`punpckhwd`).
  @inline(__always)
  static func zipHigh(words a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD4<UInt32> {
    let x = unsafeBitCast(a, to: SIMD8<UInt16>.self), y = unsafeBitCast(b, to: SIMD8<UInt16>.self)
    return unsafeBitCast(SIMD8<UInt16>(x[4], y[4], x[5], y[5], x[6], y[6], x[7], y[7]), to: SIMD4<UInt32>.self)
  }

  /// 32-bit lanes 0…1 of `a` and `b` interleaved (`punpckldq`).
  @inline(__always)
  static func zipLow(pixels a: SIMD4<UInt32>, _ b: SIMD4<UInt32>) -> SIMD4<UInt32> { SIMD4(a[0], b[0], a[1], b[1]) }

  /// 32-bit lanes 2…3 of `a` and `b` interleaved (`punpckhdq`).
  @inline(__always)
  static func zipHigh(pixels a: SIMD4<UInt32>, _ b: SIMD4<UInt32>) -> SIMD4<UInt32> { SIMD4(a[2], b[2], a[3], b[3]) }
}
