/// The other order of the two passes, for 1-channel planes:
///
///     source row r ──horizontal──▶ ring row (Int16, 6 extra bits), once per source row
///     ring rows start[y] ..< start[y] + taps ──vertical──▶ destination row y
///
/// The horizontal pass then reads bytes, not 16-bit samples, so with AVX2 a 16-byte
/// window of the source row gives four destination samples' taps with one `pshufb` a
/// pair of taps, already widened (`ByteWindows`); the vertical pass runs over the
/// destination's width, not the source's. Each source row is scaled once and kept in a
/// ring of `taps` rows in the scratch until no later destination row needs it. The
/// rounding is the same as the vertical-first order's (6 fractional bits kept between
/// the passes), and its vertical pass rounds each product (see `ringProduct`), so the
/// result is within ±1 of floating point too, but not bit-identical to the other
/// order's: the two round at different places.
extension PlaneScaler {
  enum PassOrder: Sendable {
    case verticalFirst
    case horizontalFirst
  }

  /// Whether the horizontal-first order can run on these tables at all (1-channel,
  /// both passes resampling, and vertical windows short enough for `ringProduct`'s
  /// rounding to keep the result within ±1).
  static func canRunHorizontalFirst(
    horizontal: ResamplingTable, vertical: ResamplingTable, channels: Int, halves: Bool
  ) -> Bool {
    channels == 1 && !halves && !horizontal.isIdentity && !vertical.isIdentity
      && vertical.tapCount <= maximumRingTaps
  }

  /// The longest vertical window of the horizontal-first order (see `ringProduct`).
  static let maximumRingTaps = 24

  /// The ring slot after `slot` (ring rows are reused in turn, `taps` of them).
  @inline(__always)
  static func nextRingSlot(after slot: Int, taps: Int) -> Int { slot + 1 == taps ? 0 : slot + 1 }

  /// Int16 samples between two ring rows: whole 32-sample steps of the vertical pass.
  static func ringStride(_ width: Int) -> Int { (width + 31) & ~31 }

  /// Int16 samples of scratch the horizontal-first order needs.
  var ringSamples: Int { vertical.tapCount * Self.ringStride(horizontal.destinationLength) }

  /// How the AVX2 horizontal pass reads a source row: per group of 16 destination
  /// samples, two vectors (samples 0…3 and 8…11 in the 128-bit halves of the first,
  /// 4…7 and 12…15 of the second, so that `packssdw` of the two leaves them in order),
  /// each half loading 16 source bytes from its own `base`; per pair of taps, a `pshufb`
  /// mask that puts each sample's two source bytes, widened to 16 bits, in its 32-bit
  /// lane, and the pair's two weights beside them for `pmaddwd`.
  ///
  /// Built only when every group's four samples find all their taps in their 16 bytes:
  /// the windows span 3 × the step between samples plus the taps (bicubic down to about
  /// 1:2). Bases never pass 16 bytes before the row's end, so nothing past it is read.
  struct ByteWindows: Sendable {
    /// Destination samples: whole groups of 16, the last one overlapping the one before
    /// where `length` is not a multiple of 16.
    let length: Int
    let groups: Int
    let pairs: Int
    /// Per group, 4 byte offsets into the source row (first vector's halves, then the
    /// second's).
    let bases: [Int32]
    /// Per group, per vector, per pair: 32 bytes of `pshufb` control.
    let masks: [UInt8]
    /// Per group, per vector, per pair: 16 weights (a 32-bit lane's two, four lanes a half).
    let weights: [Int16]

    /// The first of the 16 destination samples of group `g`.
    @inline(__always)
    static func firstSample(group g: Int, length: Int) -> Int { min(16 &* g, length &- 16) }

    /// Which destination sample of a group lane `l` (0…3) of half `h` of vector `v` computes.
    static func sample(vector v: Int, half h: Int, lane l: Int) -> Int { 8 * h + 4 * v + l }

    /// Nil when some group's taps do not fit its windows.
    static func make(_ table: ResamplingTable) -> ByteWindows? {
      let taps = table.tapCount, sourceLength = table.sourceLength, length = table.destinationLength
      guard sourceLength >= 16, length >= 16, taps <= 16 else { return nil }
      let groups = (length + 15) / 16, pairs = (taps + 1) / 2
      var bases = [Int32](repeating: 0, count: groups * 4)
      var masks = [UInt8](repeating: 0x80, count: groups * 2 * pairs * 32)
      var weights = [Int16](repeating: 0, count: groups * 2 * pairs * 16)
      for g in 0..<groups {
        for v in 0..<2 {
          for h in 0..<2 {
            let xs = (0..<4).map { firstSample(group: g, length: length) + sample(vector: v, half: h, lane: $0) }
            let base = min(xs.map { table.start[$0] }.min()!, sourceLength - 16)
            bases[4 * g + 2 * v + h] = Int32(base)
            for (l, x) in xs.enumerated() {
              for t in 0..<taps {
                let at = table.start[x] + t - base
                guard at >= 0, at < 16 else { return nil }
                let vector = (g * 2 + v) * pairs + t / 2
                // Lane l's 32 bits: sample of tap 2p, then of tap 2p + 1, each a byte and a zero.
                masks[vector * 32 + 16 * h + 4 * l + 2 * (t & 1)] = UInt8(at)
                weights[vector * 16 + 8 * h + 2 * l + (t & 1)] = Int16(table.fixed[x * taps + t])
              }
            }
          }
        }
      }
      return ByteWindows(length: length, groups: groups, pairs: pairs, bases: bases, masks: masks, weights: weights)
    }
  }

