import CamfxCore
#if CAMFX_AVX2 && arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// Scales one plane of 8-bit samples (1 channel: a Y, U or V plane; 4 interleaved
/// channels: BGRA) with a horizontal and a vertical `ResamplingTable`, one destination
/// row at a time:
///
///     source rows start[y] ..< start[y] + taps ──vertical──▶ one row of Int16 (6 extra bits)
///                                                 ──horizontal──▶ destination row y
///
/// Both passes are fixed point (14-bit weights); the vertical one keeps 6 fractional
/// bits in its 16-bit row, so the result is within ±1 of the same weights applied in
/// floating point and rounded (a test checks every method on odd sizes). Nothing is
/// allocated: the rows live in a `ScaleScratch` made at configure time.
///
/// With AVX2 (`PlaneScaler+AVX2.swift`) both passes compute the same sums as the
/// portable loops, so the results are bit-identical to them: the vertical pass with
/// `pmaddwd` (two taps per instruction) in one sweep over the row for all taps, or for
/// two-row windows as `64a + pmulhrsw(64(b − a), 2w)` (`verticalTwoRowsAVX2`), the
/// horizontal one from weights rearranged at configure time (`vectorWeights`) so that
/// each destination pixel or sample needs one load per pair (BGRA) or quad (1 channel)
/// of taps; LLVM vectorizes neither from the scalar loops. With AVX-512 BW
/// (`PlaneScaler+AVX512.swift`) the vertical pass takes 32 samples a step, and the
/// horizontal pass of a plane picks the taps of 16 samples at once out of a 64-sample
/// window (`windowPermutes`), where windows are that narrow.
///
/// A plane can also take the horizontal pass first (`PlaneScaler+HorizontalFirst.swift`),
/// which AVX2 builds without AVX-512 do wherever its byte windows fit: there the
/// horizontal pass widens the taps straight from the source bytes with `pshufb`, and
/// the vertical pass runs over the narrower destination row.
///
/// `area` at exactly 2:1 in both directions is the mean of each 2×2 block, rounded
/// (`(a + b + c + d + 2) / 4`), and runs as its own loop in 16-bit SIMD lanes; with
/// AVX2 (AVX-512 BW), `pmaddubsw` adds the byte pairs 32 (64) bytes at a time, since the
/// loop is bound by reading the source and LLVM does not form it from Swift SIMD code.
struct PlaneScaler: Sendable {
  let horizontal: ResamplingTable
  let vertical: ResamplingTable
  let channels: Int
  /// True for `area` at exactly 2:1 both ways: the 2×2 mean loop.
  let halves: Bool
  /// The horizontal weights rearranged for the AVX2 loop (empty without it, or when the
  /// AVX-512 loop runs).
  let vectorWeights: [Int16]
  /// A plane's horizontal pass laid out for the AVX-512 loop (nil without it, for BGRA,
  /// or when a window is too wide for it).
  let windowPermutes: WindowPermutes?

  /// Per group of 16 destination samples: where its 64-sample window starts in the
  /// row, and per pair of taps the 32 indices into that window and their 32 weights
  /// (`PlaneScaler+AVX512.swift`).
  struct WindowPermutes: Sendable {
    let pairs: Int
    let bases: [Int]
    let indices: [Int16]
    let weights: [Int16]
  }
  /// False: the portable loops even in a build with the intrinsic kernels (the tests
  /// compare the two byte for byte).
  let usesIntrinsics: Bool
  /// Which pass runs first (`PlaneScaler+HorizontalFirst.swift`).
  let order: PassOrder
  /// The horizontal-first order's source windows for the AVX2 loop (nil without it, or
  /// in the vertical-first order).
  let byteWindows: ByteWindows?

