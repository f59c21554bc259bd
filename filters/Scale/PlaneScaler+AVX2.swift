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
    @inline(__always) func halveStep(at x: Int) {
      let o = x &* 2 &* pixelBytes
      let packed = _mm256_packus_epi16(sums(o), sums(o &+ 32))
      out.storeBytes(
        of: SIMD4(packed[0], packed[2], packed[1], packed[3]) as __m256i, toByteOffset: x &* pixelBytes, as: __m256i.self)
    }
    var x = 0
    // Two steps a turn: the loop's constants are loaded once for both.
    while x + 2 * step <= width {
      halveStep(at: x)
      halveStep(at: x &+ step)
      x &+= 2 &* step
    }
    while x + step <= width {
      halveStep(at: x)
      x &+= step
    }
    return x
  }
}
#endif

#if CAMFX_AVX2 && arch(x86_64)
extension PlaneScaler {
  /// The horizontal weights of BGRA laid out for `horizontalBGRAAVX2`: per group of 8
  /// destination pixels, per pair of taps (2p, 2p + 1; a missing last tap weighs 0),
  /// four 16-lane vectors; vector s holds pixel s's pair in its low 128 bits and pixel
  /// 4 + s's in its high ones, each as (w2p, w2p+1) four times (one pair per channel).
  static func bgraPairWeights(_ table: ResamplingTable) -> [Int16] {
    let groups = table.destinationLength / 8, pairs = (table.tapCount + 1) / 2, taps = table.tapCount
    var packed = [Int16](repeating: 0, count: groups * pairs * 4 * 16)
    for g in 0..<groups {
      for p in 0..<pairs {
        for s in 0..<4 {
          for half in 0..<2 {
            let x = 8 * g + s + 4 * half
            let w0 = Int16(table.fixed[x * taps + 2 * p])
            let w1 = 2 * p + 1 < taps ? Int16(table.fixed[x * taps + 2 * p + 1]) : 0
            let base = ((g * pairs + p) * 4 + s) * 16 + 8 * half
            for c in 0..<4 {
              packed[base + 2 * c] = w0
              packed[base + 2 * c + 1] = w1
            }
          }
        }
      }
    }
    return packed
  }

  /// The horizontal pass of BGRA for whole groups of 8 destination pixels, bit-identical
  /// to the portable loop (the same 32-bit sums): for each pair of taps, a pixel's two
  /// source pixels (16 bytes of the 16-bit row) are loaded together, their channels
  /// interleaved by `pshufb` (B0 B1 G0 G1 …) and `pmaddwd` with the pair's weights adds
  /// the two products of each channel in 32 bits. With pixels s and 4 + s in the halves
  /// of sum s, `packssdw` and `packuswb` leave the 8 pixels in memory order. Returns how
  /// many pixels it wrote.
  @inline(__always)
  func horizontalBGRAAVX2(
    _ row: UnsafeMutablePointer<Int16>, into out: UnsafeMutablePointer<UInt8>, pairs: Int,
    weights: UnsafePointer<Int16>, starts: UnsafePointer<Int>
  ) -> Int {
    let count = horizontal.destinationLength
    let pixels = UnsafeRawPointer(row)
    let interleave = _mm256_setr_epi8(
      0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
      0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15)
    let half = _mm256_set1_epi32(1 << (Self.horizontalShift - 1))
    var w = UnsafeRawPointer(weights)
    var x = 0
    while x + 8 <= count {
      @inline(__always) func sum(_ s: Int) -> __m256i {
        let low = starts[x &+ s] &* 8, high = starts[x &+ s &+ 4] &* 8
        var acc = half
        for p in 0..<pairs {
          let two = _mm256_loadu2_m128i(
            (pixels + (high &+ 16 &* p)).assumingMemoryBound(to: __m128i.self),
            (pixels + (low &+ 16 &* p)).assumingMemoryBound(to: __m128i.self))
          let products = _mm256_madd_epi16(
            _mm256_shuffle_epi8(two, interleave), w.loadUnaligned(fromByteOffset: (p &* 4 &+ s) &* 32, as: __m256i.self))
          acc = _mm256_add_epi32(acc, products)
        }
        return _mm256_srai_epi32(acc, Self.horizontalShift)
      }
      let first = _mm256_packs_epi32(sum(0), sum(1)), second = _mm256_packs_epi32(sum(2), sum(3))
      UnsafeMutableRawPointer(out).storeBytes(
        of: _mm256_packus_epi16(first, second), toByteOffset: x &* 4, as: __m256i.self)
      w += pairs &* 128
      x &+= 8
    }
    return x
  }
}
#endif

