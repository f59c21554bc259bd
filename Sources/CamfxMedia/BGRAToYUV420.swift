import CamfxCore

/// The BGRA → yuv420p (I420) converter on the recording hot path.
///
/// BT.601 coefficients, limited ("TV") range, as libswscale and libyuv's
/// `ARGBToI420` produce by default, in 8-bit fixed point:
///
///     Y = ( 66 R + 129 G +  25 B + 128) >> 8 +  16
///     U = (-38 R -  74 G + 112 B + 128) >> 8 + 128      (of the 2×2 block's mean)
///     V = (112 R -  94 G -  18 B + 128) >> 8 + 128
///
/// Two source rows are processed at a time: each pair gives two rows of Y and one row
/// of U and V, whose samples come from the mean of a 2×2 block (chroma centred between
/// the two rows and the two columns, as libswscale places it). The mean is taken as
/// libyuv's `ARGBToUVRow` takes it: a rounding byte average (`pavgb`) of the two rows,
/// then of the two columns.
///
///     BGRA rows y, y+1        Y plane           U, V planes (half size)
///     +--+--+--+--+          +--+--+--+--+      +-----+-----+
///     |p0|p1|p2|p3|   --->   |Y0|Y1|Y2|Y3|      | U01 | U23 |
///     +--+--+--+--+          +--+--+--+--+      +-----+-----+
///     |q0|q1|q2|q3|          |Y0|Y1|Y2|Y3|
///     +--+--+--+--+          +--+--+--+--+
///
/// The inner loop handles 16 pixels of both rows per step in 16-bit SIMD lanes (every
/// intermediate fits: Y's sum is at most 60 324, U's and V's, offset by 32 896, stay in
/// 4 336...61 456); it is SSE2-only, so it runs on any x86-64 (and NEON on arm64);
/// the remaining columns go through the scalar formula. Odd widths and heights are
/// accepted: the last column or row stands for its missing neighbour. Nothing is
/// allocated.
public enum BGRAToYUV420 {
  /// Which loop does the work. Both give bit-identical planes (a test checks it).
  public enum Kernel: Sendable, CaseIterable {
    /// 16 pixels per step in SIMD lanes: the fast path, for optimised builds.
    case simd
    /// One 2×2 block per step in plain integers.
    case scalar

    /// `.simd` in release builds. Debug builds use `.scalar`: unoptimised Swift runs
    /// generic SIMD code lane by lane through witness tables, about 10× slower than
    /// the scalar loop (120 ms instead of 9 ms for a 640×360 frame).
    public static var `default`: Kernel {
      #if DEBUG
        .scalar
      #else
        .simd
      #endif
    }
  }

  /// Converts `width × height` BGRA pixels at `source` into three planes.
  ///
  /// - Parameters:
  ///   - source: pixel (0, 0); row `r` starts at `source + r * sourceBytesPerRow`.
  ///   - y, u, v: the planes' first bytes; `u` and `v` hold `(width+1)/2 × (height+1)/2`
  ///     samples.
  ///   - yStride, uStride, vStride: bytes between row starts of each plane.
  ///   - kernel: `.default` unless testing or benchmarking a specific loop.
  public static func convert(
    source: UnsafeRawPointer, sourceBytesPerRow: Int, width: Int, height: Int,
    y: UnsafeMutablePointer<UInt8>, yStride: Int,
    u: UnsafeMutablePointer<UInt8>, uStride: Int,
    v: UnsafeMutablePointer<UInt8>, vStride: Int,
    kernel: Kernel = .default
  ) {
    precondition(width > 0 && height > 0 && sourceBytesPerRow >= width * 4)
    var row = 0
    while row < height {
      let src0 = source + row * sourceBytesPerRow
      // An odd last row pairs with itself.
      let src1 = row + 1 < height ? src0 + sourceBytesPerRow : src0
      let y0 = y + row * yStride
      let y1 = row + 1 < height ? y0 + yStride : y0
      let chromaRow = row >> 1
      convertRowPair(
        src0, src1, width: width, y0: y0, y1: y1,
        u: u + chromaRow * uStride, v: v + chromaRow * vStride, simd: kernel == .simd)
      row += 2
    }
  }

