import CamfxCore

/// The watermark placed in a yuv420p frame, ready to blend into the decoded planes the
/// way `PremultipliedMark` blends into BGRA, with the same rounding:
///
///     out = (S + dst · K) >> 8,   S = round(256 · c · α) + 128,   K = round(256 · (1 - α))
///
/// where c is the mark pixel's Y, Cb or Cr (BT.601, limited range) and α its alpha
/// times the opacity. Blending is linear and so is the colour matrix, so blending the
/// mark's Y into the frame's Y is blending its colour into the frame's colour.
///
/// Chroma is shared by each 2×2 block of pixels. The BGRA path blends the four pixels
/// and then averages their chroma; averaging first gives the same: a block's S and K
/// come from the mean of α·c and of α over its four pixels, where pixels the mark does
/// not cover count as α = 0 (the frame shows through). So the tables are made for the
/// mark's place in the frame, and only for frames of even width and height, whose every
/// block has four pixels.
struct YUV420Mark: Sendable {
  /// Where the tables land in the frame: the luma rectangle the mark covers, and the
  /// chroma rectangle of the blocks it touches.
  let luma: PixelRectangle
  let chroma: PixelRectangle
  /// S and K per covered pixel, `luma.width` per row.
  let lumaS: [UInt16]
  let lumaK: [UInt16]
  /// S for Cb and for Cr, and K, per touched block, `chroma.width` per row.
  let cbS: [UInt16]
  let crS: [UInt16]
  let chromaK: [UInt16]

  /// Tables for the part `visible` (in mark coordinates) of the straight-alpha `image`,
  /// drawn with its top-left at `origin` in the frame, at `opacity`.
  init(straight image: PixelBuffer, opacity: Double, visible: PixelRectangle, origin: (x: Int, y: Int)) {
    luma = PixelRectangle(x: origin.x, y: origin.y, width: visible.width, height: visible.height)
    let left = origin.x / 2, top = origin.y / 2
    chroma = PixelRectangle(
      x: left, y: top, width: (origin.x + visible.width + 1) / 2 - left, height: (origin.y + visible.height + 1) / 2 - top)

    // α and the straight Y, Cb, Cr of the mark pixel at frame position (x, y); α 0 off the mark.
    func sample(_ x: Int, _ y: Int) -> (alpha: Double, y: Double, cb: Double, cr: Double) {
      let mx = x - origin.x + visible.x, my = y - origin.y + visible.y
      guard x >= origin.x, x < origin.x + visible.width, y >= origin.y, y < origin.y + visible.height else {
        return (0, 0, 0, 0)
      }
      let p = image[mx, my]
      let r = Double(p.r), g = Double(p.g), b = Double(p.b)
      return (
        Double(p.a) / 255 * opacity,
        16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255,
        128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255,
        128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255)
    }
    // K from α, and S from α·c, capped so that S + 255·K fits in 16 bits.
    func keep(_ alpha: Double) -> UInt16 { UInt16((256 * (1 - alpha)).rounded()) }
    func premultiplied(_ alphaTimesC: Double, keep k: UInt16) -> UInt16 {
      UInt16(min((256 * alphaTimesC).rounded() + 128, 65535 - 255 * Double(k)))
    }

    var lumaS = [UInt16](), lumaK = [UInt16]()
    lumaS.reserveCapacity(luma.width * luma.height)
    lumaK.reserveCapacity(luma.width * luma.height)
    for y in luma.y..<(luma.y + luma.height) {
      for x in luma.x..<(luma.x + luma.width) {
        let s = sample(x, y)
        let k = keep(s.alpha)
        lumaS.append(premultiplied(s.alpha * s.y, keep: k))
        lumaK.append(k)
      }
    }
    var cbS = [UInt16](), crS = [UInt16](), chromaK = [UInt16]()
    for cy in chroma.y..<(chroma.y + chroma.height) {
      for cx in chroma.x..<(chroma.x + chroma.width) {
        var alpha = 0.0, cb = 0.0, cr = 0.0
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
          let s = sample(2 * cx + dx, 2 * cy + dy)
          alpha += s.alpha / 4
          cb += s.alpha * s.cb / 4
          cr += s.alpha * s.cr / 4
        }
        let k = keep(alpha)
        cbS.append(premultiplied(cb, keep: k))
        crS.append(premultiplied(cr, keep: k))
        chromaK.append(k)
      }
    }
    self.lumaS = lumaS
    self.lumaK = lumaK
    self.cbS = cbS
    self.crS = crS
    self.chromaK = chromaK
  }

  /// Blends the mark into `picture`'s planes, in place.
  func blend(into picture: YUV420Picture) { blend(intoBand: picture, firstRow: 0) }

  /// The mark's rows that fall in `band`, rows `firstRow ..< firstRow + band.height` of
  /// the picture (`firstRow` even).
  func blend(intoBand band: YUV420Picture, firstRow: Int) {
    Self.blend(lumaS, lumaK, into: band.y, stride: band.yStride, at: luma, rows: firstRow..<(firstRow + band.height))
    let chromaRows = (firstRow / 2)..<(firstRow / 2 + band.chromaHeight)
    Self.blend(cbS, chromaK, into: band.u, stride: band.uStride, at: chroma, rows: chromaRows)
    Self.blend(crS, chromaK, into: band.v, stride: band.vStride, at: chroma, rows: chromaRows)
  }

  /// `dst = (S + dst · K) >> 8` over the part of the rectangle `area` of one plane that
  /// lies in `rows`, the rows `plane` starts at.
  static func blend(
    _ s: [UInt16], _ k: [UInt16], into plane: UnsafeMutablePointer<UInt8>, stride: Int, at area: PixelRectangle,
    rows: Range<Int>
  ) {
    let top = max(area.y, rows.lowerBound), bottom = min(area.y + area.height, rows.upperBound)
    guard top < bottom else { return }
    s.withUnsafeBufferPointer { s in
      k.withUnsafeBufferPointer { k in
        for y in top..<bottom {
          let row = y - area.y
          blendRow(
            plane + (y - rows.lowerBound) * stride + area.x, s: s.baseAddress! + row * area.width,
            k: k.baseAddress! + row * area.width, count: area.width)
        }
      }
    }
  }

  /// Sixteen samples at a time in 16-bit lanes (S + 255·K fits, see `init`).
  @inline(__always)
  static func blendRow(_ dst: UnsafeMutablePointer<UInt8>, s: UnsafePointer<UInt16>, k: UnsafePointer<UInt16>, count: Int) {
    let d = UnsafeMutableRawPointer(dst), sRaw = UnsafeRawPointer(s), kRaw = UnsafeRawPointer(k)
    var i = 0
    while i + 16 <= count {
      let value = SIMD16<UInt16>(truncatingIfNeeded: d.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self))
      let sum = sRaw.loadUnaligned(fromByteOffset: i * 2, as: SIMD16<UInt16>.self)
        &+ value &* kRaw.loadUnaligned(fromByteOffset: i * 2, as: SIMD16<UInt16>.self)
      d.storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: sum &>> 8), toByteOffset: i, as: SIMD16<UInt8>.self)
      i += 16
    }
    while i < count {
      dst[i] = UInt8(truncatingIfNeeded: (s[i] &+ UInt16(dst[i]) &* k[i]) &>> 8)
      i += 1
    }
  }
}