#if CAMFX_AVX2 && arch(x86_64)
extension PlaneScaler {
  /// Destination row `y`'s vertical weights for `pmaddwd` in the vertical-first order's
  /// vertical pass: per pair of rows (2p, 2p + 1; a missing last row weighs 0), the two
  /// weights side by side in every 32-bit lane.
  @inline(__always)
  static func verticalPairWeights(
    _ weights: UnsafePointer<Int32>, row y: Int, taps: Int, into pairs: UnsafeMutablePointer<__m256i>
  ) {
    for p in 0..<(taps + 1) / 2 {
      let w0 = UInt16(truncatingIfNeeded: weights[y * taps + 2 * p])
      let w1 = 2 * p + 1 < taps ? UInt16(truncatingIfNeeded: weights[y * taps + 2 * p + 1]) : 0
      pairs[p] = _mm256_set1_epi32(Int32(bitPattern: UInt32(w0) | UInt32(w1) << 16))
    }
  }

  /// The vertical pass for whole steps of 16 samples, bit-identical to the portable
  /// loops (the same 32-bit sums, rounded and shifted the same way) but in one pass over
  /// the row instead of one per tap: the samples of two source rows are widened to 16
  /// bits and interleaved, and `pmaddwd` with the two rows' weights adds both products
  /// in 32 bits; a missing last row (any row, weighing 0) adds nothing. `packssdw` of the sums of samples 0…3,
  /// 8…11 and 4…7, 12…15 leaves the 16-bit row in memory order. Returns how many samples
  /// it wrote.
  @inline(__always)
  static func verticalAVX2(
    _ rows: UnsafePointer<UnsafePointer<UInt8>>, weights: UnsafePointer<__m256i>, pairs: Int,
    into row: UnsafeMutablePointer<Int16>, samples: Int, from start: Int = 0
  ) -> Int {
    let rounding = _mm256_set1_epi32(1 << (verticalShift - 1))
    let out = UnsafeMutableRawPointer(row)
    var x = start
    while x + 16 <= samples {
      var low = rounding, high = rounding
      for p in 0..<pairs {
        let a = _mm256_cvtepu8_epi16(UnsafeRawPointer(rows[2 &* p] + x).loadUnaligned(as: __m128i.self))
        let b = _mm256_cvtepu8_epi16(UnsafeRawPointer(rows[2 &* p &+ 1] + x).loadUnaligned(as: __m128i.self))
        low = _mm256_add_epi32(low, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), weights[p]))
        high = _mm256_add_epi32(high, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), weights[p]))
      }
      let packed = _mm256_packs_epi32(_mm256_srai_epi32(low, verticalShift), _mm256_srai_epi32(high, verticalShift))
      out.storeBytes(of: packed, toByteOffset: x &* 2, as: __m256i.self)
      x &+= 16
    }
    return x
  }

  /// `verticalAVX2` for windows of two rows (`fast_bilinear`, and `bilinear` when
  /// enlarging), bit-identical to it in fewer operations: the two weights sum to 2^14, so
  /// (a·w0 + b·w1 + 128) >> 8 = 64a + ((b − a)·w1 + 128) >> 8, and `pmulhrsw` of
  /// 64(b − a) by 2·w1, (x·y + 2^14) >> 15, is that second term exactly, in 16-bit lanes.
  /// The row of the heavier weight is taken as `a`, so that 2·w1 fits 16 bits.
  @inline(__always)
  static func verticalTwoRowsAVX2(
    _ rows: UnsafePointer<UnsafePointer<UInt8>>, weights: UnsafePointer<Int32>, row y: Int,
    into row: UnsafeMutablePointer<Int16>, samples: Int, from start: Int = 0
  ) -> Int {
    let w0 = weights[2 &* y], w1 = weights[2 &* y &+ 1]
    let (a, b, w) = w1 <= w0 ? (rows[0], rows[1], w1) : (rows[1], rows[0], w0)
    let factor = _mm256_set1_epi16(Int16(2 &* w))
    let out = UnsafeMutableRawPointer(row)
    var x = start
    while x + 16 <= samples {
      let high = _mm256_slli_epi16(_mm256_cvtepu8_epi16(UnsafeRawPointer(a + x).loadUnaligned(as: __m128i.self)), 6)
      let low = _mm256_slli_epi16(_mm256_cvtepu8_epi16(UnsafeRawPointer(b + x).loadUnaligned(as: __m128i.self)), 6)
      out.storeBytes(
        of: _mm256_add_epi16(high, _mm256_mulhrs_epi16(_mm256_sub_epi16(low, high), factor)), toByteOffset: x &* 2,
        as: __m256i.self)
      x &+= 16
    }
    return x
  }
}
#endif

