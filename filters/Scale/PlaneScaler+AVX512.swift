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

#if CAMFX_AVX512 && arch(x86_64)
extension PlaneScaler.WindowPermutes {
  /// The horizontal pass of a plane laid out for `horizontalAVX512`, or nil when some
  /// group's window is wider than 64 samples (a shrink of more than about 3:1; the AVX2
  /// loop runs then) or there is no whole group. A group is 16 destination samples,
  /// whose windows lie in the 64 samples from the group's `bases` entry (the least
  /// window start in the group: starts are not always in order, since a window drops
  /// taps of weight 0, as bicubic's at an exact source pixel). Per group and pair of
  /// taps (2p, 2p + 1; a missing last tap weighs 0), 32 sample indices into those 64
  /// samples and the 32 matching weights: sample o's pair in lanes 2o and 2o + 1.
  init?(_ table: ResamplingTable) {
    let groups = table.destinationLength / 16
    let taps = table.tapCount, pairs = (taps + 1) / 2
    guard groups > 0 else { return nil }
    var bases = [Int](repeating: 0, count: groups)
    var indices = [Int16](repeating: 0, count: groups * pairs * 32)
    var weights = [Int16](repeating: 0, count: groups * pairs * 32)
    for g in 0..<groups {
      let first = g * 16
      let base = table.start[first..<first + 16].min()!
      bases[g] = base
      for p in 0..<pairs {
        for o in 0..<16 {
          let x = first + o
          for h in 0..<2 {
            let t = 2 * p + h
            let index = table.start[x] - base + min(t, taps - 1)
            guard (0..<64).contains(index) else { return nil }
            let lane = (g * pairs + p) * 32 + 2 * o + h
            indices[lane] = Int16(index)
            weights[lane] = t < taps ? Int16(table.fixed[x * taps + t]) : 0
          }
        }
      }
    }
    self.init(pairs: pairs, bases: bases, indices: indices, weights: weights)
  }
}

extension PlaneScaler {
  /// The horizontal pass of a plane for whole groups of 16 samples (`WindowPermutes`).
  /// Returns how many destination samples it wrote.
  func horizontalAVX512(
    _ row: UnsafeMutablePointer<Int16>, into out: UnsafeMutablePointer<UInt8>, _ permutes: WindowPermutes
  ) -> Int {
    permutes.indices.withUnsafeBufferPointer { indices in
      permutes.weights.withUnsafeBufferPointer { weights in
        permutes.bases.withUnsafeBufferPointer { bases in
          let i = indices.baseAddress!, w = weights.baseAddress!, b = bases.baseAddress!
          // The pair count as a constant for the common windows, so that the loop over
          // pairs unrolls.
          switch permutes.pairs {
          case 1: return horizontalAVX512(row, into: out, pairs: 1, bases: b, indices: i, weights: w)
          case 2: return horizontalAVX512(row, into: out, pairs: 2, bases: b, indices: i, weights: w)
          case 3: return horizontalAVX512(row, into: out, pairs: 3, bases: b, indices: i, weights: w)
          case 4: return horizontalAVX512(row, into: out, pairs: 4, bases: b, indices: i, weights: w)
          default: return horizontalAVX512(row, into: out, pairs: permutes.pairs, bases: b, indices: i, weights: w)
          }
        }
      }
    }
  }

  /// Bit-identical to the portable loop (the same 32-bit sums): the 64 samples of a
  /// group's window are two loads, `vpermi2w` picks every sample's pair of taps from
  /// them in one instruction per pair, and `pmaddwd` adds the pair's two products; the
  /// 16 sums are shifted, clamped and narrowed to bytes in order. The AVX2 loop needs
  /// a load and an insert per sample and quad of taps instead.
  @inline(__always)
  private func horizontalAVX512(
    _ row: UnsafeMutablePointer<Int16>, into out: UnsafeMutablePointer<UInt8>, pairs: Int,
    bases: UnsafePointer<Int>, indices: UnsafePointer<Int16>, weights: UnsafePointer<Int16>
  ) -> Int {
    let count = horizontal.destinationLength
    let half = _mm512_set1_epi32(1 << (Self.horizontalShift - 1))
    let zero = _mm512_setzero_si512()
    var i = UnsafeRawPointer(indices), w = UnsafeRawPointer(weights)
    var x = 0, g = 0
    while x + 16 <= count {
      let window = UnsafeRawPointer(row + bases[g])
      let low = window.loadUnaligned(as: __m512i.self), high = window.loadUnaligned(fromByteOffset: 64, as: __m512i.self)
      var acc = half
      for p in 0..<pairs {
        let pair = _mm512_permutex2var_epi16(low, i.loadUnaligned(fromByteOffset: p &* 64, as: __m512i.self), high)
        acc = _mm512_add_epi32(acc, _mm512_madd_epi16(pair, w.loadUnaligned(fromByteOffset: p &* 64, as: __m512i.self)))
      }
      let sums = _mm512_max_epi32(_mm512_srai_epi32(acc, UInt32(Self.horizontalShift)), zero)
      UnsafeMutableRawPointer(out + x).storeBytes(of: _mm512_cvtusepi32_epi8(sums), as: __m128i.self)
      i += pairs &* 64
      w += pairs &* 64
      x &+= 16
      g &+= 1
    }
    return x
  }
}
#endif

#if CAMFX_AVX512 && arch(x86_64)
extension PlaneScaler {
  /// `verticalAVX2` at twice the width: 32 samples a step, the same sums (the 16-bit
  /// unpacks and packs work within 128-bit lanes at both widths, so the order comes out
  /// the same). Returns how many samples it wrote.
  @inline(__always)
  static func verticalAVX512(
    _ rows: UnsafePointer<UnsafePointer<UInt8>>, weights: UnsafePointer<__m256i>, pairs: Int,
    into row: UnsafeMutablePointer<Int16>, samples: Int
  ) -> Int {
    let rounding = _mm512_set1_epi32(1 << (verticalShift - 1))
    let shift = UInt32(verticalShift)
    let out = UnsafeMutableRawPointer(row)
    var x = 0
    while x + 32 <= samples {
      var low = rounding, high = rounding
      for p in 0..<pairs {
        let w = _mm512_broadcast_i64x4(weights[p])
        let a = _mm512_cvtepu8_epi16(UnsafeRawPointer(rows[2 &* p] + x).loadUnaligned(as: __m256i.self))
        let b = _mm512_cvtepu8_epi16(UnsafeRawPointer(rows[2 &* p &+ 1] + x).loadUnaligned(as: __m256i.self))
        low = _mm512_add_epi32(low, _mm512_madd_epi16(_mm512_unpacklo_epi16(a, b), w))
        high = _mm512_add_epi32(high, _mm512_madd_epi16(_mm512_unpackhi_epi16(a, b), w))
      }
      let packed = _mm512_packs_epi32(_mm512_srai_epi32(low, shift), _mm512_srai_epi32(high, shift))
      out.storeBytes(of: packed, toByteOffset: x &* 2, as: __m512i.self)
      x &+= 32
    }
    return x
  }
}
#endif
