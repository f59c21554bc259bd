#if arch(x86_64)
import _Builtin_intrinsics.intel

extension Rotate {
  /// A quarter turn of 8-bit samples, 16×16 blocks at a time with SSE2 (every x86-64
  /// has it): sixteen source rows are loaded and transposed in four rounds of byte
  /// interleaves (`punpcklbw`/`punpckhbw` of registers m and m + 8). Each round moves
  /// the byte at (register R, position B) to register (R mod 8)·2 + B/8, position
  /// (B mod 8)·2 + R/8: the 8-bit index R·16 + B turns one bit to the left, so after
  /// four rounds register and position have traded places. Bit-identical to the 8×8
  /// scalar transpose.
  static func quarterTurnBytesSSE2(
    _ source: UnsafePointer<UInt8>, sourceStride: Int, width: Int, height: Int,
    into destination: UnsafeMutablePointer<UInt8>, destinationStride: Int, clockwise: Bool
  ) {
    @inline(__always) func sourceRow(_ x: Int) -> Int { clockwise ? height - 1 - x : x }
    @inline(__always) func sourceColumn(_ y: Int) -> Int { clockwise ? y : width - 1 - y }
    let raw = UnsafeRawPointer(source), out = UnsafeMutableRawPointer(destination)
    forEachBlock(width: height, height: width, size: 16) { x, y in
      let column = clockwise ? y : width - 16 - y
      @inline(__always) func load(_ k: Int) -> __m128i {
        raw.loadUnaligned(fromByteOffset: sourceRow(x + k) * sourceStride + column, as: __m128i.self)
      }
      let r0 = load(0), r1 = load(1), r2 = load(2), r3 = load(3), r4 = load(4), r5 = load(5), r6 = load(6), r7 = load(7)
      let r8 = load(8), r9 = load(9), r10 = load(10), r11 = load(11), r12 = load(12), r13 = load(13), r14 = load(14)
      let r15 = load(15)
      let a0 = _mm_unpacklo_epi8(r0, r8), a1 = _mm_unpackhi_epi8(r0, r8)
      let a2 = _mm_unpacklo_epi8(r1, r9), a3 = _mm_unpackhi_epi8(r1, r9)
      let a4 = _mm_unpacklo_epi8(r2, r10), a5 = _mm_unpackhi_epi8(r2, r10)
      let a6 = _mm_unpacklo_epi8(r3, r11), a7 = _mm_unpackhi_epi8(r3, r11)
      let a8 = _mm_unpacklo_epi8(r4, r12), a9 = _mm_unpackhi_epi8(r4, r12)
      let a10 = _mm_unpacklo_epi8(r5, r13), a11 = _mm_unpackhi_epi8(r5, r13)
      let a12 = _mm_unpacklo_epi8(r6, r14), a13 = _mm_unpackhi_epi8(r6, r14)
      let a14 = _mm_unpacklo_epi8(r7, r15), a15 = _mm_unpackhi_epi8(r7, r15)
      let b0 = _mm_unpacklo_epi8(a0, a8), b1 = _mm_unpackhi_epi8(a0, a8)
      let b2 = _mm_unpacklo_epi8(a1, a9), b3 = _mm_unpackhi_epi8(a1, a9)
      let b4 = _mm_unpacklo_epi8(a2, a10), b5 = _mm_unpackhi_epi8(a2, a10)
      let b6 = _mm_unpacklo_epi8(a3, a11), b7 = _mm_unpackhi_epi8(a3, a11)
      let b8 = _mm_unpacklo_epi8(a4, a12), b9 = _mm_unpackhi_epi8(a4, a12)
      let b10 = _mm_unpacklo_epi8(a5, a13), b11 = _mm_unpackhi_epi8(a5, a13)
      let b12 = _mm_unpacklo_epi8(a6, a14), b13 = _mm_unpackhi_epi8(a6, a14)
      let b14 = _mm_unpacklo_epi8(a7, a15), b15 = _mm_unpackhi_epi8(a7, a15)
      let c0 = _mm_unpacklo_epi8(b0, b8), c1 = _mm_unpackhi_epi8(b0, b8)
      let c2 = _mm_unpacklo_epi8(b1, b9), c3 = _mm_unpackhi_epi8(b1, b9)
      let c4 = _mm_unpacklo_epi8(b2, b10), c5 = _mm_unpackhi_epi8(b2, b10)
      let c6 = _mm_unpacklo_epi8(b3, b11), c7 = _mm_unpackhi_epi8(b3, b11)
      let c8 = _mm_unpacklo_epi8(b4, b12), c9 = _mm_unpackhi_epi8(b4, b12)
      let c10 = _mm_unpacklo_epi8(b5, b13), c11 = _mm_unpackhi_epi8(b5, b13)
      let c12 = _mm_unpacklo_epi8(b6, b14), c13 = _mm_unpackhi_epi8(b6, b14)
      let c14 = _mm_unpacklo_epi8(b7, b15), c15 = _mm_unpackhi_epi8(b7, b15)
      let d0 = _mm_unpacklo_epi8(c0, c8), d1 = _mm_unpackhi_epi8(c0, c8)
      let d2 = _mm_unpacklo_epi8(c1, c9), d3 = _mm_unpackhi_epi8(c1, c9)
      let d4 = _mm_unpacklo_epi8(c2, c10), d5 = _mm_unpackhi_epi8(c2, c10)
      let d6 = _mm_unpacklo_epi8(c3, c11), d7 = _mm_unpackhi_epi8(c3, c11)
      let d8 = _mm_unpacklo_epi8(c4, c12), d9 = _mm_unpackhi_epi8(c4, c12)
      let d10 = _mm_unpacklo_epi8(c5, c13), d11 = _mm_unpackhi_epi8(c5, c13)
      let d12 = _mm_unpacklo_epi8(c6, c14), d13 = _mm_unpackhi_epi8(c6, c14)
      let d14 = _mm_unpacklo_epi8(c7, c15), d15 = _mm_unpackhi_epi8(c7, c15)
      // Register k of the transpose is destination row y + k (clockwise) or y + 15 − k.
      let base = y * destinationStride + x
      @inline(__always) func store(_ row: __m128i, _ k: Int) {
        out.storeBytes(of: row, toByteOffset: base + (clockwise ? k : 15 - k) * destinationStride, as: __m128i.self)
      }
      store(d0, 0); store(d1, 1); store(d2, 2); store(d3, 3); store(d4, 4); store(d5, 5); store(d6, 6); store(d7, 7)
      store(d8, 8); store(d9, 9); store(d10, 10); store(d11, 11); store(d12, 12); store(d13, 13); store(d14, 14)
      store(d15, 15)
    } edge: { x, y in
      destination[y * destinationStride + x] = source[sourceRow(x) * sourceStride + sourceColumn(y)]
    }
  }
}
#endif