#if CAMFX_AVX2 && arch(x86_64)
extension PlaneScaler {
  /// Where the sums of slot `s` of a 32-sample step of `horizontalPlaneAVX2` land after
  /// its `phaddd`, `packssdw` and `packuswb` (all within 128-bit halves): the step
  /// loads each slot's taps from the source of that destination sample.
  @inline(__always)
  static func planeSlotOffset(_ s: Int) -> Int {
    let q = s >> 2, r = s & 3
    return r < 2 ? 2 &* q &+ r : 14 &+ 2 &* q &+ r
  }

  /// The horizontal weights of a 1-channel plane laid out for `horizontalPlaneAVX2`: per
  /// step of 32 destination samples, per vector m (slots 4m … 4m + 3), per quad of taps
  /// (4q … 4q + 3; missing taps weigh 0), the four slots' four weights.
  static func planeQuadWeights(_ table: ResamplingTable) -> [Int16] {
    let steps = table.destinationLength / 32, quads = (table.tapCount + 3) / 4, taps = table.tapCount
    var packed = [Int16](repeating: 0, count: steps * 8 * quads * 16)
    for g in 0..<steps {
      for m in 0..<8 {
        for q in 0..<quads {
          for k in 0..<4 {
            let x = 32 * g + planeSlotOffset(4 * m + k)
            for t in 0..<4 where 4 * q + t < taps {
              packed[((g * 8 + m) * quads + q) * 16 + 4 * k + t] = Int16(table.fixed[x * taps + 4 * q + t])
            }
          }
        }
      }
    }
    return packed
  }

  /// The horizontal pass of a 1-channel plane for whole steps of 32 destination samples,
  /// bit-identical to the portable loop: each sample's taps are one 8-byte load of the
  /// 16-bit row per quad of taps, four samples to a vector; `pmaddwd` with their weights
  /// and `phaddd` of two such vectors give eight 32-bit sums. Returns how many samples
  /// it wrote.
  @inline(__always)
  func horizontalPlaneAVX2(
    _ row: UnsafeMutablePointer<Int16>, into out: UnsafeMutablePointer<UInt8>, quads: Int,
    weights: UnsafePointer<Int16>, starts: UnsafePointer<Int>
  ) -> Int {
    let count = horizontal.destinationLength
    let samples = UnsafeRawPointer(row)
    let half = _mm256_set1_epi32(1 << (Self.horizontalShift - 1))
    var w = UnsafeRawPointer(weights)
    var x = 0
    while x + 32 <= count {
      /// Pair sums of slots 4m … 4m + 3 (two 32-bit lanes each).
      @inline(__always) func products(_ m: Int) -> __m256i {
        let o0 = starts[x &+ Self.planeSlotOffset(4 * m)] &* 2, o1 = starts[x &+ Self.planeSlotOffset(4 * m + 1)] &* 2
        let o2 = starts[x &+ Self.planeSlotOffset(4 * m + 2)] &* 2, o3 = starts[x &+ Self.planeSlotOffset(4 * m + 3)] &* 2
        var acc = _mm256_setzero_si256()
        for q in 0..<quads {
          let taps: __m256i = SIMD4(
            samples.loadUnaligned(fromByteOffset: o0 &+ 8 &* q, as: Int64.self),
            samples.loadUnaligned(fromByteOffset: o1 &+ 8 &* q, as: Int64.self),
            samples.loadUnaligned(fromByteOffset: o2 &+ 8 &* q, as: Int64.self),
            samples.loadUnaligned(fromByteOffset: o3 &+ 8 &* q, as: Int64.self))
          acc = _mm256_add_epi32(
            acc, _mm256_madd_epi16(taps, w.loadUnaligned(fromByteOffset: (m &* quads &+ q) &* 32, as: __m256i.self)))
        }
        return acc
      }
      @inline(__always) func sums(_ m: Int) -> __m256i {
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_hadd_epi32(products(m), products(m &+ 1)), half), Self.horizontalShift)
      }
      let low = _mm256_packs_epi32(sums(0), sums(2)), high = _mm256_packs_epi32(sums(4), sums(6))
      UnsafeMutableRawPointer(out).storeBytes(of: _mm256_packus_epi16(low, high), toByteOffset: x, as: __m256i.self)
      w += quads &* 256
      x &+= 32
    }
    return x
  }
}
#endif
