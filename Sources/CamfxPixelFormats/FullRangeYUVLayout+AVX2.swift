// Compiled only when the build defines CAMFX_AVX2 (see the Makefile): Swift has no `#if`
// for CPU features, and the intrinsics below crash the compiler when the target CPU
// lacks AVX2.
#if CAMFX_AVX2 && arch(x86_64)
import _Builtin_intrinsics.intel

extension RangeMap {
  /// Maps 32 samples a step (the rounded-up mean of `top` and `bottom` when `bottom` is
  /// given: `pavgb`), in 16-bit lanes: the bytes are widened by interleaving with zero
  /// within each half, mapped, and packed back (`packuswb` undoes the interleave).
  /// Returns how many samples it did; the caller finishes the row.
  @inline(__always)
  func applyAVX2(
    _ top: UnsafePointer<UInt8>, _ bottom: UnsafePointer<UInt8>?, to destination: UnsafeMutablePointer<UInt8>, count: Int
  ) -> Int {
    let zero = _mm256_setzero_si256(), one = _mm256_set1_epi16(1)
    let m = _mm256_set1_epi16(Int16(bitPattern: multiplier)), o = _mm256_set1_epi16(Int16(bitPattern: offset))
    @inline(__always) func map(_ x: __m256i) -> __m256i {
      let t = _mm256_add_epi16(_mm256_mullo_epi16(x, m), o)
      return _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(t, one), _mm256_srli_epi16(t, 8)), 8)
    }
    var x = 0
    while x + 32 <= count {
      var v = UnsafeRawPointer(top + x).loadUnaligned(as: __m256i.self)
      if let bottom { v = _mm256_avg_epu8(v, UnsafeRawPointer(bottom + x).loadUnaligned(as: __m256i.self)) }
      let mapped = _mm256_packus_epi16(map(_mm256_unpacklo_epi8(v, zero)), map(_mm256_unpackhi_epi8(v, zero)))
      UnsafeMutableRawPointer(destination + x).storeBytes(of: mapped, as: __m256i.self)
      x += 32
    }
    return x
  }
}
#endif
