// Compiled only when the build defines CAMFX_AVX512 (`make release` and `make bench-peers`
// on a CPU with AVX-512 BW, see the Makefile), for the same reason as the AVX2 file.
#if CAMFX_AVX512 && arch(x86_64)
import _Builtin_intrinsics.intel

/// The YUV → BGRA rows with AVX-512 (BW) intrinsics: 64 pixels per step (YUYV: in two
/// 512-bit halves), bit-identical to `YUVToBGRAKernel.bgra(y:cb:cr:)`.
///
/// The arithmetic and the clamps are those of `YUVToBGRAAVX2` at twice the width, which
/// halves the instructions per pixel. The 128-bit lanes play the
/// role the AVX2 kernel's two halves play: lane `k` holds pixels 4k…4k+3 and
/// 16+4k…16+4k+3 of each 32, so the final `punpcklwd`/`punpckhwd` give pixels 0…15
/// and 16…31 in memory order (one `vpermq` with a quadword index per 32 pixels).
enum YUVToBGRAAVX512 {
  @inline(__always)
  static func store32(
    luma: __m512i, red: __m512i, green: __m512i, blue: __m512i, to destination: UnsafeMutableRawPointer
  ) {
    let l = _mm512_add_epi16(
      _mm512_mulhi_epu16(luma, _mm512_set1_epi16(Int16(YUVToBGRAKernel.lumaScale))),
      _mm512_set1_epi16(Int16(YUVToBGRAKernel.bias)))
    let b = _mm512_min_epu16(_mm512_srli_epi16(_mm512_subs_epu16(l, blue), 6), _mm512_set1_epi16(255))
    let g = _mm512_and_si512(
      _mm512_slli_epi16(_mm512_adds_epu16(_mm512_subs_epu16(l, green), _mm512_set1_epi16(Int16(bitPattern: 0xC000))), 2),
      _mm512_set1_epi16(Int16(bitPattern: 0xFF00)))
    let ra = _mm512_adds_epu16(
      _mm512_srli_epi16(_mm512_subs_epu16(l, red), 6), _mm512_set1_epi16(Int16(bitPattern: 0xFF00)))
    let bg = _mm512_or_si512(b, g)
    destination.storeBytes(of: _mm512_unpacklo_epi16(bg, ra), as: __m512i.self)
    destination.storeBytes(of: _mm512_unpackhi_epi16(bg, ra), toByteOffset: 64, as: __m512i.self)
  }

  @inline(__always)
  static func chroma(cb: __m512i, cr: __m512i) -> (red: __m512i, green: __m512i, blue: __m512i) {
    typealias K = YUVToBGRAKernel
    let red = _mm512_sub_epi16(
      _mm512_set1_epi16(Int16(truncatingIfNeeded: K.bias - K.redOffset)),
      _mm512_mulhi_epu16(cr, _mm512_set1_epi16(Int16(K.crToRed))))
    let green = _mm512_add_epi16(
      _mm512_add_epi16(
        _mm512_set1_epi16(Int16(truncatingIfNeeded: K.bias - K.greenOffset)),
        _mm512_mulhi_epu16(cb, _mm512_set1_epi16(Int16(K.cbToGreen)))),
      _mm512_mulhi_epu16(cr, _mm512_set1_epi16(Int16(K.crToGreen))))
    let blue = _mm512_sub_epi16(
      _mm512_set1_epi16(Int16(truncatingIfNeeded: K.bias - K.blueOffset)),
      _mm512_mulhi_epu16(cb, _mm512_set1_epi16(Int16(truncatingIfNeeded: K.cbToBlue))))
    return (red, green, blue)
  }

  /// Dwords k, 4 + k, 8 + k, 12 + k in lane k (one `vpermd`): 4-pixel groups of Y, or
  /// pairs of NV12 Cb Cr pairs, in the order `store32` needs.
  @inline(__always)
  static var lanesOfFour: __m512i {
    unsafeBitCast(SIMD16<UInt32>(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), to: __m512i.self)
  }

  /// Converts two rows of 64 pixels that share 32 chroma samples, given as 16-bit lanes
  /// (·256) with samples 2k, 2k+1, 8+2k, 9+2k, 16+2k, 17+2k, 24+2k, 25+2k in lane k.
  @inline(__always)
  static func rowPair64(
    cb: __m512i, cr: __m512i, luma0: UnsafeRawPointer, luma1: UnsafeRawPointer,
    destination0: UnsafeMutableRawPointer, destination1: UnsafeMutableRawPointer
  ) {
    let n = chroma(cb: cb, cr: cr)
    let redLow = _mm512_unpacklo_epi16(n.red, n.red), redHigh = _mm512_unpackhi_epi16(n.red, n.red)
    let greenLow = _mm512_unpacklo_epi16(n.green, n.green), greenHigh = _mm512_unpackhi_epi16(n.green, n.green)
    let blueLow = _mm512_unpacklo_epi16(n.blue, n.blue), blueHigh = _mm512_unpackhi_epi16(n.blue, n.blue)
    let zero = _mm512_setzero_si512()
    @inline(__always) func row(_ luma: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer) {
      // Lane k: pixels 4k…4k+3, 16+4k…16+4k+3 (low words), 32+4k…, 48+4k… (high words).
      let y = _mm512_permutexvar_epi32(lanesOfFour, luma.loadUnaligned(as: __m512i.self))
      store32(luma: _mm512_unpacklo_epi8(zero, y), red: redLow, green: greenLow, blue: blueLow, to: destination)
      store32(luma: _mm512_unpackhi_epi8(zero, y), red: redHigh, green: greenHigh, blue: blueHigh, to: destination + 128)
    }
    row(luma0, destination0)
    row(luma1, destination1)
  }

