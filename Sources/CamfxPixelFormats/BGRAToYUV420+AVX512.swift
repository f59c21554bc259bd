// Compiled only when the build defines CAMFX_AVX512 (`make release` and `make bench-peers`
// on a CPU with AVX-512 BW, see the Makefile), for the same reason as the AVX2 file.
#if CAMFX_AVX512 && arch(x86_64)
import _Builtin_intrinsics.intel

extension BGRAToYUV420 {
  /// Converts `blocks` steps of 64 pixels of two rows with AVX-512 (BW) intrinsics,
  /// bit-identical to the scalar formula (`Kernel.avx512`).
  ///
  /// The sums are `rowPairAVX2`'s (`pmaddubsw`, `pmaddwd`, the same offsets) at twice
  /// the width, on plain 64-byte loads. The packs work within 128-bit lanes, so the
  /// bytes come out in lane order and one `vpermd` (Y: 4-pixel groups) or `vpermw`
  /// (U, V: 2-sample groups) with a constant index puts them in memory order.
  @inline(__always)
  static func rowPairAVX512(
    _ src0: UnsafeRawPointer, _ src1: UnsafeRawPointer,
    y0: UnsafeMutablePointer<UInt8>, y1: UnsafeMutablePointer<UInt8>,
    u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, blocks: Int
  ) {
    let lumaWeights = _mm512_set1_epi32(0x0042_8119)  // 25, 129, 66, 0 (B, G, R, A)
    let uWeights = _mm512_set1_epi32(0x00DA_B670)  // 112, −74, −38, 0
    let vWeights = _mm512_set1_epi32(0x0070_A2EE)  // −18, −94, 112, 0
    let ones = _mm512_set1_epi16(1)
    let signFlip = _mm512_set1_epi8(-128)
    let lumaOffset = _mm512_set1_epi16(32384)  // 128·220 + 16·256 + 128
    let chromaOffset = _mm512_set1_epi16(Int16(bitPattern: 32896))  // 128·256 + 128
    // After the packs, lane k holds the 4-pixel groups k, 4 + k, 8 + k, 12 + k (Y), and
    // the sample pairs k, 4 + k, 8 + k, 12 + k of U, then of V.
    let lumaOrder = unsafeBitCast(
      SIMD16<UInt32>(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), to: __m512i.self)
    let chromaOrder = unsafeBitCast(
      SIMD32<UInt16>(
        0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27,
        4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31), to: __m512i.self)

    @inline(__always) func sums(_ unsignedBytes: __m512i, _ signedBytes: __m512i) -> __m512i {
      _mm512_madd_epi16(_mm512_maddubs_epi16(unsignedBytes, signedBytes), ones)
    }
    @inline(__always) func luma(_ p0: __m512i, _ p1: __m512i, _ p2: __m512i, _ p3: __m512i) -> __m512i {
      let low = _mm512_packs_epi32(
        sums(lumaWeights, _mm512_xor_si512(p0, signFlip)), sums(lumaWeights, _mm512_xor_si512(p1, signFlip)))
      let high = _mm512_packs_epi32(
        sums(lumaWeights, _mm512_xor_si512(p2, signFlip)), sums(lumaWeights, _mm512_xor_si512(p3, signFlip)))
      let bytes = _mm512_packus_epi16(
        _mm512_srli_epi16(_mm512_add_epi16(low, lumaOffset), 8), _mm512_srli_epi16(_mm512_add_epi16(high, lumaOffset), 8))
      return _mm512_permutexvar_epi32(lumaOrder, bytes)
    }
    @inline(__always) func high(_ x: __m512i) -> __m256i { SIMD4(x[4], x[5], x[6], x[7]) }
    /// Means 2k, 2k+1, 8+2k, 9+2k in lane k, from 32 pixels of the two rows.
    @inline(__always) func means(_ p: __m512i, _ q: __m512i, _ r: __m512i, _ s: __m512i) -> __m512i {
      let a = unsafeBitCast(_mm512_avg_epu8(p, r), to: SIMD16<UInt32>.self)
      let b = unsafeBitCast(_mm512_avg_epu8(q, s), to: SIMD16<UInt32>.self)
      let even = SIMD16(a[0], a[2], b[0], b[2], a[4], a[6], b[4], b[6], a[8], a[10], b[8], b[10], a[12], a[14], b[12], b[14])
      let odd = SIMD16(a[1], a[3], b[1], b[3], a[5], a[7], b[5], b[7], a[9], a[11], b[9], b[11], a[13], a[15], b[13], b[15])
      return _mm512_avg_epu8(unsafeBitCast(even, to: __m512i.self), unsafeBitCast(odd, to: __m512i.self))
    }

    var i = 0
    while i < blocks {
      let o = i &* 256
      let a0 = src0.loadUnaligned(fromByteOffset: o, as: __m512i.self)
      let a1 = src0.loadUnaligned(fromByteOffset: o &+ 64, as: __m512i.self)
      let a2 = src0.loadUnaligned(fromByteOffset: o &+ 128, as: __m512i.self)
      let a3 = src0.loadUnaligned(fromByteOffset: o &+ 192, as: __m512i.self)
      let b0 = src1.loadUnaligned(fromByteOffset: o, as: __m512i.self)
      let b1 = src1.loadUnaligned(fromByteOffset: o &+ 64, as: __m512i.self)
      let b2 = src1.loadUnaligned(fromByteOffset: o &+ 128, as: __m512i.self)
      let b3 = src1.loadUnaligned(fromByteOffset: o &+ 192, as: __m512i.self)
      UnsafeMutableRawPointer(y0 + i &* 64).storeBytes(of: luma(a0, a1, a2, a3), as: __m512i.self)
      UnsafeMutableRawPointer(y1 + i &* 64).storeBytes(of: luma(b0, b1, b2, b3), as: __m512i.self)
      let m0 = means(a0, a1, b0, b1), m1 = means(a2, a3, b2, b3)
      let uWords = _mm512_srli_epi16(
        _mm512_add_epi16(_mm512_packs_epi32(sums(m0, uWeights), sums(m1, uWeights)), chromaOffset), 8)
      let vWords = _mm512_srli_epi16(
        _mm512_add_epi16(_mm512_packs_epi32(sums(m0, vWeights), sums(m1, vWeights)), chromaOffset), 8)
      let uv = _mm512_permutexvar_epi16(chromaOrder, _mm512_packus_epi16(uWords, vWords))
      UnsafeMutableRawPointer(u + i &* 32).storeBytes(of: SIMD4(uv[0], uv[1], uv[2], uv[3]), as: __m256i.self)
      UnsafeMutableRawPointer(v + i &* 32).storeBytes(of: high(uv), as: __m256i.self)
      i &+= 1
    }
  }
}
#endif
