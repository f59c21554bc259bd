// Compiled only when the build defines CAMFX_AVX2 (see `PlaneScaler+AVX2.swift`).
#if CAMFX_AVX2 && arch(x86_64)
import _Builtin_intrinsics.intel

extension PlaneScaler {
  /// The horizontal pass of the horizontal-first order for whole groups of 16
  /// destination samples, bit-identical to the portable loop (the same 32-bit sums):
  /// per vector, two 16-byte windows of the source row; per pair of taps, `pshufb`
  /// widens the four samples' two source bytes into their 32-bit lanes and `pmaddwd`
  /// adds the two products. Returns how many samples it wrote.
  func horizontalFromBytesAVX2(
    _ source: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<Int16>, _ windows: ByteWindows
  ) -> Int {
    // The pair count as a constant for the common windows, so that the loop over pairs unrolls.
    switch windows.pairs {
    case 1: Self.horizontalFromBytesAVX2(source, into: row, windows, pairs: 1)
    case 2: Self.horizontalFromBytesAVX2(source, into: row, windows, pairs: 2)
    case 3: Self.horizontalFromBytesAVX2(source, into: row, windows, pairs: 3)
    case 4: Self.horizontalFromBytesAVX2(source, into: row, windows, pairs: 4)
    default: Self.horizontalFromBytesAVX2(source, into: row, windows, pairs: windows.pairs)
    }
  }

  @inline(__always)
  private static func horizontalFromBytesAVX2(
    _ source: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<Int16>, _ windows: ByteWindows, pairs: Int
  ) -> Int {
    let rounding = _mm256_set1_epi32(1 << (verticalShift - 1))
    return windows.bases.withUnsafeBufferPointer { bases in
      windows.masks.withUnsafeBytes { masks in
        windows.weights.withUnsafeBytes { weights in
          let out = UnsafeMutableRawPointer(row), count = windows.length
          for g in 0..<windows.groups {
            @inline(__always) func sums(_ v: Int) -> __m256i {
              let window = _mm256_loadu2_m128i(
                UnsafeRawPointer(source + Int(bases[4 &* g &+ 2 &* v &+ 1])).assumingMemoryBound(to: __m128i.self),
                UnsafeRawPointer(source + Int(bases[4 &* g &+ 2 &* v])).assumingMemoryBound(to: __m128i.self))
              var acc = rounding
              let first = (g &* 2 &+ v) &* pairs
              for p in 0..<pairs {
                let taps = _mm256_shuffle_epi8(window, masks.loadUnaligned(fromByteOffset: (first &+ p) &* 32, as: __m256i.self))
                acc = _mm256_add_epi32(
                  acc, _mm256_madd_epi16(taps, weights.loadUnaligned(fromByteOffset: (first &+ p) &* 32, as: __m256i.self)))
              }
              return _mm256_srai_epi32(acc, verticalShift)
            }
            out.storeBytes(
              of: _mm256_packs_epi32(sums(0), sums(1)), toByteOffset: ByteWindows.firstSample(group: g, length: count) &* 2,
              as: __m256i.self)
          }
          return count
        }
      }
    }
  }

  /// The vertical pass of the horizontal-first order for whole steps of 32 destination
  /// samples, bit-identical to the portable loop: per tap, `pmulhrsw` of 16 ring
  /// samples by the tap's weight (`ringProduct`), the products added in 16-bit lanes
  /// (they cannot overflow, see `ringProduct`), and `pmulhrsw` by 1024 as the final
  /// `(sum + 16) >> 5`. Returns how many samples it wrote.
  func verticalFromRing(
    _ ring: UnsafeMutablePointer<Int16>, stride: Int, y: Int, weights vWeights: UnsafePointer<Int32>,
    into out: UnsafeMutablePointer<UInt8>
  ) -> Int {
    let taps = vertical.tapCount, first = vertical.start[y]
    return withUnsafeTemporaryAllocation(of: UnsafePointer<Int16>.self, capacity: taps) { rows in
      withUnsafeTemporaryAllocation(of: __m256i.self, capacity: taps) { weights in
        var slot = first % taps
        for k in 0..<taps {
          rows[k] = UnsafePointer(ring + slot * stride)
          weights[k] = _mm256_set1_epi16(Int16(truncatingIfNeeded: vWeights[y * taps + k]))
          slot = Self.nextRingSlot(after: slot, taps: taps)
        }
        let r = UnsafePointer(rows.baseAddress!), w = UnsafePointer(weights.baseAddress!)
        let count = horizontal.destinationLength
        // The tap count as a constant for the common windows, so that the loop over taps unrolls.
        switch taps {
        case 2: return Self.verticalFromRingAVX2(r, weights: w, taps: 2, into: out, count: count)
        case 3: return Self.verticalFromRingAVX2(r, weights: w, taps: 3, into: out, count: count)
        case 4: return Self.verticalFromRingAVX2(r, weights: w, taps: 4, into: out, count: count)
        case 6: return Self.verticalFromRingAVX2(r, weights: w, taps: 6, into: out, count: count)
        case 8: return Self.verticalFromRingAVX2(r, weights: w, taps: 8, into: out, count: count)
        default: return Self.verticalFromRingAVX2(r, weights: w, taps: taps, into: out, count: count)
        }
      }
    }
  }

  @inline(__always)
  private static func verticalFromRingAVX2(
    _ rows: UnsafePointer<UnsafePointer<Int16>>, weights: UnsafePointer<__m256i>, taps: Int,
    into out: UnsafeMutablePointer<UInt8>, count: Int
  ) -> Int {
    let final = _mm256_set1_epi16(Int16(1 << (15 - ringSumShift)))
    @inline(__always) func sixteen(_ x: Int) -> __m256i {
      var sum = _mm256_mulhrs_epi16(UnsafeRawPointer(rows[0] + x).loadUnaligned(as: __m256i.self), weights[0])
      for t in 1..<taps {
        sum = _mm256_add_epi16(
          sum, _mm256_mulhrs_epi16(UnsafeRawPointer(rows[t] + x).loadUnaligned(as: __m256i.self), weights[t]))
      }
      return _mm256_mulhrs_epi16(sum, final)
    }
    @inline(__always) func step(_ x: Int) {
      // `packuswb` works within 128-bit halves: the quadwords come out 0, 2, 1, 3.
      let packed = _mm256_packus_epi16(sixteen(x), sixteen(x &+ 16))
      UnsafeMutableRawPointer(out).storeBytes(
        of: SIMD4(packed[0], packed[2], packed[1], packed[3]) as __m256i, toByteOffset: x, as: __m256i.self)
    }
    guard count >= 32 else { return 0 }
    var x = 0
    while x + 32 <= count {
      step(x)
      x &+= 32
    }
    // The rest as one step overlapping the last: the ring rows are not the destination,
    // so samples written twice get the same value.
    if x < count { step(count &- 32) }
    return count
  }
}
#endif
