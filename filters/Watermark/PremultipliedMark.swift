import CamfxCore

/// A watermark image ready for blending: premultiplied by its own alpha and by the
/// filter's opacity once, at load, so that each frame only does `dst = s + dst·k`.
///
/// For a straight-alpha pixel (c, a) and opacity o, with a' = round(a·o):
///
///     source[c] = c · a'         (0...65025, exact, 16 bits)
///     source[A] = 255 · a'
///     keep[*]   = 255 - a'       (the weight of the frame's pixel, all four channels)
///     out       = round((source + dst · keep) / 255)
///
/// Only the rounding of a' and the final division round, so `out` is within ±1 of
/// `c·a·o/255 + dst·(1 - a·o/255)` (exact when opacity is 1). Both tables hold four
/// `UInt16` per pixel, channel order B, G, R, A as in the frame, so the kernel widens
/// four frame pixels to sixteen 16-bit lanes and needs no shuffles.
struct PremultipliedMark: Sendable {
  let width: Int
  let height: Int
  /// Premultiplied colour × 255, row-major, 4 values per pixel, no padding.
  let source: [UInt16]
  /// 255 - alpha', replicated to all four channels of each pixel.
  let keep: [UInt16]

  /// Premultiplies a straight-alpha BGRA image by its alpha and by `opacity` (0...1).
  init(straight image: PixelBuffer, opacity: Double) {
    width = image.width
    height = image.height
    var source = [UInt16](repeating: 0, count: width * height * 4)
    var keep = [UInt16](repeating: 255, count: width * height * 4)
    let rowPixels = width
    source.withUnsafeMutableBufferPointer { s in
      keep.withUnsafeMutableBufferPointer { k in
        image.withUnsafeBytes { base in
          for y in 0..<image.height {
            let row = base + y * image.bytesPerRow
            for x in 0..<rowPixels {
              let a = Double(row.load(fromByteOffset: x * 4 + 3, as: UInt8.self))
              let alpha = UInt16((a * opacity).rounded())
              let i = (y * rowPixels + x) * 4
              for c in 0..<3 {
                s[i + c] = UInt16(row.load(fromByteOffset: x * 4 + c, as: UInt8.self)) * alpha
              }
              s[i + 3] = 255 * alpha
              for c in 0..<4 { k[i + c] = 255 - alpha }
            }
          }
        }
      }
    }
    self.source = source
    self.keep = keep
  }

  /// Blends the mark rectangle `visible` (in mark coordinates) onto the frame whose
  /// pixel (0, 0) is `frame`, with the rectangle's top-left landing at `at`.
  func blend(onto frame: UnsafeMutableRawPointer, bytesPerRow: Int, visible: Rectangle, at: (x: Int, y: Int)) {
    source.withUnsafeBufferPointer { s in
      keep.withUnsafeBufferPointer { k in
        let s0 = UnsafeRawPointer(s.baseAddress!), k0 = UnsafeRawPointer(k.baseAddress!)
        for row in 0..<visible.height {
          let start = ((visible.y + row) * width + visible.x) * 8  // bytes into the tables
          Self.blendRow(
            frame + (at.y + row) * bytesPerRow + at.x * 4, s0 + start, k0 + start, count: visible.width)
        }
      }
    }
  }

  /// `dst = round((source + dst · keep) / 255)` on `count` pixels, four at a time.
  ///
  /// round(x / 255) for x in 0...65025 is `(t + t >> 8) >> 8` with t = x + 128; every
  /// intermediate stays below 65536, so all of it runs in 16-bit lanes.
  @inline(__always)
  static func blendRow(_ dst: UnsafeMutableRawPointer, _ source: UnsafeRawPointer, _ keep: UnsafeRawPointer, count: Int) {
    var i = 0
    while i + 4 <= count {
      let d = SIMD16<UInt16>(truncatingIfNeeded: dst.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<UInt8>.self))
      let s = source.loadUnaligned(fromByteOffset: i * 8, as: SIMD16<UInt16>.self)
      let k = keep.loadUnaligned(fromByteOffset: i * 8, as: SIMD16<UInt16>.self)
      let t = s &+ d &* k &+ 128
      let out = (t &+ (t &>> 8)) &>> 8
      dst.storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: out), toByteOffset: i * 4, as: SIMD16<UInt8>.self)
      i += 4
    }
    var byte = i * 4
    while byte < count * 4 {
      let d = UInt16(dst.load(fromByteOffset: byte, as: UInt8.self))
      let t = source.loadUnaligned(fromByteOffset: byte * 2, as: UInt16.self)
        &+ d &* keep.loadUnaligned(fromByteOffset: byte * 2, as: UInt16.self) &+ 128
      dst.storeBytes(of: UInt8(truncatingIfNeeded: (t &+ (t &>> 8)) &>> 8), toByteOffset: byte, as: UInt8.self)
      byte += 1
    }
  }
}
