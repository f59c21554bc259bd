import CamfxCore

/// Converters from the pixel formats cameras deliver to the pipeline's BGRA.
///
/// YUV input is BT.601 *limited range* (Y in 16…235, Cb/Cr in 16…240), which is what
/// V4L2 webcams send for YUYV and NV12 (`V4L2_COLORSPACE_SMPTE170M` / `SRGB` with
/// `V4L2_QUANTIZATION_LIM_RANGE`). The arithmetic is fixed point with 6 fraction bits
/// and 14-to-16-bit coefficients (libyuv's kind), within ±1 of the floating-point formula:
///
///     R = 1.164383 (Y-16)                    + 1.596027 (Cr-128)
///     G = 1.164383 (Y-16) - 0.391762 (Cb-128) - 0.812968 (Cr-128)
///     B = 1.164383 (Y-16) + 2.017232 (Cb-128)
///
/// Each kernel works on 16 pixels (8 chroma pairs) per step with SIMD in 16-bit lanes
/// (`YUVToBGRAKernel`, bit-identical to its scalar formula `bgra(y:cb:cr:)`), over
/// rows given as raw pointers and strides, and allocates nothing; the portable 4:2:0
/// kernels convert two rows per chroma row. Builds that define `CAMFX_AVX2` (`make
/// release` on an AVX2 CPU) run 32 pixels per step of one row with AVX2 intrinsics first
/// (`YUVToBGRAAVX2`), bit-identical too. `bgra(y:cb:cr:)` finishes each row, so the result
/// does not depend on width. Alpha is always 255.
public enum PixelConverter {
  /// Converts one pixel; the scalar twin of the SIMD kernel (used for row tails).
  @inlinable @inline(__always)
  static func bgra(y: Int32, cb: Int32, cr: Int32) -> UInt32 {
    YUVToBGRAKernel.bgra(y: y, cb: cb, cr: cr)
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