  /// Scales with the horizontal pass first (see above); the portable loops finish what
  /// the AVX2 kernels leave.
  func scaleHorizontalFirst(
    _ source: UnsafePointer<UInt8>, sourceStride: Int,
    into destination: UnsafeMutablePointer<UInt8>, destinationStride: Int, scratch: ScaleScratch
  ) {
    precondition(scratch.capacity >= ringSamples, "scratch rows too short")
    let width = horizontal.destinationLength, taps = vertical.tapCount, stride = Self.ringStride(width)
    let ring = scratch.row, acc = scratch.accumulator
    withUnsafeTemporaryAllocation(of: Int.self, capacity: taps) { held in
      held.initialize(repeating: -1)
      vertical.fixed.withUnsafeBufferPointer { vWeights in
        for y in 0..<vertical.destinationLength {
          let first = vertical.start[y]
          var slot = first % taps
          for r in first..<first + taps {
            if held[slot] != r {
              horizontalFromBytes(source + r * sourceStride, into: ring + slot * stride)
              held[slot] = r
            }
            slot = Self.nextRingSlot(after: slot, taps: taps)
          }
          let out = destination + y * destinationStride
          var done = 0
          #if CAMFX_AVX2 && arch(x86_64)
          if usesIntrinsics { done = verticalFromRing(ring, stride: stride, y: y, weights: vWeights.baseAddress!, into: out) }
          #endif
          if done == width { continue }
          for x in done..<width { acc[x] = 0 }
          slot = first % taps
          for k in 0..<taps {
            let w = vWeights[y * taps + k], s = UnsafePointer(ring + slot * stride)
            for x in done..<width { acc[x] = acc[x] &+ Self.ringProduct(s[x], w) }
            slot = Self.nextRingSlot(after: slot, taps: taps)
          }
          let half: Int32 = 1 << (Self.ringSumShift - 1)
          for x in done..<width { out[x] = Self.clampByte((acc[x] &+ half) &>> Self.ringSumShift) }
        }
      }
    }
  }

  /// One term of the vertical pass over the ring: a ring sample (6 fractional bits) times
  /// its weight (14), rounded to 5 fractional bits, as `pmulhrsw` computes it in one
  /// 16-bit lane: `(s·w + 2^14) >> 15`. Each term is within 1/64 of exact and each ring
  /// sample within 1/128, so a window of n taps is within n/64 + 1.33/128 of the exact
  /// value: under 1/2 up to `maximumRingTaps`, and the result, rounded, is within ±1
  /// of the exact value rounded. The terms' sum fits 16 bits: a ring sample is at most
  /// 255·64 times the sum of the horizontal weights' magnitudes (about 1.33 at most,
  /// bicubic's), and a sum of terms at most half of that times the vertical ones',
  /// about 14 400: below 2^15.
  @inline(__always)
  static func ringProduct(_ sample: Int16, _ weight: Int32) -> Int32 {
    (Int32(sample) &* weight &+ (1 << 14)) &>> 15
  }

  /// The fractional bits of a sum of `ringProduct`s.
  static let ringSumShift: Int32 = 5

  /// One source row's horizontal pass into a ring row, 6 fractional bits kept (rounded,
  /// and saturated to 16 bits as `packssdw` does).
  private func horizontalFromBytes(_ s: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<Int16>) {
    var done = 0
    #if CAMFX_AVX2 && arch(x86_64)
    if let byteWindows { done = horizontalFromBytesAVX2(s, into: row, byteWindows) }
    #endif
    let taps = horizontal.tapCount
    let half: Int32 = 1 << (Self.verticalShift - 1)
    horizontal.fixed.withUnsafeBufferPointer { weights in
      horizontal.start.withUnsafeBufferPointer { starts in
        for x in done..<horizontal.destinationLength {
          var sum = half
          let first = starts[x]
          for k in 0..<taps { sum = sum &+ Int32(s[first + k]) &* weights[x * taps + k] }
          row[x] = Int16(clamping: sum &>> Self.verticalShift)
        }
      }
    }
  }
}
