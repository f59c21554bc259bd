// Compiled only when the build defines CAMFX_AVX2 (`make release` and `make bench-peers`
// on a CPU with AVX2, see the Makefile): Swift has no `#if` for CPU features, and the
// intrinsics below crash the compiler when the target CPU lacks AVX2.
#if CAMFX_AVX2 && arch(x86_64)
import _Builtin_intrinsics.intel

extension PlaneScaler {
  /// One row of 2×2 means, `(a + b + c + d + 2) >> 2` exactly, as the portable loop:
  /// `pmaddubsw` against ones adds the two bytes of each source pair into a 16-bit lane
  /// (LLVM does not form it from Swift SIMD code), the two rows' sums are added, and the
  /// result packed back to bytes. Returns how many destination samples (1 channel) or
  /// pixels (4 channels) it wrote; the caller finishes the row.
  static func halveRowAVX2(
    _ top: UnsafeRawPointer, _ bottom: UnsafeRawPointer, into out: UnsafeMutableRawPointer, width: Int, channels: Int
  ) -> Int {
    channels == 4
      ? halveRowAVX2(top, bottom, into: out, width: width, pixelBytes: 4)
      : halveRowAVX2(top, bottom, into: out, width: width, pixelBytes: 1)
  }

  @inline(__always)
  private static func halveRowAVX2(
    _ top: UnsafeRawPointer, _ bottom: UnsafeRawPointer, into out: UnsafeMutableRawPointer, width: Int, pixelBytes: Int
  ) -> Int {
    let ones = _mm256_set1_epi8(1)
    let two = _mm256_set1_epi16(2)
    // BGRA: within each 128-bit half, the bytes of pixels 0, 1 and 2, 3 side by side per
    // channel (B0 B1 G0 G1 R0 R1 A0 A1 B2 B3 …), so that the byte pairs are the pixel pairs.
    let pairs = _mm256_setr_epi8(
      0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15,
      0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15)
    @inline(__always) func sums(_ offset: Int) -> __m256i {
      var t = top.loadUnaligned(fromByteOffset: offset, as: __m256i.self)
      var b = bottom.loadUnaligned(fromByteOffset: offset, as: __m256i.self)
      if pixelBytes == 4 {
        t = _mm256_shuffle_epi8(t, pairs)
        b = _mm256_shuffle_epi8(b, pairs)
      }
      let s = _mm256_add_epi16(_mm256_maddubs_epi16(t, ones), _mm256_maddubs_epi16(b, ones))
      return _mm256_srli_epi16(_mm256_add_epi16(s, two), 2)
    }
    // 32 destination bytes per step from 64 source bytes of each row; `packuswb` works
    // within 128-bit halves, so the quadwords come out 0, 2, 1, 3.
    let step = 32 / pixelBytes
    var x = 0
    while x + step <= width {
      let o = x &* 2 &* pixelBytes
      let packed = _mm256_packus_epi16(sums(o), sums(o &+ 32))
      out.storeBytes(
        of: SIMD4(packed[0], packed[2], packed[1], packed[3]) as __m256i, toByteOffset: x &* pixelBytes, as: __m256i.self)
      x &+= step
    }
    return x
  }
}
#endif
