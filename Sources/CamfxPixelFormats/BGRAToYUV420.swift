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
/// The inner loop handles 16 pixels of both rows per step in 16-bit SIMD lanes over
/// the pixels as they lie in memory, with no de-interleaving: even bytes (B, R) and
/// odd bytes (G, A) are weighted in place and each pixel's two 16-bit halves added in
/// its 32-bit lane (every intermediate fits: Y's sum is at most 60 324, U's and V's,
/// offset by 32 896, stay in 4 336...61 456). It needs only SSE2 (and uses AVX2 or
/// AVX-512 registers when the build targets them); the remaining columns go through
/// the scalar formula. Builds that define `CAMFX_AVX2` (`make release` on an AVX2 CPU)
/// run 32 pixels per step with AVX2 intrinsics first (`Kernel.avx2`, in
/// `BGRAToYUV420+AVX2.swift`), bit-identical. Odd widths and heights are
/// accepted: the last column or row stands for its missing neighbour. Nothing is
/// allocated.
public enum BGRAToYUV420 {
  /// Which loop does the work. Both give bit-identical planes (a test checks it).
  public enum Kernel: Sendable, CaseIterable {
    /// 16 pixels per step in SIMD lanes: the fast path, for optimised builds.
    case simd
    /// One 2×2 block per step in plain integers.
    case scalar
    #if CAMFX_AVX2 && arch(x86_64)
      /// 32 pixels per step with AVX2 intrinsics (`BGRAToYUV420+AVX2.swift`); only in
      /// builds that define `CAMFX_AVX2` for a CPU with AVX2 (`make release`).
      case avx2
    #endif
    #if CAMFX_AVX512 && arch(x86_64)
      /// 64 pixels per step with AVX-512 BW intrinsics (`BGRAToYUV420+AVX512.swift`),
      /// the rest as `.avx2`; only in builds that define `CAMFX_AVX512` (`make release`
      /// on a CPU with AVX-512 BW).
      case avx512
    #endif

