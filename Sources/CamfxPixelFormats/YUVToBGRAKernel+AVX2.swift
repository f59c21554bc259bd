// Compiled only when the build defines CAMFX_AVX2 (`make release` and `make bench-peers`
// on a CPU with AVX2, see the Makefile): Swift has no `#if` for CPU features, and the
// intrinsics below crash the compiler when the target CPU lacks AVX2.
#if CAMFX_AVX2 && arch(x86_64)
import _Builtin_intrinsics.intel

/// The YUV → BGRA rows with AVX2 intrinsics: 32 pixels per step, bit-identical to
/// `YUVToBGRAKernel.bgra(y:cb:cr:)` and to the portable SIMD body.
///
/// The arithmetic is the portable kernel's (see `YUVToBGRAKernel`): `pmulhuw` products,
/// the luma lane biased by `M = 16384`, each chroma lane holding `n = M − chroma part`,
/// and `max(channel·64, 0)` as one `psubusw`. What intrinsics add is the rest, which
/// LLVM does not find from Swift SIMD code:
///
/// - the top clamp costs one instruction or none: B is `pminuw(x >> 6, 255)`; R and the
///   constant alpha are one saturating add, `paddusw(x >> 6, 0xFF00)` (any R above 255
///   saturates to 0xFFFF, i.e. R = A = 255); G·256 is
///   `(paddusw(x, 0xC000) << 2) & 0xFF00` (0xC000 · 4 wraps to 0; from x = 16383 up the
///   sum saturates and the result is 0xFF00).
/// - chroma is computed once per sample and duplicated to the pixel pair afterwards
///   (`punpck*wd` of the three `n` vectors with themselves).
/// - no lane-crossing shuffle at the store: the inputs are loaded in the order that
///   makes the final `punpcklwd`/`punpckhwd` of (B | G·256, R | A·256) produce pixels
///   0…7 and 8…15 in memory order (see `lumaInKernelOrder`).
///
/// x86 runs one shuffle per cycle (port 5 only) but three simple vector operations, so
/// the kernels trade shuffles for arithmetic where they can.
enum YUVToBGRAAVX2 {
  /// Sixteen pixels in 16-bit lanes (each Y in the high byte of its lane, and the
  /// chroma subtrahends of its pixel pair) to 64 bytes of BGRA at `destination`.
  ///
  /// Lane order (the kernel order): pixels 0…3, 8…11 in the low 128 bits and 4…7,
  /// 12…15 in the high ones, so `punpcklwd` gives pixels 0…7 and `punpckhwd` 8…15.
  @inline(__always)
  static func store16(
    luma: __m256i, red: __m256i, green: __m256i, blue: __m256i, to destination: UnsafeMutableRawPointer
  ) {
    let l = _mm256_add_epi16(
      _mm256_mulhi_epu16(luma, _mm256_set1_epi16(Int16(YUVToBGRAKernel.lumaScale))),
      _mm256_set1_epi16(Int16(YUVToBGRAKernel.bias)))
    let b = _mm256_min_epu16(_mm256_srli_epi16(_mm256_subs_epu16(l, blue), 6), _mm256_set1_epi16(255))
    let g = _mm256_and_si256(
      _mm256_slli_epi16(_mm256_adds_epu16(_mm256_subs_epu16(l, green), _mm256_set1_epi16(Int16(bitPattern: 0xC000))), 2),
      _mm256_set1_epi16(Int16(bitPattern: 0xFF00)))
    let ra = _mm256_adds_epu16(
      _mm256_srli_epi16(_mm256_subs_epu16(l, red), 6), _mm256_set1_epi16(Int16(bitPattern: 0xFF00)))
    let bg = _mm256_or_si256(b, g)
    destination.storeBytes(of: _mm256_unpacklo_epi16(bg, ra), as: __m256i.self)
    destination.storeBytes(of: _mm256_unpackhi_epi16(bg, ra), toByteOffset: 32, as: __m256i.self)
  }

