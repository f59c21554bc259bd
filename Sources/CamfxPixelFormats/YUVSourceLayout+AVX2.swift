// Compiled only when the build defines CAMFX_AVX2 (see the Makefile): Swift has no `#if`
// for CPU features, and the intrinsics below crash the compiler when the target CPU
// lacks AVX2.
#if CAMFX_AVX2 && arch(x86_64)
import _Builtin_intrinsics.intel

extension YUVSourceLayout {
  /// The low bytes of the 16-bit lanes of `a`, then of `b`: 32 bytes in memory order.
  /// `packuswb` works within 128-bit halves, so they come out in quadwords 0, 2, 1, 3,
  /// which `vpermq` puts back.
  @inline(__always)
  static func lowBytesInOrder(_ a: __m256i, _ b: __m256i) -> __m256i {
    let low = _mm256_set1_epi16(0x00FF)
    return YUVToBGRAAVX2.quadwords0213(_mm256_packus_epi16(_mm256_and_si256(a, low), _mm256_and_si256(b, low)))
  }

  /// The high bytes of the 16-bit lanes of `a`, then of `b`, in memory order (as
  /// `lowBytesInOrder`).
  @inline(__always)
  static func highBytesInOrder(_ a: __m256i, _ b: __m256i) -> __m256i {
    YUVToBGRAAVX2.quadwords0213(_mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8)))
  }

  /// `yuyvRowPair` for whole steps of 16 pixel pairs (64 bytes of each row): Y is the
  /// low byte of each 16-bit lane (`lowBytesInOrder`); U V the high bytes, packed, and
  /// the two rows averaged at once (`pavgb`: rounding up at .5, as the portable loop); then
  /// U and V are split the same way, into dwords the `vpermd` below puts back in order.
  /// Returns how many pairs it did.
  ///
  /// Two passes: the top row's Y, then the bottom row's Y with U and V, the top row
  /// read again from L1. One pass over both rows reads two streams from memory and
  /// writes four; a frame from memory converts faster with fewer at a time, as
  /// libswscale's `yuyvtoyuv420` takes them (measured in the README).
  @inline(__always)
  static func yuyvRowPairAVX2(
    top: UnsafeRawPointer, bottom: UnsafeRawPointer, pairs: Int,
    yTop: UnsafeMutablePointer<UInt8>, yBottom: UnsafeMutablePointer<UInt8>,
    u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>
  ) -> Int {
    let low = _mm256_set1_epi16(0x00FF)
    // After the packs: U of pairs 0-3, 8-11, V 0-3, 8-11, U 4-7, 12-15, V 4-7, 12-15.
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)
    var pair = 0
    while pair + 16 <= pairs {
      let o = pair &* 4
      let luma = lowBytesInOrder(
        top.loadUnaligned(fromByteOffset: o, as: __m256i.self), top.loadUnaligned(fromByteOffset: o &+ 32, as: __m256i.self))
      UnsafeMutableRawPointer(yTop + pair &* 2).storeBytes(of: luma, as: __m256i.self)
      pair &+= 16
    }
    pair = 0
    while pair + 16 <= pairs {
      let o = pair &* 4
      let t0 = top.loadUnaligned(fromByteOffset: o, as: __m256i.self)
      let t1 = top.loadUnaligned(fromByteOffset: o &+ 32, as: __m256i.self)
      let b0 = bottom.loadUnaligned(fromByteOffset: o, as: __m256i.self)
      let b1 = bottom.loadUnaligned(fromByteOffset: o &+ 32, as: __m256i.self)
      UnsafeMutableRawPointer(yBottom + pair &* 2).storeBytes(of: lowBytesInOrder(b0, b1), as: __m256i.self)
      let chroma = _mm256_avg_epu8(
        _mm256_packus_epi16(_mm256_srli_epi16(t0, 8), _mm256_srli_epi16(t1, 8)),
        _mm256_packus_epi16(_mm256_srli_epi16(b0, 8), _mm256_srli_epi16(b1, 8)))
      let split = _mm256_permutevar8x32_epi32(
        _mm256_packus_epi16(_mm256_and_si256(chroma, low), _mm256_srli_epi16(chroma, 8)), order)
      _mm256_storeu2_m128i(
        UnsafeMutableRawPointer(v + pair).assumingMemoryBound(to: __m128i.self),
        UnsafeMutableRawPointer(u + pair).assumingMemoryBound(to: __m128i.self), split)
      pair &+= 16
    }
    return pair
  }

  /// NV12's chroma row into U and V, 32 pairs (64 bytes) a step: U is the low byte of
  /// each 16-bit lane, V the high one. Returns how many pairs it did.
  @inline(__always)
  static func deinterleaveAVX2(
    _ line: UnsafeRawPointer, u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, pairs: Int
  ) -> Int {
    var x = 0
    while x + 32 <= pairs {
      let a = line.loadUnaligned(fromByteOffset: x &* 2, as: __m256i.self)
      let b = line.loadUnaligned(fromByteOffset: x &* 2 &+ 32, as: __m256i.self)
      UnsafeMutableRawPointer(u + x).storeBytes(of: lowBytesInOrder(a, b), as: __m256i.self)
      UnsafeMutableRawPointer(v + x).storeBytes(of: highBytesInOrder(a, b), as: __m256i.self)
      x &+= 32
    }
    return x
  }
}
#endif