    /// The widest of `.avx512`, `.avx2` and `.simd` the release build has. Debug builds use
    /// `.scalar`: unoptimised Swift runs generic SIMD code lane by lane through witness
    /// tables, about 10× slower than the scalar loop (120 ms instead of 9 ms for a
    /// 640×360 frame).
    public static var `default`: Kernel {
      #if DEBUG
        .scalar
      #elseif CAMFX_AVX512 && arch(x86_64)
        .avx512
      #elseif CAMFX_AVX2 && arch(x86_64)
        .avx2
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
        u: u + chromaRow * uStride, v: v + chromaRow * vStride, kernel: kernel)
      row += 2
    }
  }

  /// Converts the visible pixels of `buffer` into `planes` (same size).
  public static func convert(_ buffer: PixelBuffer, into planes: YUV420Planes, kernel: Kernel = .default) {
    convert(buffer, into: planes.picture, kernel: kernel)
  }

  /// Converts the visible pixels of `buffer` into `picture`'s planes (same size).
  public static func convert(_ buffer: PixelBuffer, into picture: YUV420Picture, kernel: Kernel = .default) {
    precondition(buffer.width == picture.width && buffer.height == picture.height, "picture size differs from buffer")
    buffer.withUnsafeBytes { src in
      convert(
        source: src, sourceBytesPerRow: buffer.bytesPerRow, width: buffer.width, height: buffer.height,
        y: picture.y, yStride: picture.yStride, u: picture.u, uStride: picture.uStride,
        v: picture.v, vStride: picture.vStride, kernel: kernel)
    }
  }

  @inline(__always)
  static func convertRowPair(
    _ src0: UnsafeRawPointer, _ src1: UnsafeRawPointer, width: Int,
    y0: UnsafeMutablePointer<UInt8>, y1: UnsafeMutablePointer<UInt8>,
    u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, kernel: Kernel
  ) {
    var x = 0
    #if CAMFX_AVX512 && arch(x86_64)
      if kernel == .avx512 {
        rowPairAVX512(src0, src1, y0: y0, y1: y1, u: u, v: v, blocks: width / 64)
        x = (width / 64) * 64
      }
    #endif
    #if CAMFX_AVX2 && arch(x86_64)
      if kernel != .scalar && kernel != .simd {
        // `.avx2`, or what is left after `.avx512`'s 64-pixel steps (at most 63 columns).
        let blocks = (width - x) / 32
        rowPairAVX2(
          src0 + x * 4, src1 + x * 4, y0: y0 + x, y1: y1 + x, u: u + x / 2, v: v + x / 2, blocks: blocks)
        x += blocks * 32
      }
    #endif
    let simd = kernel != .scalar
    // 16 pixels (64 bytes) per row and step: 16 Y per row, 8 U and 8 V.
    while simd && x &+ 16 <= width {
      let a0 = src0.loadUnaligned(fromByteOffset: x &* 4, as: SIMD16<UInt16>.self)
      let a1 = src0.loadUnaligned(fromByteOffset: x &* 4 &+ 32, as: SIMD16<UInt16>.self)
      let b0 = src1.loadUnaligned(fromByteOffset: x &* 4, as: SIMD16<UInt16>.self)
      let b1 = src1.loadUnaligned(fromByteOffset: x &* 4 &+ 32, as: SIMD16<UInt16>.self)
      UnsafeMutableRawPointer(y0 + x).storeBytes(of: lumaBytes(luma(a0), luma(a1)), as: SIMD16<UInt8>.self)
      UnsafeMutableRawPointer(y1 + x).storeBytes(of: lumaBytes(luma(b0), luma(b1)), as: SIMD16<UInt8>.self)
      // Chroma: byte averages of the two rows, then of the even pixels with the odd
      // ones: the eight 2×2 means in BGRA order, one per 32-bit lane.
      let r0 = unsafeBitCast(average(a0, b0), to: SIMD8<UInt32>.self)
      let r1 = unsafeBitCast(average(a1, b1), to: SIMD8<UInt32>.self)
      let even = SIMD8<UInt32>(r0[0], r0[2], r0[4], r0[6], r1[0], r1[2], r1[4], r1[6])
      let odd = SIMD8<UInt32>(r0[1], r0[3], r0[5], r0[7], r1[1], r1[3], r1[5], r1[7])
      let means = average(unsafeBitCast(even, to: SIMD16<UInt16>.self), unsafeBitCast(odd, to: SIMD16<UInt16>.self))
      let u8 = secondBytes(chromaU(means)), v8 = secondBytes(chromaV(means))
      UnsafeMutableRawPointer(u + x / 2).storeBytes(of: u8, as: SIMD8<UInt8>.self)
      UnsafeMutableRawPointer(v + x / 2).storeBytes(of: v8, as: SIMD8<UInt8>.self)
      x &+= 16
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

  /// Rounding-up byte average, `(a + b + 1) >> 1` per byte (`pavgb`).
  @inline(__always)
  static func average(_ a: SIMD16<UInt16>, _ b: SIMD16<UInt16>) -> SIMD16<UInt16> {
    // In two 16-byte halves: byte-wise operators on SIMD32<UInt8> are scalarized.
    let x = unsafeBitCast(a, to: (SIMD16<UInt8>, SIMD16<UInt8>).self)
    let y = unsafeBitCast(b, to: (SIMD16<UInt8>, SIMD16<UInt8>).self)
    return unsafeBitCast((average(x.0, y.0), average(x.1, y.1)), to: SIMD16<UInt16>.self)
  }

  /// Written lane by lane as the widened sum: the form LLVM matches to `pavgb` at any
  /// register width (the bitwise identity `(a | b) − ((a ^ b) >> 1)` is matched only
  /// in 128-bit registers, and these get merged into 256-bit ones).
  @inline(__always)
  static func average(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> {
    @inline(__always) func lane(_ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: (UInt16(a[i]) &+ UInt16(b[i]) &+ 1) &>> 1) }
    return SIMD16(lane(0), lane(1), lane(2), lane(3), lane(4), lane(5), lane(6), lane(7), lane(8), lane(9), lane(10), lane(11), lane(12), lane(13), lane(14), lane(15))
  }

  /// Luma of eight pixels (as 16-bit lanes: B | G << 8, R | A << 8), as byte 1 of each
  /// 32-bit lane. The weights of B and R multiply the even bytes, G's the odd ones, in
  /// 16-bit lanes (every partial sum stays below 65536); the two halves of each pixel's
  /// 32-bit lane are then added, with 16 << 8 (offset) + 128 (rounding).
  @inline(__always)
  static func luma(_ v: SIMD16<UInt16>) -> SIMD8<UInt32> {
    let even = SIMD16<UInt16>(25, 66, 25, 66, 25, 66, 25, 66, 25, 66, 25, 66, 25, 66, 25, 66)
    let odd = SIMD16<UInt16>(129, 0, 129, 0, 129, 0, 129, 0, 129, 0, 129, 0, 129, 0, 129, 0)
    let sums = unsafeBitCast((v & 0x00FF) &* even &+ (v &>> 8) &* odd, to: SIMD8<UInt32>.self)
    return sums &+ (sums &>> 16) &+ 0x1080
  }

  /// Byte 1 of each 32-bit lane of two luma vectors (sixteen Y samples), shifted and
  /// masked first so that the narrowing is a plain truncation: one `vpmovdb` with
  /// AVX-512, two packs on a baseline x86-64 build (which has no byte shuffle).
  @inline(__always)
  static func lumaBytes(_ first: SIMD8<UInt32>, _ second: SIMD8<UInt32>) -> SIMD16<UInt8> {
    let a = (first &>> 8) & 0xFF, b = (second &>> 8) & 0xFF
    @inline(__always) func byte(_ x: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: x) }
    return SIMD16(
      byte(a[0]), byte(a[1]), byte(a[2]), byte(a[3]), byte(a[4]), byte(a[5]), byte(a[6]), byte(a[7]),
      byte(b[0]), byte(b[1]), byte(b[2]), byte(b[3]), byte(b[4]), byte(b[5]), byte(b[6]), byte(b[7]))
  }

  /// U of eight 2×2 means (BGRA, one per 32-bit lane) in byte 1 of each lane: the
  /// weights of B and R on the even bytes, G's on the odd ones, in 16-bit lanes with
  /// the negative weights wrapping (the final sum, offset by 32 896 = 128 << 8 + 128,
  /// is in 4 336...61 456, so the wrapped arithmetic gives it exactly).
  @inline(__always)
  static func chromaU(_ m: SIMD16<UInt16>) -> SIMD8<UInt32> {
    let minus38 = UInt16(bitPattern: -38), minus74 = UInt16(bitPattern: -74)
    let even = SIMD16<UInt16>(
      112, minus38, 112, minus38, 112, minus38, 112, minus38, 112, minus38, 112, minus38, 112, minus38, 112, minus38)
    let odd = SIMD16<UInt16>(minus74, 0, minus74, 0, minus74, 0, minus74, 0, minus74, 0, minus74, 0, minus74, 0, minus74, 0)
    let sums = unsafeBitCast((m & 0x00FF) &* even &+ (m &>> 8) &* odd, to: SIMD8<UInt32>.self)
    return sums &+ (sums &>> 16) &+ 32896
  }

  /// V of eight 2×2 means, like `chromaU`.
  @inline(__always)
  static func chromaV(_ m: SIMD16<UInt16>) -> SIMD8<UInt32> {
    let minus18 = UInt16(bitPattern: -18), minus94 = UInt16(bitPattern: -94)
    let even = SIMD16<UInt16>(
      minus18, 112, minus18, 112, minus18, 112, minus18, 112, minus18, 112, minus18, 112, minus18, 112, minus18, 112)
    let odd = SIMD16<UInt16>(minus94, 0, minus94, 0, minus94, 0, minus94, 0, minus94, 0, minus94, 0, minus94, 0, minus94, 0)
    let sums = unsafeBitCast((m & 0x00FF) &* even &+ (m &>> 8) &* odd, to: SIMD8<UInt32>.self)
    return sums &+ (sums &>> 16) &+ 32896
  }

  /// Byte 1 of each 32-bit lane (as `lumaBytes`).
  @inline(__always)
  static func secondBytes(_ lanes: SIMD8<UInt32>) -> SIMD8<UInt8> {
    let a = (lanes &>> 8) & 0xFF
    @inline(__always) func byte(_ x: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: x) }
    return SIMD8(byte(a[0]), byte(a[1]), byte(a[2]), byte(a[3]), byte(a[4]), byte(a[5]), byte(a[6]), byte(a[7]))
  }

  @inline(__always)
  static func scalarLuma(_ pixel: Int) -> UInt8 {
    let b = pixel & 0xFF, g = (pixel >> 8) & 0xFF, r = (pixel >> 16) & 0xFF
    return UInt8(truncatingIfNeeded: (66 * r + 129 * g + 25 * b + 0x1080) >> 8)
  }
}
