// Compiled only when the build defines CAMFX_AVX2 (see the Makefile): Swift has no `#if`
// for CPU features, and the intrinsics below crash the compiler when the target CPU
// lacks AVX2.
#if CAMFX_AVX2 && arch(x86_64)
import Synchronization
import _Builtin_intrinsics.intel

extension Rotate {
  /// A quarter turn of 32-bit pixels, blocks of 16 source rows by 8 columns (two 8×8
  /// transposes). The frame is walked in strips of 16 source rows, left to right, as
  /// libyuv walks it: the source is read as 16 sequential streams the hardware
  /// prefetches, and each block writes 64 bytes, a whole cache line, to each of its 8
  /// destination rows. Where those lines are aligned the stores bypass the cache
  /// (`vmovntdq`): a frame this size leaves the cache before it is read again, and a
  /// whole line written so needs no read of the line from memory first. Each 8×8
  /// transpose loads rows k and k + 4 into the two halves of one register and shuffles
  /// within the halves (unpacks of 32 then 64 bits), so no shuffle crosses a half.
  static func quarterTurnPixelsAVX2(
    _ source: UnsafePointer<UInt32>, sourceStride: Int, width: Int, height: Int,
    into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int, clockwise: Bool
  ) {
    @inline(__always) func sourceRow(_ x: Int) -> Int { clockwise ? height - 1 - x : x }
    @inline(__always) func sourceColumn(_ y: Int) -> Int { clockwise ? y : width - 1 - y }
    let raw = UnsafeRawPointer(source), out = UnsafeMutableRawPointer(destination)
    let rowBytes = sourceStride * 4, outRowBytes = destinationStride * 4
    // Lines can be streamed whole when every block's 64 bytes start a line.
    let aligned = Int(bitPattern: out) % 64 == 0 && outRowBytes % 64 == 0
    forEachStrip(width: height, height: width, across: 16, along: 8) { x, y in
      let column = clockwise ? y : width - 8 - y
      // Rows x + k and x + 4 + k of the strip, columns `column` + 0…3 (low) and 4…7 (high).
      let base = raw + column * 4
      @inline(__always) func row(_ k: Int) -> UnsafeRawPointer { base + sourceRow(x + k) * rowBytes }
      @inline(__always) func pair(_ k: Int, _ half: Int) -> __m256i {
        _mm256_set_m128i(
          row(k + 4).loadUnaligned(fromByteOffset: half * 16, as: __m128i.self),
          row(k).loadUnaligned(fromByteOffset: half * 16, as: __m128i.self))
      }
      let target = out + y * outRowBytes + x * 4
      let streams = aligned && x % 16 == 0
      @inline(__always) func store(_ v: __m256i, _ w: __m256i, _ j: Int) {
        let line = target + (clockwise ? j : 7 - j) * outRowBytes
        if streams {
          _mm256_stream_si256(line, v)
          _mm256_stream_si256(line + 32, w)
        } else {
          line.storeBytes(of: v, as: __m256i.self)
          line.storeBytes(of: w, toByteOffset: 32, as: __m256i.self)
        }
      }
      for half in 0..<2 {
        // The first 8 rows of the strip (k = 0…3) and the next 8 (k = 8…11).
        let a0 = pair(0, half), a1 = pair(1, half), a2 = pair(2, half), a3 = pair(3, half)
        let b0 = pair(8, half), b1 = pair(9, half), b2 = pair(10, half), b3 = pair(11, half)
        let t0 = _mm256_unpacklo_epi32(a0, a1), t1 = _mm256_unpackhi_epi32(a0, a1)
        let t2 = _mm256_unpacklo_epi32(a2, a3), t3 = _mm256_unpackhi_epi32(a2, a3)
        let u0 = _mm256_unpacklo_epi32(b0, b1), u1 = _mm256_unpackhi_epi32(b0, b1)
        let u2 = _mm256_unpacklo_epi32(b2, b3), u3 = _mm256_unpackhi_epi32(b2, b3)
        // Column half·4 + j of the block, rows 0…3 | 4…7 (and 8…11 | 12…15): destination
        // row y + that column, pixels x ..< x + 8 and x + 8 ..< x + 16.
        store(_mm256_unpacklo_epi64(t0, t2), _mm256_unpacklo_epi64(u0, u2), half * 4)
        store(_mm256_unpackhi_epi64(t0, t2), _mm256_unpackhi_epi64(u0, u2), half * 4 + 1)
        store(_mm256_unpacklo_epi64(t1, t3), _mm256_unpacklo_epi64(u1, u3), half * 4 + 2)
        store(_mm256_unpackhi_epi64(t1, t3), _mm256_unpackhi_epi64(u1, u3), half * 4 + 3)
      }
    } edge: { x, y in
      destination[y * destinationStride + x] = source[sourceRow(x) * sourceStride + sourceColumn(y)]
    }
    // The streamed stores are seen before anything after the turn (another thread's
    // read of the frame, once it is handed on): x86's ordinary ordering does not cover
    // them, and Swift sees `_mm_sfence` only as a declaration, so a full fence.
    atomicMemoryFence(ordering: .sequentiallyConsistent)
  }