  /// Converts the visible pixels of `buffer` into `planes` (same size).
  public static func convert(_ buffer: PixelBuffer, into planes: YUV420Planes, kernel: Kernel = .default) {
    precondition(buffer.width == planes.width && buffer.height == planes.height, "planes size differs from buffer")
    buffer.withUnsafeBytes { src in
      convert(
        source: src, sourceBytesPerRow: buffer.bytesPerRow, width: buffer.width, height: buffer.height,
        y: planes.y, yStride: planes.yStride, u: planes.u, uStride: planes.uStride,
        v: planes.v, vStride: planes.vStride, kernel: kernel)
    }
  }

  @inline(__always)
  static func convertRowPair(
    _ src0: UnsafeRawPointer, _ src1: UnsafeRawPointer, width: Int,
    y0: UnsafeMutablePointer<UInt8>, y1: UnsafeMutablePointer<UInt8>,
    u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, simd: Bool
  ) {
    var x = 0
    let low: SIMD16<UInt16> = .init(repeating: 0xFF)
    let low8: SIMD8<UInt16> = .init(repeating: 0xFF)
    // 16 pixels (64 bytes) per row and step: 16 Y per row, 8 U and 8 V.
    while simd && x + 16 <= width {
      let a = src0.loadUnaligned(fromByteOffset: x * 4, as: SIMD32<UInt16>.self)
      let b = src1.loadUnaligned(fromByteOffset: x * 4, as: SIMD32<UInt16>.self)
      // Luma. In memory B,G,R,A: as 16-bit lanes, even lanes are B | G << 8, odd lanes R | A << 8.
      let aBG = a.evenHalf, aRA = a.oddHalf
      let bBG = b.evenHalf, bRA = b.oddHalf
      let ya = luma(r: aRA & low, g: aBG &>> 8, b: aBG & low)
      let yb = luma(r: bRA & low, g: bBG &>> 8, b: bBG & low)
      UnsafeMutableRawPointer(y0 + x).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: ya), as: SIMD16<UInt8>.self)
      UnsafeMutableRawPointer(y1 + x).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: yb), as: SIMD16<UInt8>.self)
      // Chroma. Byte averages of the two rows, then of each pixel with its right
      // neighbour (even and odd pixels split with one shuffle): 2×2 means in BGRA order.
      let r0 = average(src0.loadUnaligned(fromByteOffset: x * 4, as: SIMD16<UInt8>.self),
                       src1.loadUnaligned(fromByteOffset: x * 4, as: SIMD16<UInt8>.self))
      let r1 = average(src0.loadUnaligned(fromByteOffset: x * 4 + 16, as: SIMD16<UInt8>.self),
                       src1.loadUnaligned(fromByteOffset: x * 4 + 16, as: SIMD16<UInt8>.self))
      let r2 = average(src0.loadUnaligned(fromByteOffset: x * 4 + 32, as: SIMD16<UInt8>.self),
                       src1.loadUnaligned(fromByteOffset: x * 4 + 32, as: SIMD16<UInt8>.self))
      let r3 = average(src0.loadUnaligned(fromByteOffset: x * 4 + 48, as: SIMD16<UInt8>.self),
                       src1.loadUnaligned(fromByteOffset: x * 4 + 48, as: SIMD16<UInt8>.self))
      let p01 = SIMD8<UInt32>(lowHalf: unsafeBitCast(r0, to: SIMD4<UInt32>.self), highHalf: unsafeBitCast(r1, to: SIMD4<UInt32>.self))
      let p23 = SIMD8<UInt32>(lowHalf: unsafeBitCast(r2, to: SIMD4<UInt32>.self), highHalf: unsafeBitCast(r3, to: SIMD4<UInt32>.self))
      let m01 = average(unsafeBitCast(p01.evenHalf, to: SIMD16<UInt8>.self), unsafeBitCast(p01.oddHalf, to: SIMD16<UInt8>.self))
      let m23 = average(unsafeBitCast(p23.evenHalf, to: SIMD16<UInt8>.self), unsafeBitCast(p23.oddHalf, to: SIMD16<UInt8>.self))
      let m = SIMD16<UInt16>(lowHalf: unsafeBitCast(m01, to: SIMD8<UInt16>.self), highHalf: unsafeBitCast(m23, to: SIMD8<UInt16>.self))
      let mBG = m.evenHalf, mRA = m.oddHalf
      let (cu, cv) = chroma(r: mRA & low8, g: mBG &>> 8, b: mBG & low8)
      UnsafeMutableRawPointer(u + x / 2).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: cu), as: SIMD8<UInt8>.self)
      UnsafeMutableRawPointer(v + x / 2).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: cv), as: SIMD8<UInt8>.self)
      x += 16
    }
    // The remaining columns (all of them for the scalar kernel), two at a time; an odd
    // last column pairs with itself. One 32-bit load per pixel: B | G << 8 | R << 16.
    let p0 = src0.assumingMemoryBound(to: UInt32.self)
    let p1 = src1.assumingMemoryBound(to: UInt32.self)
    while x < width {
      let x1 = x + 1 < width ? x + 1 : x
      let q00 = Int(p0[x]), q01 = Int(p0[x1]), q10 = Int(p1[x]), q11 = Int(p1[x1])
      y0[x] = scalarLuma(q00)
      y0[x1] = scalarLuma(q01)
      y1[x] = scalarLuma(q10)
      y1[x1] = scalarLuma(q11)
      // The same rounding as the SIMD path: rows first, then columns, per channel byte.
      let top = averageBytes(q00, q10), bottom = averageBytes(q01, q11)
      let m = averageBytes(top, bottom)
      let mB = m & 0xFF, mG = (m >> 8) & 0xFF, mR = (m >> 16) & 0xFF
      u[x / 2] = UInt8(truncatingIfNeeded: (112 * mB - 74 * mG - 38 * mR + 32896) >> 8)
      v[x / 2] = UInt8(truncatingIfNeeded: (112 * mR - 94 * mG - 18 * mB + 32896) >> 8)
      x += 2
    }
  }

  /// `(a + b + 1) >> 1` for each of the four bytes of two packed pixels at once.
  @inline(__always)
  static func averageBytes(_ a: Int, _ b: Int) -> Int {
    (a | b) - (((a ^ b) >> 1) & 0x7F7F_7F7F)
  }

  /// Rounding-up byte average, `(a + b + 1) >> 1` per lane, written so that LLVM
  /// emits one `pavgb`.
  @inline(__always)
  static func average(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> {
    (a | b) &- ((a ^ b) &>> 1)
  }

  @inline(__always)
  static func luma(r: SIMD16<UInt16>, g: SIMD16<UInt16>, b: SIMD16<UInt16>) -> SIMD16<UInt16> {
    // 0x1080 = 16 << 8 (offset) + 128 (rounding).
    (r &* 66 &+ g &* 129 &+ b &* 25 &+ 0x1080) &>> 8
  }

  @inline(__always)
  static func chroma(r: SIMD8<UInt16>, g: SIMD8<UInt16>, b: SIMD8<UInt16>) -> (SIMD8<UInt16>, SIMD8<UInt16>) {
    // 32896 = 128 << 8 (offset) + 128 (rounding) keeps the sums unsigned.
    let u = (b &* 112 &+ 32896 &- g &* 74 &- r &* 38) &>> 8
    let v = (r &* 112 &+ 32896 &- g &* 94 &- b &* 18) &>> 8
    return (u, v)
  }

  @inline(__always)
  static func scalarLuma(_ pixel: Int) -> UInt8 {
    let b = pixel & 0xFF, g = (pixel >> 8) & 0xFF, r = (pixel >> 16) & 0xFF
    return UInt8(truncatingIfNeeded: (66 * r + 129 * g + 25 * b + 0x1080) >> 8)
  }
}