  /// The chroma subtrahends (R, G, B) of sixteen chroma samples, each given ·256 (the
  /// sample in the high byte of its lane).
  @inline(__always)
  static func chroma(cb: __m256i, cr: __m256i) -> (red: __m256i, green: __m256i, blue: __m256i) {
    typealias K = YUVToBGRAKernel
    let red = _mm256_sub_epi16(
      _mm256_set1_epi16(Int16(truncatingIfNeeded: K.bias - K.redOffset)),
      _mm256_mulhi_epu16(cr, _mm256_set1_epi16(Int16(K.crToRed))))
    let green = _mm256_add_epi16(
      _mm256_add_epi16(
        _mm256_set1_epi16(Int16(truncatingIfNeeded: K.bias - K.greenOffset)),
        _mm256_mulhi_epu16(cb, _mm256_set1_epi16(Int16(K.cbToGreen)))),
      _mm256_mulhi_epu16(cr, _mm256_set1_epi16(Int16(K.crToGreen))))
    let blue = _mm256_sub_epi16(
      _mm256_set1_epi16(Int16(truncatingIfNeeded: K.bias - K.blueOffset)),
      _mm256_mulhi_epu16(cb, _mm256_set1_epi16(Int16(truncatingIfNeeded: K.cbToBlue))))
    return (red, green, blue)
  }

  /// Quadwords 0, 2 | 1, 3 (`vpermq`; `_mm256_permute4x64_epi64` is a C macro, which
  /// Swift does not import).
  @inline(__always)
  static func quadwords0213(_ x: __m256i) -> __m256i { SIMD4(x[0], x[2], x[1], x[3]) }