  /// A quarter turn of 8-bit samples. The core is a block of 32 source rows by 16
  /// columns: the 16×16 byte transpose of `quarterTurnBytesSSE2` (four rounds of byte
  /// interleaves) run on two blocks at once, rows x + k in the low half of each register
  /// and x + 16 + k in the high half, so each result register is 32 consecutive bytes of
  /// a destination row.
  ///
  /// Planes smaller than `streamingPlaneBytes` (or less than 64 rows high) are walked
  /// along the destination, as FFmpeg's `transpose` walks them: a strip of 16
  /// destination rows (16 source columns) at a time, 32 source rows a step, so each
  /// destination row is written front to back, and the source lines one strip reads
  /// stay in L2 for the next three. Larger planes are walked in strips of 64 source
  /// rows, left to right (sequential streams the hardware prefetches), two blocks a
  /// step: the first block's rows wait in a small buffer in L1, so each destination row
  /// gets a whole 64-byte line at once, streamed past the cache where the lines are
  /// aligned (as `quarterTurnPixelsAVX2` does).
  ///
  /// The smallest plane turned with streamed stores. A 720p or 1080p plane stays in the
  /// last-level cache for whoever reads it next, so streaming it out to memory costs
  /// more than it saves: on AMD Zen 3 both sizes turned faster with ordinary stores,
  /// hot and cold. A 4K luma plane is past that (walked along the destination, it was
  /// slower on both), and streaming keeps it from pushing everything else out of the
  /// cache.
  static let streamingPlaneBytes = 4 << 20

