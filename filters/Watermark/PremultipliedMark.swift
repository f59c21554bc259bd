import CamfxCore

/// A watermark image ready for blending: premultiplied by its own alpha and by the
/// filter's opacity once, at load, so that each frame only does `dst = (S + dst·K) >> 8`.
///
/// For a straight-alpha pixel with colour c (and 255 for the alpha channel), alpha a
/// and opacity o, with α = a·o/255:
///
///     K = round(256 · (1 - α))             weight of the frame's pixel, 0...256
///     S = round(256 · c · α) + 128         premultiplied colour, + 128 to round
///     out = (S + dst · K) >> 8             ≈ c·α + dst·(1 - α)
///
/// Fully opaque and fully transparent mark pixels give exact results (c, and dst);
/// otherwise the result is within ±1 of the rounded floating-point blend. S is capped
/// at 65535 - 255·K (it can exceed that by one through rounding), so every sum fits in
/// 16 bits and the kernel runs in 16-bit lanes.
///
/// The tables are split the way the kernel reads frame memory: loading four BGRA
/// pixels as eight 16-bit lanes, the low bytes are B and R and the high bytes G and A.
///
///     pixel p:   even[2p] = S(B)  even[2p+1] = S(R)
///                odd[2p]  = S(G)  odd[2p+1]  = S(A)
///                keep[2p] = keep[2p+1] = K
///
/// So a row of n pixels needs no shuffles and blends at any starting column.
struct PremultipliedMark: Sendable {
  let width: Int
  let height: Int
  /// S for B and R of each pixel, row-major, no padding.
  let even: [UInt16]
  /// S for G and A of each pixel.
  let odd: [UInt16]
  /// K, twice per pixel.
  let keep: [UInt16]

  /// Premultiplies a straight-alpha BGRA image by its alpha and by `opacity` (0...1).
  init(straight image: PixelBuffer, opacity: Double) {
    width = image.width
    height = image.height
    let count = width * height * 2
    var even = [UInt16](repeating: 0, count: count)
    var odd = [UInt16](repeating: 0, count: count)
    var keep = [UInt16](repeating: 0, count: count)
    for y in 0..<height {
      for x in 0..<width {
        let p = image[x, y]
        let alpha = Double(p.a) / 255 * opacity
        let k = (256 * (1 - alpha)).rounded()
        func premultiplied(_ c: UInt8) -> UInt16 {
          UInt16(min((256 * Double(c) * alpha).rounded() + 128, 65535 - 255 * k))
        }
        let i = (y * width + x) * 2
        even[i] = premultiplied(p.b)
        even[i + 1] = premultiplied(p.r)
        odd[i] = premultiplied(p.g)
        odd[i + 1] = premultiplied(255)
        keep[i] = UInt16(k)
        keep[i + 1] = UInt16(k)
      }
    }
    self.even = even
    self.odd = odd
    self.keep = keep
  }

  /// Blends the mark rectangle `visible` (in mark coordinates) onto the frame whose
  /// pixel (0, 0) is `frame`, with the rectangle's top-left landing at `at`.
  func blend(onto frame: UnsafeMutableRawPointer, bytesPerRow: Int, visible: PixelRectangle, at: (x: Int, y: Int)) {
    even.withUnsafeBufferPointer { e in
      odd.withUnsafeBufferPointer { o in
        keep.withUnsafeBufferPointer { k in
          let e0 = UnsafeRawPointer(e.baseAddress!), o0 = UnsafeRawPointer(o.baseAddress!)
          let k0 = UnsafeRawPointer(k.baseAddress!)
          for row in 0..<visible.height {
            let start = ((visible.y + row) * width + visible.x) * 4  // bytes into each table
            Self.blendRow(
              frame + (at.y + row) * bytesPerRow + at.x * 4, even: e0 + start, odd: o0 + start, keep: k0 + start,
              count: visible.width)
          }
        }
      }
    }
  }

  /// `dst = (S + dst · K) >> 8` per channel on `count` pixels, four at a time.
  @inline(__always)
  static func blendRow(
    _ dst: UnsafeMutableRawPointer, even: UnsafeRawPointer, odd: UnsafeRawPointer, keep: UnsafeRawPointer, count: Int
  ) {
    var i = 0
    while i + 4 <= count {
      let d = dst.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<UInt16>.self)
      let k = keep.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<UInt16>.self)
      let low = (even.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<UInt16>.self) &+ (d & 0x00FF) &* k) &>> 8
      let high = (odd.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<UInt16>.self) &+ (d &>> 8) &* k) & 0xFF00
      dst.storeBytes(of: low | high, toByteOffset: i * 4, as: SIMD8<UInt16>.self)
      i += 4
    }
    while i < count {
      let d = dst.loadUnaligned(fromByteOffset: i * 4, as: SIMD2<UInt16>.self)
      let k = keep.loadUnaligned(fromByteOffset: i * 4, as: SIMD2<UInt16>.self)
      let low = (even.loadUnaligned(fromByteOffset: i * 4, as: SIMD2<UInt16>.self) &+ (d & 0x00FF) &* k) &>> 8
      let high = (odd.loadUnaligned(fromByteOffset: i * 4, as: SIMD2<UInt16>.self) &+ (d &>> 8) &* k) & 0xFF00
      dst.storeBytes(of: low | high, toByteOffset: i * 4, as: SIMD2<UInt16>.self)
      i += 1
    }
  }
}
