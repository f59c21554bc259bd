#if canImport(Glibc)
import Glibc
#endif
import CamfxCore

/// The drawn text of one frame, ready to blend: a premultiplied BGRA strip (box, border
/// and glyphs composed once) and the same strip as premultiplied Y, Cb, Cr and alpha on
/// the frame's own 2×2 grid, for yuv420p pictures. Redrawn only when the text changes;
/// a frame with the same text costs one blend of the strip.
///
///     frame  ┌──────────────────────────────┐
///            │ origin ┌──────────────┐      │
///            │        │ box + border │      │   the strip: padding, then the text
///            │        │   + glyphs   │      │   line (ascender + descender high)
///            │        └──────────────┘      │
///            └──────────────────────────────┘
///
/// All memory is made once, for the longest strip the filter allows, so redrawing
/// allocates nothing either (glyphs are rendered once per character and kept).
///
/// `@unchecked Sendable`: used by one filter stage at a time (see `ScaleScratch`).
final class TextOverlay: @unchecked Sendable {
  struct Style: Sendable {
    var color: BGRA
    var box: BGRA?
    var borderWidth: Int
    var borderColor: BGRA
  }

  let face: FontFace
  let style: Style
  /// Space between the box's edge and the text (and room for the border).
  let padding: Int
  let height: Int
  let capacityWidth: Int
  /// The current strip's width, and its bytes of text (to see when it changes).
  private(set) var width = 0
  private var text: [UInt8] = []
  private var textLength = 0

  private var glyphs: [UInt32: Glyph] = [:]
  private var coverage: UnsafeMutablePointer<UInt8>
  private var border: UnsafeMutablePointer<UInt8>
  /// Premultiplied B, G, R, A per pixel.
  private var bgra: UnsafeMutablePointer<UInt8>
  /// Premultiplied luma and alpha per pixel, and chroma with its alpha per 2×2 block, for
  /// a strip placed at `yuvOrigin` (its parity decides the blocks).
  private var lumaPlane: UnsafeMutablePointer<UInt16>
  private var chromaPlane: UnsafeMutablePointer<UInt16>
  private var yuvOrigin = (x: -1, y: -1)
  private var yuvWidth = -1

  init(face: FontFace, style: Style, maximumWidth: Int) {
    self.face = face
    self.style = style
    padding = style.box == nil ? style.borderWidth : max(style.borderWidth, face.pixelSize / 4)
    height = face.ascender + face.descender + 2 * padding
    capacityWidth = maximumWidth
    let pixels = capacityWidth * height
    coverage = .allocate(capacity: pixels)
    border = .allocate(capacity: pixels)
    bgra = .allocate(capacity: pixels * 4)
    // One more row and column: a strip at odd coordinates spans one more 2×2 block.
    let yuvPixels = (capacityWidth + 2) * (height + 2)
    lumaPlane = .allocate(capacity: yuvPixels * 2)
    chromaPlane = .allocate(capacity: yuvPixels * 3)
    text = [UInt8](repeating: 0, count: TextTemplate.capacity)
  }

  deinit {
    coverage.deallocate()
    border.deallocate()
    bgra.deallocate()
    lumaPlane.deallocate()
    chromaPlane.deallocate()
  }

  /// The strip's width for `bytes` of UTF-8 text, rendering any new glyphs.
  func measure(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var pen = 0
    forEachScalar(bytes) { scalar in pen += glyph(scalar)?.advance ?? 0 }
    return pen + 2 * padding
  }