  static func quarterTurnBytesAVX2(
    _ source: UnsafePointer<UInt8>, sourceStride: Int, width: Int, height: Int,
    into destination: UnsafeMutablePointer<UInt8>, destinationStride: Int, clockwise: Bool
  ) {
    @inline(__always) func sourceRow(_ x: Int) -> Int { clockwise ? height - 1 - x : x }
    @inline(__always) func sourceColumn(_ y: Int) -> Int { clockwise ? y : width - 1 - y }
    let raw = UnsafeRawPointer(source), out = UnsafeMutableRawPointer(destination)
    typealias Rows = (
      __m256i, __m256i, __m256i, __m256i, __m256i, __m256i, __m256i, __m256i,
      __m256i, __m256i, __m256i, __m256i, __m256i, __m256i, __m256i, __m256i
    )
    // Source rows x ..< x + 32, columns `column` ..< + 16, transposed: element k is bytes
    // x ..< x + 32 of the destination row for source column `column` + k. The rows are
    // reached by stepping a pointer (`rowStep` bytes) rather than by 32 offsets, which
    // the compiler would keep on the stack.
    let rowStep = clockwise ? -sourceStride : sourceStride
    @inline(__always) func transpose(_ x: Int, _ column: Int) -> Rows {
      var low = raw + (sourceRow(x) &* sourceStride &+ column), high = low + 16 &* rowStep
      @inline(__always) func load() -> __m256i {
        let v = _mm256_set_m128i(high.loadUnaligned(as: __m128i.self), low.loadUnaligned(as: __m128i.self))
        low += rowStep
        high += rowStep
        return v
      }
      let r0 = load(), r1 = load(), r2 = load(), r3 = load(), r4 = load(), r5 = load(), r6 = load(), r7 = load()
      let r8 = load(), r9 = load(), r10 = load(), r11 = load(), r12 = load(), r13 = load(), r14 = load()
      let r15 = load()
      let a0 = _mm256_unpacklo_epi8(r0, r8), a1 = _mm256_unpackhi_epi8(r0, r8)
      let a2 = _mm256_unpacklo_epi8(r1, r9), a3 = _mm256_unpackhi_epi8(r1, r9)
      let a4 = _mm256_unpacklo_epi8(r2, r10), a5 = _mm256_unpackhi_epi8(r2, r10)
      let a6 = _mm256_unpacklo_epi8(r3, r11), a7 = _mm256_unpackhi_epi8(r3, r11)
      let a8 = _mm256_unpacklo_epi8(r4, r12), a9 = _mm256_unpackhi_epi8(r4, r12)
      let a10 = _mm256_unpacklo_epi8(r5, r13), a11 = _mm256_unpackhi_epi8(r5, r13)
      let a12 = _mm256_unpacklo_epi8(r6, r14), a13 = _mm256_unpackhi_epi8(r6, r14)
      let a14 = _mm256_unpacklo_epi8(r7, r15), a15 = _mm256_unpackhi_epi8(r7, r15)
      let b0 = _mm256_unpacklo_epi8(a0, a8), b1 = _mm256_unpackhi_epi8(a0, a8)
      let b2 = _mm256_unpacklo_epi8(a1, a9), b3 = _mm256_unpackhi_epi8(a1, a9)
      let b4 = _mm256_unpacklo_epi8(a2, a10), b5 = _mm256_unpackhi_epi8(a2, a10)
      let b6 = _mm256_unpacklo_epi8(a3, a11), b7 = _mm256_unpackhi_epi8(a3, a11)
      let b8 = _mm256_unpacklo_epi8(a4, a12), b9 = _mm256_unpackhi_epi8(a4, a12)
      let b10 = _mm256_unpacklo_epi8(a5, a13), b11 = _mm256_unpackhi_epi8(a5, a13)
      let b12 = _mm256_unpacklo_epi8(a6, a14), b13 = _mm256_unpackhi_epi8(a6, a14)
      let b14 = _mm256_unpacklo_epi8(a7, a15), b15 = _mm256_unpackhi_epi8(a7, a15)
      let c0 = _mm256_unpacklo_epi8(b0, b8), c1 = _mm256_unpackhi_epi8(b0, b8)
      let c2 = _mm256_unpacklo_epi8(b1, b9), c3 = _mm256_unpackhi_epi8(b1, b9)
      let c4 = _mm256_unpacklo_epi8(b2, b10), c5 = _mm256_unpackhi_epi8(b2, b10)
      let c6 = _mm256_unpacklo_epi8(b3, b11), c7 = _mm256_unpackhi_epi8(b3, b11)
      let c8 = _mm256_unpacklo_epi8(b4, b12), c9 = _mm256_unpackhi_epi8(b4, b12)
      let c10 = _mm256_unpacklo_epi8(b5, b13), c11 = _mm256_unpackhi_epi8(b5, b13)
      let c12 = _mm256_unpacklo_epi8(b6, b14), c13 = _mm256_unpackhi_epi8(b6, b14)
      let c14 = _mm256_unpacklo_epi8(b7, b15), c15 = _mm256_unpackhi_epi8(b7, b15)
      return (
        _mm256_unpacklo_epi8(c0, c8), _mm256_unpackhi_epi8(c0, c8), _mm256_unpacklo_epi8(c1, c9),
        _mm256_unpackhi_epi8(c1, c9), _mm256_unpacklo_epi8(c2, c10), _mm256_unpackhi_epi8(c2, c10),
        _mm256_unpacklo_epi8(c3, c11), _mm256_unpackhi_epi8(c3, c11), _mm256_unpacklo_epi8(c4, c12),
        _mm256_unpackhi_epi8(c4, c12), _mm256_unpacklo_epi8(c5, c13), _mm256_unpackhi_epi8(c5, c13),
        _mm256_unpacklo_epi8(c6, c14), _mm256_unpackhi_epi8(c6, c14), _mm256_unpacklo_epi8(c7, c15),
        _mm256_unpackhi_epi8(c7, c15)
      )
    }
    // Register k is destination row y + k (clockwise) or y + 15 − k.
    @inline(__always) func line(_ x: Int, _ y: Int, _ k: Int) -> UnsafeMutableRawPointer {
      out + (y + (clockwise ? k : 15 - k)) * destinationStride + x
    }
    guard height >= 64, width * height >= streamingPlaneBytes else {
      let lineStep = clockwise ? destinationStride : -destinationStride
      forEachStrip(width: height, height: width, across: 32, along: 16, order: .destinationRows) { x, y in
        let t = transpose(x, clockwise ? y : width - 16 - y)
        var target = line(x, y, 0)
        @inline(__always) func put(_ v: __m256i) {
          target.storeBytes(of: v, as: __m256i.self)
          target += lineStep
        }
        put(t.0); put(t.1); put(t.2); put(t.3); put(t.4); put(t.5); put(t.6); put(t.7)
        put(t.8); put(t.9); put(t.10); put(t.11); put(t.12); put(t.13); put(t.14); put(t.15)
      } edge: { x, y in
        destination[y * destinationStride + x] = source[sourceRow(x) * sourceStride + sourceColumn(y)]
      }
      return
    }
    let aligned = Int(bitPattern: out) % 64 == 0 && destinationStride % 64 == 0
    forEachStrip(width: height, height: width, across: 64, along: 16) { x, y in
      let column = clockwise ? y : width - 16 - y
      let first = transpose(x, column), second = transpose(x + 32, column)
      withUnsafeBytes(of: first) { a in
        withUnsafeBytes(of: second) { b in
          let streams = aligned && x % 64 == 0
          for k in 0..<16 {
            let left = a.loadUnaligned(fromByteOffset: 32 * k, as: __m256i.self)
            let right = b.loadUnaligned(fromByteOffset: 32 * k, as: __m256i.self)
            let target = line(x, y, k)
            if streams {
              _mm256_stream_si256(target, left)
              _mm256_stream_si256(target + 32, right)
            } else {
              target.storeBytes(of: left, as: __m256i.self)
              target.storeBytes(of: right, toByteOffset: 32, as: __m256i.self)
            }
          }
        }
      }
    } edge: { x, y in
      destination[y * destinationStride + x] = source[sourceRow(x) * sourceStride + sourceColumn(y)]
    }
    atomicMemoryFence(ordering: .sequentiallyConsistent)
  }