  /// - Parameter order: nil for the faster order on this build: horizontal first for a
  ///   plane whose windows fit `ByteWindows` in an AVX2 build without AVX-512 (whose
  ///   vertical-first kernels are faster), else vertical first. Horizontal first is
  ///   taken only where `canRunHorizontalFirst` allows it.
  init(
    method: ScaleMethod, from source: FrameGeometry, to destination: FrameGeometry, channels: Int,
    usesIntrinsics: Bool = true, order: PassOrder? = nil
  ) {
    horizontal = ResamplingTable(method: method, sourceLength: source.width, destinationLength: destination.width)
    vertical = ResamplingTable(method: method, sourceLength: source.height, destinationLength: destination.height)
    self.channels = channels
    halves = method == .area && source.width == 2 * destination.width && source.height == 2 * destination.height
    self.usesIntrinsics = usesIntrinsics
    let possible = Self.canRunHorizontalFirst(horizontal: horizontal, vertical: vertical, channels: channels, halves: halves)
    #if CAMFX_AVX2 && arch(x86_64)
    #if CAMFX_AVX512
    let windows = possible && order == .horizontalFirst ? ByteWindows.make(horizontal) : nil
    let preferred = PassOrder.verticalFirst
    #else
    let windows = possible && order != .verticalFirst ? ByteWindows.make(horizontal) : nil
    let preferred: PassOrder = windows != nil ? .horizontalFirst : .verticalFirst
    #endif
    #else
    let windows: ByteWindows? = nil
    let preferred = PassOrder.verticalFirst
    #endif
    self.order = possible && (order ?? preferred) == .horizontalFirst ? .horizontalFirst : .verticalFirst
    byteWindows = self.order == .horizontalFirst && usesIntrinsics ? windows : nil
    #if CAMFX_AVX512 && arch(x86_64)
    // Planes only: for BGRA (4 pixels a group) the AVX2 loop is faster.
    windowPermutes =
      halves || horizontal.isIdentity || !usesIntrinsics || channels != 1 || self.order == .horizontalFirst
      ? nil : WindowPermutes(horizontal)
    #else
    windowPermutes = nil
    #endif
    #if CAMFX_AVX2 && arch(x86_64)
    vectorWeights =
      halves || horizontal.isIdentity || !usesIntrinsics || windowPermutes != nil || self.order == .horizontalFirst
      ? [] : channels == 4 ? Self.bgraPairWeights(horizontal) : Self.planeQuadWeights(horizontal)
    #else
    vectorWeights = []
    #endif
  }

  /// Samples per row of the scratch rows this scaler needs.
  var scratchSamples: Int {
    order == .horizontalFirst ? max(horizontal.sourceLength * channels, ringSamples) : horizontal.sourceLength * channels
  }

  static let verticalShift: Int32 = 8  // 14 fractional bits in, 6 kept
  static let horizontalShift: Int32 = 20  // 14 + 6 fractional bits in, none kept

