import CamfxCore

extension Watermark {
  /// The default mark: the word "camfx" in white on a translucent dark rounded box,
  /// 120 × 40 pixels, straight alpha.
  ///
  /// It is drawn in code from a 5 × 7 bitmap font scaled 3×, so the package needs no
  /// resource files and `--filter watermark` works with no options.
  public static func builtinMark() -> PixelBuffer {
    let width = 120, height = 40, radius = 10.0, scale = 3
    let box = BGRA(b: 32, g: 24, r: 16, a: 150)
    let ink = BGRA(b: 255, g: 255, r: 255, a: 255)
    let mark = PixelBuffer(width: width, height: height)

    // Rounded box with a one-pixel anti-aliased edge: coverage from the distance to
    // the nearest corner centre.
    for y in 0..<height {
      for x in 0..<width {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        let cx = min(max(px, radius), Double(width) - radius)
        let cy = min(max(py, radius), Double(height) - radius)
        let distance = ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot()
        let coverage = min(max(radius - distance + 0.5, 0), 1)
        mark[x, y] = BGRA(b: box.b, g: box.g, r: box.r, a: UInt8((Double(box.a) * coverage).rounded()))
      }
    }

    let glyphWidth = 5 * scale, gap = scale
    let textWidth = glyphs.count * glyphWidth + (glyphs.count - 1) * gap
    let left = (width - textWidth) / 2, top = (height - 7 * scale) / 2
    for (n, glyph) in glyphs.enumerated() {
      for (row, bits) in glyph.enumerated() {
        for (column, bit) in bits.enumerated() where bit == "#" {
          for dy in 0..<scale {
            for dx in 0..<scale {
              mark[left + n * (glyphWidth + gap) + column * scale + dx, top + row * scale + dy] = ink
            }
          }
        }
      }
    }
    return mark
  }

  /// "camfx" in a 5 × 7 lower-case bitmap font.
  private static let glyphs: [[String]] = [
    [".....", ".....", ".###.", "#....", "#....", "#....", ".###."],  // c
    [".....", ".....", ".###.", "....#", ".####", "#...#", ".####"],  // a
    [".....", ".....", "##.#.", "#.#.#", "#.#.#", "#.#.#", "#.#.#"],  // m
    ["..##.", ".#...", "####.", ".#...", ".#...", ".#...", ".#..."],  // f
    [".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#"],  // x
  ]
}
