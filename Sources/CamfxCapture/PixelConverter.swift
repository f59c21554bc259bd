import CamfxCore

/// Converters from the pixel formats cameras deliver to the pipeline's BGRA.
///
/// YUV input is BT.601 *limited range* (Y in 16…235, Cb/Cr in 16…240), which is what
/// V4L2 webcams send for YUYV and NV12 (`V4L2_COLORSPACE_SMPTE170M` / `SRGB` with
/// `V4L2_QUANTIZATION_LIM_RANGE`). The arithmetic is 16-bit fixed point, within ±1 of
/// the floating-point formula:
///
///     R = 1.164383 (Y-16)                    + 1.596027 (Cr-128)
///     G = 1.164383 (Y-16) - 0.391762 (Cb-128) - 0.812968 (Cr-128)
///     B = 1.164383 (Y-16) + 2.017232 (Cb-128)
///
/// Each kernel works on 16 pixels (8 chroma pairs) per step with SIMD, over rows
/// given as raw pointers and strides, and allocates nothing; a scalar loop using the
/// same integer formula finishes each row, so the result does not depend on width.
/// Alpha is always 255.
public enum PixelConverter {
  // Coefficients scaled by 2^16.
  @usableFromInline static let yScale: Int32 = 76309
  @usableFromInline static let crToR: Int32 = 104597
  @usableFromInline static let cbToG: Int32 = 25675
  @usableFromInline static let crToG: Int32 = 53279
  @usableFromInline static let cbToB: Int32 = 132201
  @usableFromInline static let rounding: Int32 = 1 << 15

  /// Converts one pixel; the scalar twin of the SIMD kernel (used for row tails).
  @inlinable @inline(__always)
  static func bgra(y: Int32, cb: Int32, cr: Int32) -> UInt32 {
    let yy = (y - 16) &* yScale &+ rounding
    let u = cb - 128, v = cr - 128
    let r = min(max((yy &+ v &* crToR) >> 16, 0), 255)
    let g = min(max((yy &- u &* cbToG &- v &* crToG) >> 16, 0), 255)
    let b = min(max((yy &+ u &* cbToB) >> 16, 0), 255)
    return UInt32(truncatingIfNeeded: b | g << 8 | r << 16) | 0xFF00_0000
  }

  /// Converts 8 pixel pairs sharing 8 chroma samples: lane `i` of the result holds
  /// pixel `2i` in its low 32 bits and pixel `2i+1` in its high 32 bits, so storing it
  /// little-endian writes 16 BGRA pixels in order.
  @inlinable @inline(__always)
  static func bgra(
    y0: SIMD8<Int32>, y1: SIMD8<Int32>, cb: SIMD8<Int32>, cr: SIMD8<Int32>
  ) -> SIMD8<UInt64> {
    let u = cb &- 128, v = cr &- 128
    let rOffset = v &* crToR
    let gOffset = (u &* cbToG) &+ (v &* crToG)
    let bOffset = u &* cbToB
    let yy0 = (y0 &- 16) &* yScale &+ rounding
    let yy1 = (y1 &- 16) &* yScale &+ rounding
    let r0 = clampToByte((yy0 &+ rOffset) &>> 16)
    let g0 = clampToByte((yy0 &- gOffset) &>> 16)
    let b0 = clampToByte((yy0 &+ bOffset) &>> 16)
    let r1 = clampToByte((yy1 &+ rOffset) &>> 16)
    let g1 = clampToByte((yy1 &- gOffset) &>> 16)
    let b1 = clampToByte((yy1 &+ bOffset) &>> 16)
    let alpha = SIMD8<Int32>(repeating: -16_777_216)  // 0xFF000000
    let p0 = SIMD8<UInt32>(truncatingIfNeeded: b0 | g0 &<< 8 | r0 &<< 16 | alpha)
    let p1 = SIMD8<UInt32>(truncatingIfNeeded: b1 | g1 &<< 8 | r1 &<< 16 | alpha)
    return SIMD8<UInt64>(truncatingIfNeeded: p0) | SIMD8<UInt64>(truncatingIfNeeded: p1) &<< 32
  }

  /// Clamps every lane to 0…255 with shifts and masks (`clamped(lowerBound:upperBound:)`
  /// is not inlined by the optimizer and costs a call per vector).
  @inlinable @inline(__always)
  static func clampToByte(_ x: SIMD8<Int32>) -> SIMD8<Int32> {
    let nonNegative = x & ~(x &>> 31)  // negative lanes -> 0
    return (nonNegative | ((255 &- x) &>> 31)) & 255  // lanes above 255 -> all ones -> 255
  }

  /// Calls `body(row, destinationRowPointer)` for every row of `destination`.
  @inlinable @inline(__always)
  static func forEachRow(
    of destination: PixelBuffer, _ body: (Int, UnsafeMutableRawPointer) -> Void
  ) {
    let stride = destination.bytesPerRow
    destination.withUnsafeMutableBytes { base in
      for row in 0..<destination.height { body(row, base + row * stride) }
    }
  }
}