  func scale(
    _ source: UnsafePointer<UInt8>, sourceStride: Int,
    into destination: UnsafeMutablePointer<UInt8>, destinationStride: Int, scratch: ScaleScratch
  ) {
    if halves {
      halve(source, sourceStride: sourceStride, into: destination, destinationStride: destinationStride)
      return
    }
    if order == .horizontalFirst {
      scaleHorizontalFirst(
        source, sourceStride: sourceStride, into: destination, destinationStride: destinationStride, scratch: scratch)
      return
    }
    precondition(scratch.capacity >= scratchSamples, "scratch rows too short")
    let samples = scratchSamples
    let acc = scratch.accumulator, row = scratch.row
    let vTaps = vertical.tapCount
    vertical.fixed.withUnsafeBufferPointer { vWeights in
      for y in 0..<vertical.destinationLength {
        let first = vertical.start[y]
        // Vertical pass into `row`, with 6 fractional bits.
        if vertical.isIdentity {
          let s = source + first * sourceStride
          for x in 0..<samples { row[x] = Int16(s[x]) &<< 6 }
        } else {
          var done = 0
          #if CAMFX_AVX2 && arch(x86_64)
          let pairs = (vTaps + 1) / 2
          if usesIntrinsics {
            done = withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: 2 * pairs) { rows in
              withUnsafeTemporaryAllocation(of: __m256i.self, capacity: pairs) { weights in
                for k in 0..<2 * pairs { rows[k] = UnsafePointer(source + (first + min(k, vTaps - 1)) * sourceStride) }
                // Two-row windows use them too in AVX-512 builds, whose kernel runs first.
                Self.verticalPairWeights(vWeights.baseAddress!, row: y, taps: vTaps, into: weights.baseAddress!)
                let r = UnsafePointer(rows.baseAddress!), w = UnsafePointer(weights.baseAddress!)
                @inline(__always) func sweep(pairs: Int) -> Int {
                  var x = 0
                  #if CAMFX_AVX512
                  x = Self.verticalAVX512(r, weights: w, pairs: pairs, into: row, samples: samples)
                  #endif
                  return vTaps == 2
                    ? Self.verticalTwoRowsAVX2(r, weights: vWeights.baseAddress!, row: y, into: row, samples: samples, from: x)
                    : Self.verticalAVX2(r, weights: w, pairs: pairs, into: row, samples: samples, from: x)
                }
                // The pair count as a constant for the common windows, so that the loop
                // over pairs unrolls.
                switch pairs {
                case 1: return sweep(pairs: 1)
                case 2: return sweep(pairs: 2)
                case 3: return sweep(pairs: 3)
                default: return sweep(pairs: pairs)
                }
              }
            }
          }
          #endif
          var w = vWeights[y * vTaps]
          var s = source + first * sourceStride
          for x in done..<samples { acc[x] = Int32(s[x]) &* w }
          for k in 1..<max(vTaps, 1) {
            w = vWeights[y * vTaps + k]
            if w == 0 { continue }
            s = source + (first + k) * sourceStride
            for x in done..<samples { acc[x] = acc[x] &+ Int32(s[x]) &* w }
          }
          for x in done..<samples { row[x] = Int16(truncatingIfNeeded: (acc[x] &+ 128) &>> Self.verticalShift) }
        }
        horizontalPass(row, into: destination + y * destinationStride)
      }
    }
  }

  private func horizontalPass(_ row: UnsafeMutablePointer<Int16>, into out: UnsafeMutablePointer<UInt8>) {
    let count = horizontal.destinationLength
    if horizontal.isIdentity {
      for x in 0..<count * channels { out[x] = Self.clampByte((Int32(row[x]) &+ 32) &>> 6) }
      return
    }
    var done = 0
    #if CAMFX_AVX512 && arch(x86_64)
    if let windowPermutes { done = horizontalAVX512(row, into: out, windowPermutes) }
    #endif
    #if CAMFX_AVX2 && arch(x86_64)
    if !vectorWeights.isEmpty, channels == 4 {
      let pairs = (horizontal.tapCount + 1) / 2
      done = vectorWeights.withUnsafeBufferPointer { weights in
        horizontal.start.withUnsafeBufferPointer { starts in
          // The pair count as a constant for the common windows, so that the loop over
          // pairs unrolls.
          switch pairs {
          case 1: horizontalBGRAAVX2(row, into: out, pairs: 1, weights: weights.baseAddress!, starts: starts.baseAddress!)
          case 2: horizontalBGRAAVX2(row, into: out, pairs: 2, weights: weights.baseAddress!, starts: starts.baseAddress!)
          case 3: horizontalBGRAAVX2(row, into: out, pairs: 3, weights: weights.baseAddress!, starts: starts.baseAddress!)
          default:
            horizontalBGRAAVX2(row, into: out, pairs: pairs, weights: weights.baseAddress!, starts: starts.baseAddress!)
          }
        }
      }
    } else if !vectorWeights.isEmpty {
      let quads = (horizontal.tapCount + 3) / 4
      done = vectorWeights.withUnsafeBufferPointer { weights in
        horizontal.start.withUnsafeBufferPointer { starts in
          quads == 1
            ? horizontalPlaneAVX2(row, into: out, quads: 1, weights: weights.baseAddress!, starts: starts.baseAddress!)
            : horizontalPlaneAVX2(row, into: out, quads: quads, weights: weights.baseAddress!, starts: starts.baseAddress!)
        }
      }
    }
    #endif
    // The common window lengths get loops the compiler unrolls (a constant tap count).
    switch horizontal.tapCount {
    case 1: horizontalPass(row, into: out, from: done, taps: 1)
    case 2: horizontalPass(row, into: out, from: done, taps: 2)
    case 3: horizontalPass(row, into: out, from: done, taps: 3)
    case 4: horizontalPass(row, into: out, from: done, taps: 4)
    case 5: horizontalPass(row, into: out, from: done, taps: 5)
    case 6: horizontalPass(row, into: out, from: done, taps: 6)
    default: horizontalPass(row, into: out, from: done, taps: horizontal.tapCount)
    }
  }

  @inline(__always)
  private func horizontalPass(
    _ row: UnsafeMutablePointer<Int16>, into out: UnsafeMutablePointer<UInt8>, from done: Int, taps: Int
  ) {
    let count = horizontal.destinationLength
    horizontal.fixed.withUnsafeBufferPointer { weights in
      horizontal.start.withUnsafeBufferPointer { starts in
        let half: Int32 = 1 << (Self.horizontalShift - 1)
        if channels == 4 {
          let pixels = UnsafeRawPointer(row)
          let bytes = UnsafeMutableRawPointer(out)
          for x in done..<count {
            var sum = SIMD4<Int32>(repeating: half)
            let first = starts[x]
            for k in 0..<taps {
              let p = pixels.loadUnaligned(fromByteOffset: (first + k) * 8, as: SIMD4<Int16>.self)
              sum &+= SIMD4<Int32>(truncatingIfNeeded: p) &* weights[x * taps + k]
            }
            sum = sum &>> Self.horizontalShift
            let clamped = sum.clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255))
            bytes.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: clamped), toByteOffset: x * 4, as: SIMD4<UInt8>.self)
          }
        } else {
          for x in done..<count {
            var sum = half
            let first = starts[x]
            for k in 0..<taps { sum = sum &+ Int32(row[first + k]) &* weights[x * taps + k] }
            out[x] = Self.clampByte(sum &>> Self.horizontalShift)
          }
        }
      }
    }
  }

  /// The 2×2 means of a plane twice the destination's size.
  private func halve(
    _ source: UnsafePointer<UInt8>, sourceStride: Int, into destination: UnsafeMutablePointer<UInt8>, destinationStride: Int
  ) {
    let width = horizontal.destinationLength
    for y in 0..<vertical.destinationLength {
      let top = UnsafeRawPointer(source + 2 * y * sourceStride), bottom = top + sourceStride
      let out = UnsafeMutableRawPointer(destination + y * destinationStride)
      var x = 0
      #if CAMFX_AVX512 && arch(x86_64)
      if usesIntrinsics {
        x = Self.halveRowAVX512(top, bottom, into: out, width: width, channels: channels)
        x += Self.halveRowAVX2(top + 2 * channels * x, bottom + 2 * channels * x, into: out + channels * x, width: width - x, channels: channels)
      }
      #elseif CAMFX_AVX2 && arch(x86_64)
      if usesIntrinsics { x = Self.halveRowAVX2(top, bottom, into: out, width: width, channels: channels) }
      #endif
      if channels == 1 {
        // 16 outputs per step: each pair of source samples is one 16-bit lane.
        while x + 16 <= width {
          let t = top.loadUnaligned(fromByteOffset: 2 * x, as: SIMD16<UInt16>.self)
          let b = bottom.loadUnaligned(fromByteOffset: 2 * x, as: SIMD16<UInt16>.self)
          let sum = (t & 0xFF) &+ (t &>> 8) &+ (b & 0xFF) &+ (b &>> 8) &+ 2
          out.storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: sum &>> 2), toByteOffset: x, as: SIMD16<UInt8>.self)
          x += 16
        }
        let t = top.assumingMemoryBound(to: UInt8.self), b = bottom.assumingMemoryBound(to: UInt8.self)
        let o = out.assumingMemoryBound(to: UInt8.self)
        while x < width {
          o[x] = UInt8((UInt16(t[2 * x]) + UInt16(t[2 * x + 1]) + UInt16(b[2 * x]) + UInt16(b[2 * x + 1]) + 2) >> 2)
          x += 1
        }
      } else {
        // Two output pixels per step, from four source pixels of each row, widened to
        // 16-bit lanes: each output pixel is the sum of two neighbouring 4-lane groups.
        while x + 2 <= width {
          let t = SIMD16<UInt16>(truncatingIfNeeded: top.loadUnaligned(fromByteOffset: 8 * x, as: SIMD16<UInt8>.self))
          let b = SIMD16<UInt16>(truncatingIfNeeded: bottom.loadUnaligned(fromByteOffset: 8 * x, as: SIMD16<UInt8>.self))
          let s = t &+ b
          let first = s.lowHalf.lowHalf &+ s.lowHalf.highHalf &+ 2
          let second = s.highHalf.lowHalf &+ s.highHalf.highHalf &+ 2
          let pair = SIMD8<UInt16>(lowHalf: first &>> 2, highHalf: second &>> 2)
          out.storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: pair), toByteOffset: 4 * x, as: SIMD8<UInt8>.self)
          x += 2
        }
        while x < width {
          let t = SIMD4<UInt16>(truncatingIfNeeded: top.loadUnaligned(fromByteOffset: 8 * x, as: SIMD4<UInt8>.self))
            &+ SIMD4<UInt16>(truncatingIfNeeded: top.loadUnaligned(fromByteOffset: 8 * x + 4, as: SIMD4<UInt8>.self))
          let b = SIMD4<UInt16>(truncatingIfNeeded: bottom.loadUnaligned(fromByteOffset: 8 * x, as: SIMD4<UInt8>.self))
            &+ SIMD4<UInt16>(truncatingIfNeeded: bottom.loadUnaligned(fromByteOffset: 8 * x + 4, as: SIMD4<UInt8>.self))
          out.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: (t &+ b &+ 2) &>> 2), toByteOffset: 4 * x, as: SIMD4<UInt8>.self)
          x += 1
        }
      }
    }
  }

  @inline(__always)
  static func clampByte(_ v: Int32) -> UInt8 {
    UInt8(truncatingIfNeeded: min(max(v, 0), 255))
  }
}

/// The rows a `PlaneScaler` works in, made once at configure time.
///
/// `@unchecked Sendable`: a filter's scratch is used only by the filter stage's thread,
/// one frame at a time (copies of a configured filter share it, but never run at once).
final class ScaleScratch: @unchecked Sendable {
  let capacity: Int
  let accumulator: UnsafeMutablePointer<Int32>
  let row: UnsafeMutablePointer<Int16>

  init(samples: Int) {
    capacity = max(samples, 1)
    accumulator = .allocate(capacity: capacity)
    accumulator.initialize(repeating: 0, count: capacity)
    // + 64: the AVX-512 horizontal pass loads 64 samples from a window's start.
    row = .allocate(capacity: capacity + 64)
    row.initialize(repeating: 0, count: capacity + 64)
  }

  deinit {
    accumulator.deallocate()
    row.deallocate()
  }
}