  /// Draws `bytes` into the strip unless it already shows them. Returns true when it
  /// changed.
  @discardableResult
  func update(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    if bytes.count == textLength && text.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) {
      return false
    }
    textLength = min(bytes.count, text.count)
    text.withUnsafeMutableBufferPointer { _ = memcpy($0.baseAddress!, bytes.baseAddress!, textLength) }
    draw(bytes)
    yuvOrigin = (-1, -1)  // the yuv strip is made again when next asked for
    return true
  }

  private func draw(_ bytes: UnsafeBufferPointer<UInt8>) {
    width = min(measure(bytes), capacityWidth)
    let pixels = width * height
    coverage.update(repeating: 0, count: pixels)
    var pen = padding
    let baseline = padding + face.ascender
    forEachScalar(bytes) { scalar in
      guard let g = glyph(scalar) else { return }
      g.coverage.withUnsafeBufferPointer { ink in
        for gy in 0..<g.height {
          let y = baseline - g.top + gy
          guard y >= 0 && y < height else { continue }
          for gx in 0..<g.width {
            let x = pen + g.left + gx
            guard x >= 0 && x < width else { continue }
            let i = y * width + x
            coverage[i] = max(coverage[i], ink[gy * g.width + gx])
          }
        }
      }
      pen += g.advance
    }
    // The border: the ink grown by borderWidth pixels in every direction (a disc).
    let r = style.borderWidth
    if r > 0 {
      for y in 0..<height {
        for x in 0..<width {
          var most: UInt8 = 0
          for dy in max(-r, -y)...min(r, height - 1 - y) {
            let reach = Int(Double(r * r - dy * dy).squareRoot())
            let row = coverage + (y + dy) * width
            for dx in max(-reach, -x)...min(reach, width - 1 - x) where row[x + dx] > most { most = row[x + dx] }
          }
          border[y * width + x] = most
        }
      }
    }
    // Compose box, border and ink, premultiplied.
    for i in 0..<pixels {
      var b = 0, g = 0, rr = 0, a = 0
      func over(_ c: BGRA, _ coverage: Int) {
        let alpha = (Int(c.a) * coverage + 127) / 255
        b = (Int(c.b) * alpha + b * (255 - alpha) + 127) / 255
        g = (Int(c.g) * alpha + g * (255 - alpha) + 127) / 255
        rr = (Int(c.r) * alpha + rr * (255 - alpha) + 127) / 255
        a = (255 * alpha + a * (255 - alpha) + 127) / 255
      }
      if let box = style.box { over(box, 255) }
      if r > 0 { over(style.borderColor, Int(border[i])) }
      over(style.color, Int(coverage[i]))
      bgra[i * 4] = UInt8(b)
      bgra[i * 4 + 1] = UInt8(g)
      bgra[i * 4 + 2] = UInt8(rr)
      bgra[i * 4 + 3] = UInt8(a)
    }
  }

  /// Blends the strip onto `frame` with its top-left corner at `origin` (parts outside
  /// the frame are clipped): `out = strip + frame · (255 − alpha) / 255`.
  func blend(onto frame: PixelBuffer, at origin: (x: Int, y: Int)) {
    let x0 = max(0, origin.x), y0 = max(0, origin.y)
    let x1 = min(frame.width, origin.x + width), y1 = min(frame.height, origin.y + height)
    guard x1 > x0, y1 > y0 else { return }
    let stride = frame.bytesPerRow
    frame.withUnsafeMutableBytes { base in
      let pixels = base.assumingMemoryBound(to: UInt8.self)
      for y in y0..<y1 {
        let row = pixels + y * stride
        let strip = bgra + ((y - origin.y) * width - origin.x) * 4
        for x in x0..<x1 {
          let s = strip + x * 4
          let keep = 255 - Int(s[3])
          guard keep < 255 else { continue }
          let d = row + x * 4
          d[0] = UInt8(Int(s[0]) + (Int(d[0]) * keep + 127) / 255)
          d[1] = UInt8(Int(s[1]) + (Int(d[1]) * keep + 127) / 255)
          d[2] = UInt8(Int(s[2]) + (Int(d[2]) * keep + 127) / 255)
          d[3] = UInt8(Int(s[3]) + (Int(d[3]) * keep + 127) / 255)
        }
      }
    }
  }

  /// Blends the strip onto a yuv420p picture at `origin`, in BT.601 limited range: each
  /// luma sample with its pixel's alpha, each chroma sample with its 2×2 block's mean.
  func blend(onto picture: YUV420Picture, at origin: (x: Int, y: Int)) {
    prepareYUV(at: origin)
    let ox = origin.x & ~1, oy = origin.y & ~1  // the block grid's corner
    let yw = width + 2  // luma strip row length (from ox)
    let x0 = max(0, origin.x), y0 = max(0, origin.y)
    let x1 = min(picture.width, origin.x + width), y1 = min(picture.height, origin.y + height)
    guard x1 > x0, y1 > y0 else { return }
    for y in y0..<y1 {
      let row = picture.y + y * picture.yStride
      let strip = lumaPlane + ((y - oy) * yw - ox) * 2
      for x in x0..<x1 {
        let keep = 255 - Int(strip[x * 2 + 1])
        guard keep < 255 else { continue }
        row[x] = UInt8(Int(strip[x * 2]) + (Int(row[x]) * keep + 127) / 255)
      }
    }
    let cx0 = x0 / 2, cx1 = (x1 + 1) / 2, cy0 = y0 / 2, cy1 = (y1 + 1) / 2
    let cw = yw / 2
    for cy in cy0..<cy1 {
      let u = picture.u + cy * picture.uStride, v = picture.v + cy * picture.vStride
      let strip = chromaPlane + ((cy - oy / 2) * cw - ox / 2) * 3
      for cx in cx0..<cx1 {
        let keep = 255 - Int(strip[cx * 3 + 2])
        guard keep < 255 else { continue }
        u[cx] = UInt8(Int(strip[cx * 3]) + (Int(u[cx]) * keep + 127) / 255)
        v[cx] = UInt8(Int(strip[cx * 3 + 1]) + (Int(v[cx]) * keep + 127) / 255)
      }
    }
  }

  /// Makes the premultiplied yuv strip for a strip at `origin`, unless it is made.
  private func prepareYUV(at origin: (x: Int, y: Int)) {
    guard yuvOrigin != origin || yuvWidth != width else { return }
    yuvOrigin = origin
    yuvWidth = width
    let ox = origin.x & ~1, oy = origin.y & ~1
    let dx = origin.x - ox, dy = origin.y - oy
    let yw = width + 2, yh = height + 2
    lumaPlane.update(repeating: 0, count: yw * yh * 2)
    // The pixel (x, y) of the grid from (ox, oy): premultiplied B, G, R, A or zeros.
    func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int, Int) {
      let sx = x - dx, sy = y - dy
      guard sx >= 0, sx < width, sy >= 0, sy < height else { return (0, 0, 0, 0) }
      let s = bgra + (sy * width + sx) * 4
      return (Int(s[0]), Int(s[1]), Int(s[2]), Int(s[3]))
    }
    for y in 0..<yh {
      for x in 0..<yw {
        let (b, g, r, a) = pixel(x, y)
        // Y of a premultiplied colour: 16·A/255 + the RGB part, as BGRAToYUV420 weighs it.
        let luma = (16 * a + 127) / 255 + (66 * r + 129 * g + 25 * b + 128) >> 8
        lumaPlane[(y * yw + x) * 2] = UInt16(min(max(luma, 0), 255))
        lumaPlane[(y * yw + x) * 2 + 1] = UInt16(a)
      }
    }
    let cw = yw / 2, ch = yh / 2
    for cy in 0..<ch {
      for cx in 0..<cw {
        var b = 0, g = 0, r = 0, a = 0
        for py in 2 * cy...2 * cy + 1 {
          for px in 2 * cx...2 * cx + 1 {
            let p = pixel(px, py)
            b += p.0
            g += p.1
            r += p.2
            a += p.3
          }
        }
        b = (b + 2) / 4
        g = (g + 2) / 4
        r = (r + 2) / 4
        a = (a + 2) / 4
        let u = (128 * a + 127) / 255 + (-38 * r - 74 * g + 112 * b + 128) >> 8
        let v = (128 * a + 127) / 255 + (112 * r - 94 * g - 18 * b + 128) >> 8
        let i = (cy * cw + cx) * 3
        chromaPlane[i] = UInt16(min(max(u, 0), 255))
        chromaPlane[i + 1] = UInt16(min(max(v, 0), 255))
        chromaPlane[i + 2] = UInt16(a)
      }
    }
  }

  private func glyph(_ scalar: Unicode.Scalar) -> Glyph? {
    if let known = glyphs[scalar.value] { return known }
    guard let made = face.render(scalar) else { return nil }
    glyphs[scalar.value] = made
    return made
  }

  /// Calls `body` with each Unicode scalar of UTF-8 `bytes` (invalid bytes are skipped).
  private func forEachScalar(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (Unicode.Scalar) -> Void) {
    var decoder = UTF8()
    var iterator = bytes.makeIterator()
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): body(scalar)
      case .emptyInput: return
      case .error: continue
      }
    }
  }
}
