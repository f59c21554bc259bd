// Compiled only when the build defines CAMFX_AVX2 (`make release` and `make bench-peers`
// on a CPU with AVX2, see the Makefile): Swift has no `#if` for CPU features, and the
// intrinsics below crash the compiler when the target CPU lacks AVX2.
#if CAMFX_AVX2 && arch(x86_64)
import _Builtin_intrinsics.intel

extension BGRAToYUV420 {
  /// Converts `blocks` steps of 32 pixels of two rows with AVX2 intrinsics, bit-identical
  /// to the scalar formula (`Kernel.avx2`).
  ///
  /// The weighted sums are `pmaddubsw` (bytes times bytes, adjacent products added in
  /// 16 bits) and `pmaddwd` against ones (the two halves of each pixel added in 32
  /// bits), which LLVM does not form from Swift SIMD code:
  ///
  /// - luma: 129, G's weight, does not fit a signed byte, so the weights are the
  ///   unsigned operand and the pixel the signed one, offset by −128 (`pxor 0x80`):
  ///   the sum is `25 B + 129 G + 66 R − 128·220`, in −28 160…27 940, which the packs
  ///   to 16 bits keep exactly; adding `128·220 + 16·256 + 128` gives the scalar
  ///   numerator (4 224…60 324, unsigned), and `>> 8` the sample.
  /// - chroma: the weights (112, −74, −38 and −18, −94, 112) fit signed bytes, so the
  ///   2×2 means are the unsigned operand; every sum is within ±28 560.
  ///
  /// The pixels are loaded in 16-byte halves so that every vector holds pixels 0…3 and
  /// 8…11 (or 4…7 and 12…15, …): then the even/odd split of each pixel pair (`shufps`,
  /// within 128-bit halves) gives the 2×2 means in order, and a single `vpermd` or
  /// `vpermq` puts the packed bytes in memory order.
  @inline(__always)
  static func rowPairAVX2(
    _ src0: UnsafeRawPointer, _ src1: UnsafeRawPointer,
    y0: UnsafeMutablePointer<UInt8>, y1: UnsafeMutablePointer<UInt8>,
    u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, blocks: Int
  ) {
    let lumaWeights = _mm256_set1_epi32(0x0042_8119)  // 25, 129, 66, 0 (B, G, R, A)
    let uWeights = _mm256_set1_epi32(0x00DA_B670)  // 112, −74, −38, 0
    let vWeights = _mm256_set1_epi32(0x0070_A2EE)  // −18, −94, 112, 0
    let ones = _mm256_set1_epi16(1)
    let signFlip = _mm256_set1_epi8(-128)
    let lumaOffset = _mm256_set1_epi16(32384)  // 128·220 + 16·256 + 128
    let chromaOffset = _mm256_set1_epi16(Int16(bitPattern: 32896))  // 128·256 + 128
    let inOrder = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)

    /// Pixels 0…3 of `p + offset` low, 0…3 of `p + offset + 32` high.
    @inline(__always) func load(_ p: UnsafeRawPointer, _ offset: Int) -> __m256i {
      _mm256_loadu2_m128i(
        (p + (offset &+ 32)).assumingMemoryBound(to: __m128i.self), (p + offset).assumingMemoryBound(to: __m128i.self))
    }
    /// Eight weighted sums (one per 32-bit lane) of eight pixels or means.
    @inline(__always) func sums(_ unsignedBytes: __m256i, _ signedBytes: __m256i) -> __m256i {
      _mm256_madd_epi16(_mm256_maddubs_epi16(unsignedBytes, signedBytes), ones)
    }

    var i = 0
    while i < blocks {
      let o = i &* 128
      // Pixels 0…3 | 8…11, 4…7 | 12…15, 16…19 | 24…27, 20…23 | 28…31 of each row.
      let a0 = load(src0, o), a1 = load(src0, o &+ 16), a2 = load(src0, o &+ 64), a3 = load(src0, o &+ 80)
      let b0 = load(src1, o), b1 = load(src1, o &+ 16), b2 = load(src1, o &+ 64), b3 = load(src1, o &+ 80)
      @inline(__always) func luma(_ p0: __m256i, _ p1: __m256i, _ p2: __m256i, _ p3: __m256i) -> __m256i {
        // packssdw of (0…3 | 8…11, 4…7 | 12…15) is pixels 0…15 in order.
        let low = _mm256_packs_epi32(
          sums(lumaWeights, _mm256_xor_si256(p0, signFlip)), sums(lumaWeights, _mm256_xor_si256(p1, signFlip)))
        let high = _mm256_packs_epi32(
          sums(lumaWeights, _mm256_xor_si256(p2, signFlip)), sums(lumaWeights, _mm256_xor_si256(p3, signFlip)))
        let bytes = _mm256_packus_epi16(
          _mm256_srli_epi16(_mm256_add_epi16(low, lumaOffset), 8), _mm256_srli_epi16(_mm256_add_epi16(high, lumaOffset), 8))
        return SIMD4(bytes[0], bytes[2], bytes[1], bytes[3])  // vpermq
      }
      UnsafeMutableRawPointer(y0 + i &* 32).storeBytes(of: luma(a0, a1, a2, a3), as: __m256i.self)
      UnsafeMutableRawPointer(y1 + i &* 32).storeBytes(of: luma(b0, b1, b2, b3), as: __m256i.self)

      // The 2×2 means: rows first, then the even pixel of each pair with the odd one.
      @inline(__always) func means(_ p: __m256i, _ q: __m256i, _ r: __m256i, _ s: __m256i) -> __m256i {
        // Pixels 0…3 | 8…11 and 4…7 | 12…15 (of the two rows averaged): shufps (written as
        // Swift SIMD shuffles: the intrinsic is a C macro) takes pixels 0, 2, 4, 6 | 8, 10, 12, 14 (0x88) and 1, 3, 5, 7 | 9, 11, 13, 15 (0xDD).
        let a = unsafeBitCast(_mm256_avg_epu8(p, r), to: SIMD8<UInt32>.self)
        let b = unsafeBitCast(_mm256_avg_epu8(q, s), to: SIMD8<UInt32>.self)
        let even = SIMD8(a[0], a[2], b[0], b[2], a[4], a[6], b[4], b[6])
        let odd = SIMD8(a[1], a[3], b[1], b[3], a[5], a[7], b[5], b[7])
        return _mm256_avg_epu8(unsafeBitCast(even, to: __m256i.self), unsafeBitCast(odd, to: __m256i.self))
      }
      let m0 = means(a0, a1, b0, b1), m1 = means(a2, a3, b2, b3)  // means 0…7, 8…15
      let uWords = _mm256_srli_epi16(
        _mm256_add_epi16(_mm256_packs_epi32(sums(m0, uWeights), sums(m1, uWeights)), chromaOffset), 8)
      let vWords = _mm256_srli_epi16(
        _mm256_add_epi16(_mm256_packs_epi32(sums(m0, vWeights), sums(m1, vWeights)), chromaOffset), 8)
      // Dwords U 0…3, U 8…11, V 0…3, V 8…11 | U 4…7, U 12…15, V 4…7, V 12…15.
      let uv = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(uWords, vWords), inOrder)
      _mm256_storeu2_m128i(
        UnsafeMutableRawPointer(v + i &* 16).assumingMemoryBound(to: __m128i.self),
        UnsafeMutableRawPointer(u + i &* 16).assumingMemoryBound(to: __m128i.self), uv)
      i &+= 1
    }
  }
}
#endif
