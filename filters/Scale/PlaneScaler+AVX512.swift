// Compiled only when the build defines CAMFX_AVX512 (`make release` and `make bench-peers`
// on a CPU with AVX-512 BW, see the Makefile), for the same reason as the AVX2 file.
#if CAMFX_AVX512 && arch(x86_64)
import _Builtin_intrinsics.intel

extension PlaneScaler {
  /// `halveRowAVX2` at twice the width: 64 destination bytes per step. Returns how many
  /// destination samples or pixels it wrote.
  static func halveRowAVX512(
    _ top: UnsafeRawPointer, _ bottom: UnsafeRawPointer, into out: UnsafeMutableRawPointer, width: Int, channels: Int
  ) -> Int {
    channels == 4
      ? halveRowAVX512(top, bottom, into: out, width: width, pixelBytes: 4)
      : halveRowAVX512(top, bottom, into: out, width: width, pixelBytes: 1)
  }

  @inline(__always)
  private static func halveRowAVX512(
    _ top: UnsafeRawPointer, _ bottom: UnsafeRawPointer, into out: UnsafeMutableRawPointer, width: Int, pixelBytes: Int
  ) -> Int {
    let ones = _mm512_set1_epi8(1)
    let two = _mm512_set1_epi16(2)
    let pairs = unsafeBitCast(
      SIMD64<UInt8>(
        0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15,
        0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15),
      to: __m512i.self)
    // `packuswb` packs within 128-bit lanes: quadword 2k is lane k of the first input,
    // 2k + 1 lane k of the second.
    let inOrder = unsafeBitCast(SIMD8<UInt64>(0, 2, 4, 6, 1, 3, 5, 7), to: __m512i.self)
    @inline(__always) func sums(_ offset: Int) -> __m512i {
      var t = top.loadUnaligned(fromByteOffset: offset, as: __m512i.self)
      var b = bottom.loadUnaligned(fromByteOffset: offset, as: __m512i.self)
      if pixelBytes == 4 {
        t = _mm512_shuffle_epi8(t, pairs)
        b = _mm512_shuffle_epi8(b, pairs)
      }
      let s = _mm512_add_epi16(_mm512_maddubs_epi16(t, ones), _mm512_maddubs_epi16(b, ones))
      return _mm512_srli_epi16(_mm512_add_epi16(s, two), 2)
    }
    let step = 64 / pixelBytes
    var x = 0
    while x + step <= width {
      let o = x &* 2 &* pixelBytes
      let packed = _mm512_permutexvar_epi64(inOrder, _mm512_packus_epi16(sums(o), sums(o &+ 64)))
      out.storeBytes(of: packed, toByteOffset: x &* pixelBytes, as: __m512i.self)
      x &+= step
    }
    return x
  }
}
#endif
