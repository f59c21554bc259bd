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
/// Each kernel works on 16 pixels (8 chroma pairs) per step with SIMD in 16-bit lanes
/// (`YUVToBGRAKernel`, bit-identical to the 32-bit formula of `bgra(y:cb:cr:)`), over
/// rows given as raw pointers and strides, and allocates nothing; the 4:2:0 formats
/// convert two rows per chroma row. `bgra(y:cb:cr:)` finishes each row, so the result
/// does not depend on width. Alpha is always 255.
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