  /// NV12: `blocks` steps of 64 pixels of two rows (a last odd row may be passed twice).
  @inline(__always)
  static func nv12RowPair(
    luma0: UnsafeRawPointer, luma1: UnsafeRawPointer, chroma: UnsafeRawPointer,
    destination0: UnsafeMutableRawPointer, destination1: UnsafeMutableRawPointer, blocks: Int
  ) {
    var i = 0
    while i < blocks {
      // 32 Cb Cr pairs, one per 16-bit lane (Cb low, Cr high), two pairs per dword.
      let pairs = _mm512_permutexvar_epi32(lanesOfFour, chroma.loadUnaligned(fromByteOffset: i &* 64, as: __m512i.self))
      rowPair64(
        cb: _mm512_slli_epi16(pairs, 8), cr: _mm512_and_si512(pairs, _mm512_set1_epi16(Int16(bitPattern: 0xFF00))),
        luma0: luma0 + i &* 64, luma1: luma1 + i &* 64,
        destination0: destination0 + i &* 256, destination1: destination1 + i &* 256)
      i &+= 1
    }
  }

  /// I420: `blocks` steps of 64 pixels of two rows.
  @inline(__always)
  static func i420RowPair(
    luma0: UnsafeRawPointer, luma1: UnsafeRawPointer, cb: UnsafeRawPointer, cr: UnsafeRawPointer,
    destination0: UnsafeMutableRawPointer, destination1: UnsafeMutableRawPointer, blocks: Int
  ) {
    // From 32 Cb then 32 Cr bytes (16-bit pairs of samples 0…15 and 16…31): lane k gets
    // the Cb pairs k, 4 + k, 8 + k, 12 + k, then the Cr pairs likewise (one `vpermw`).
    let order = unsafeBitCast(
      SIMD32<UInt16>(
        0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29,
        2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31), to: __m512i.self)
    let zero = _mm512_setzero_si512()
    var i = 0
    while i < blocks {
      let u = (cb + i &* 32).loadUnaligned(as: __m256i.self), v = (cr + i &* 32).loadUnaligned(as: __m256i.self)
      let both = _mm512_permutexvar_epi16(order, SIMD8(u[0], u[1], u[2], u[3], v[0], v[1], v[2], v[3]))
      rowPair64(
        cb: _mm512_unpacklo_epi8(zero, both), cr: _mm512_unpackhi_epi8(zero, both),
        luma0: luma0 + i &* 64, luma1: luma1 + i &* 64,
        destination0: destination0 + i &* 256, destination1: destination1 + i &* 256)
      i &+= 1
    }
  }

  /// YUYV: `blocks` steps of 64 pixels (128 bytes) of two rows at once (two independent
  /// chains of work per step: about 8 % faster than one row at a time in L2-sized
  /// frames). For a last odd row, pass it as both rows.
  @inline(__always)
  static func yuyvRowPair(
    source0: UnsafeRawPointer, source1: UnsafeRawPointer,
    destination0: UnsafeMutableRawPointer, destination1: UnsafeMutableRawPointer, blocks: Int
  ) {
    // The Cb (byte 1) or Cr (byte 3) of each pixel pair in the high byte of both of its lanes.
    let cbMask = _mm512_broadcast_i32x4(_mm_setr_epi8(-1, 1, -1, 1, -1, 5, -1, 5, -1, 9, -1, 9, -1, 13, -1, 13))
    let crMask = _mm512_broadcast_i32x4(_mm_setr_epi8(-1, 3, -1, 3, -1, 7, -1, 7, -1, 11, -1, 11, -1, 15, -1, 15))
    // Quadwords (pixels 0…3, 4…7, …) to lanes: 0, 4 | 1, 5 | 2, 6 | 3, 7.
    let order = _mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0)
    @inline(__always) func convert32(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer) {
      let x = _mm512_permutexvar_epi64(order, src.loadUnaligned(as: __m512i.self))
      let n = chroma(cb: _mm512_shuffle_epi8(x, cbMask), cr: _mm512_shuffle_epi8(x, crMask))
      store32(luma: _mm512_slli_epi16(x, 8), red: n.red, green: n.green, blue: n.blue, to: dst)
    }
    var i = 0
    while i < blocks {
      let s0 = source0 + i &* 128, d0 = destination0 + i &* 256
      let s1 = source1 + i &* 128, d1 = destination1 + i &* 256
      convert32(s0, d0)
      convert32(s1, d1)
      convert32(s0 + 64, d0 + 128)
      convert32(s1 + 64, d1 + 128)
      i &+= 1
    }
  }
}
#endif