  /// The dword order of the 4:2:0 inputs: dwords 0, 2, 4, 6 in the low 128 bits and
  /// 1, 3, 5, 7 in the high ones (one `vpermd`).
  @inline(__always)
  static var evenOddDwords: __m256i { _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7) }

  /// Thirty-two Y bytes as two vectors of 16-bit lanes in kernel order, each Y in the
  /// high byte: pixels 0…3, 8…11 | 4…7, 12…15 and 16…19, 24…27 | 20…23, 28…31.
  @inline(__always)
  static func lumaInKernelOrder(_ y: UnsafeRawPointer) -> (__m256i, __m256i) {
    let bytes = _mm256_permutevar8x32_epi32(y.loadUnaligned(as: __m256i.self), evenOddDwords)
    let zero = _mm256_setzero_si256()
    return (_mm256_unpacklo_epi8(zero, bytes), _mm256_unpackhi_epi8(zero, bytes))
  }

  /// Converts one row of 32 pixels from its sixteen chroma samples, given as 16-bit
  /// lanes (·256) in the order samples 0, 1, 4, 5, 8, 9, 12, 13 | 2, 3, 6, 7, 10, 11,
  /// 14, 15: duplicated by `punpcklwd`/`punpckhwd`, those are the pixel pairs of the
  /// kernel order of `lumaInKernelOrder`.
  ///
  /// One row at a time, although 4:2:0's two rows share their chroma: computing it twice
  /// slows frames in the cache, but a frame from memory is then read and written as
  /// three streams rather than five, which is faster, for the conversion and for whoever
  /// reads its frame next (measured in the README).
  @inline(__always)
  static func row32(cb: __m256i, cr: __m256i, luma: UnsafeRawPointer, destination: UnsafeMutableRawPointer) {
    let n = chroma(cb: cb, cr: cr)
    let y = lumaInKernelOrder(luma)
    store16(
      luma: y.0, red: _mm256_unpacklo_epi16(n.red, n.red), green: _mm256_unpacklo_epi16(n.green, n.green),
      blue: _mm256_unpacklo_epi16(n.blue, n.blue), to: destination)
    store16(
      luma: y.1, red: _mm256_unpackhi_epi16(n.red, n.red), green: _mm256_unpackhi_epi16(n.green, n.green),
      blue: _mm256_unpackhi_epi16(n.blue, n.blue), to: destination + 64)
  }

  /// NV12: `blocks` steps of 32 pixels of one row.
  @inline(__always)
  static func nv12Row(luma: UnsafeRawPointer, chroma: UnsafeRawPointer, destination: UnsafeMutableRawPointer, blocks: Int) {
    var i = 0
    while i < blocks {
      // Sixteen Cb Cr pairs; one pair per 16-bit lane, Cb low, Cr high.
      let pairs = _mm256_permutevar8x32_epi32(
        chroma.loadUnaligned(fromByteOffset: i &* 32, as: __m256i.self), evenOddDwords)
      row32(
        cb: _mm256_slli_epi16(pairs, 8), cr: _mm256_and_si256(pairs, _mm256_set1_epi16(Int16(bitPattern: 0xFF00))),
        luma: luma + i &* 32, destination: destination + i &* 128)
      i &+= 1
    }
  }

  /// I420: `blocks` steps of 32 pixels of one row.
  @inline(__always)
  static func i420Row(
    luma: UnsafeRawPointer, cb: UnsafeRawPointer, cr: UnsafeRawPointer, destination: UnsafeMutableRawPointer,
    blocks: Int
  ) {
    // Within each 128-bit half (Cb low, Cr high): the 16-bit pairs of samples
    // (0 1)(4 5)(8 9)(12 13) first, then (2 3)(6 7)(10 11)(14 15).
    let evenOddPairs = _mm256_setr_epi8(
      0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
      0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15)
    let zero = _mm256_setzero_si256()
    var i = 0
    while i < blocks {
      let both = _mm256_loadu2_m128i(
        (cr + i &* 16).assumingMemoryBound(to: __m128i.self), (cb + i &* 16).assumingMemoryBound(to: __m128i.self))
      // Quadwords: Cb even pairs, Cr even pairs | Cb odd pairs, Cr odd pairs.
      let ordered = quadwords0213(_mm256_shuffle_epi8(both, evenOddPairs))
      row32(
        cb: _mm256_unpacklo_epi8(zero, ordered), cr: _mm256_unpackhi_epi8(zero, ordered),
        luma: luma + i &* 32, destination: destination + i &* 128)
      i &+= 1
    }
  }

  /// YUYV: `blocks` steps of 32 pixels (64 bytes) of one row.
  @inline(__always)
  static func yuyvRow(source: UnsafeRawPointer, destination: UnsafeMutableRawPointer, blocks: Int) {
    // The Cb (byte 1) or Cr (byte 3) of each pixel pair in the high byte of both of its lanes.
    let cbMask = _mm256_setr_epi8(
      -1, 1, -1, 1, -1, 5, -1, 5, -1, 9, -1, 9, -1, 13, -1, 13,
      -1, 1, -1, 1, -1, 5, -1, 5, -1, 9, -1, 9, -1, 13, -1, 13)
    let crMask = _mm256_setr_epi8(
      -1, 3, -1, 3, -1, 7, -1, 7, -1, 11, -1, 11, -1, 15, -1, 15,
      -1, 3, -1, 3, -1, 7, -1, 7, -1, 11, -1, 11, -1, 15, -1, 15)
    var i = 0
    while i < blocks {
      let src = source + i &* 64, dst = destination + i &* 128
      // Sixteen pixels, quadwords reordered to the kernel order (pixel pairs stay whole).
      let first = quadwords0213(src.loadUnaligned(as: __m256i.self))
      let second = quadwords0213(src.loadUnaligned(fromByteOffset: 32, as: __m256i.self))
      let n0 = chroma(cb: _mm256_shuffle_epi8(first, cbMask), cr: _mm256_shuffle_epi8(first, crMask))
      store16(luma: _mm256_slli_epi16(first, 8), red: n0.red, green: n0.green, blue: n0.blue, to: dst)
      let n1 = chroma(cb: _mm256_shuffle_epi8(second, cbMask), cr: _mm256_shuffle_epi8(second, crMask))
      store16(luma: _mm256_slli_epi16(second, 8), red: n1.red, green: n1.green, blue: n1.blue, to: dst + 64)
      i &+= 1
    }
  }
}
#endif