  /// A half turn of 32-bit pixels: each destination row is a source row read from its
  /// end, 8 pixels at a time reversed with one `vpermd`.
  static func halfTurnPixelsAVX2(
    _ source: UnsafePointer<UInt32>, sourceStride: Int, width: Int, height: Int,
    into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int
  ) {
    let reversed = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)
    for y in 0..<height {
      let from = UnsafeRawPointer(source + (height - 1 - y) * sourceStride)
      let to = UnsafeMutableRawPointer(destination + y * destinationStride)
      var x = 0
      while x + 8 <= width {
        let v = from.loadUnaligned(fromByteOffset: (width - 8 - x) * 4, as: __m256i.self)
        to.storeBytes(of: _mm256_permutevar8x32_epi32(v, reversed), toByteOffset: x * 4, as: __m256i.self)
        x += 8
      }
      let s = source + (height - 1 - y) * sourceStride + width - 1, d = destination + y * destinationStride
      while x < width {
        d[x] = s[-x]
        x += 1
      }
    }
  }

  /// A half turn of 8-bit samples, 32 at a time: bytes reversed within each half
  /// (`pshufb`), then the halves swapped (`vpermd`).
  static func halfTurnBytesAVX2(
    _ source: UnsafePointer<UInt8>, sourceStride: Int, width: Int, height: Int,
    into destination: UnsafeMutablePointer<UInt8>, destinationStride: Int
  ) {
    let reversedBytes = _mm256_setr_epi8(
      15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
    let swappedHalves = _mm256_setr_epi32(4, 5, 6, 7, 0, 1, 2, 3)
    for y in 0..<height {
      let from = UnsafeRawPointer(source + (height - 1 - y) * sourceStride)
      let to = UnsafeMutableRawPointer(destination + y * destinationStride)
      var x = 0
      while x + 64 <= width {
        let a = _mm256_shuffle_epi8(from.loadUnaligned(fromByteOffset: width - 32 - x, as: __m256i.self), reversedBytes)
        let b = _mm256_shuffle_epi8(from.loadUnaligned(fromByteOffset: width - 64 - x, as: __m256i.self), reversedBytes)
        to.storeBytes(of: _mm256_permutevar8x32_epi32(a, swappedHalves), toByteOffset: x, as: __m256i.self)
        to.storeBytes(of: _mm256_permutevar8x32_epi32(b, swappedHalves), toByteOffset: x + 32, as: __m256i.self)
        x += 64
      }
      while x + 32 <= width {
        let v = _mm256_shuffle_epi8(from.loadUnaligned(fromByteOffset: width - 32 - x, as: __m256i.self), reversedBytes)
        to.storeBytes(of: _mm256_permutevar8x32_epi32(v, swappedHalves), toByteOffset: x, as: __m256i.self)
        x += 32
      }
      let s = source + (height - 1 - y) * sourceStride + width - 1, d = destination + y * destinationStride
      while x < width {
        d[x] = s[-x]
        x += 1
      }
    }
  }
}
#endif
