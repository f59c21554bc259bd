import CamfxCore

extension TestPatternSource {
  /// Draws frame `n` into `frame`, which must have this source's size (it may have
  /// any `bytesPerRow`). Allocates nothing.
  public func render(frameNumber n: Int64, into frame: PixelBuffer) {
    precondition(frame.geometry == geometry, "render needs a \(geometry) frame, got \(frame.geometry)")
    let l = layout
    let rowBytes = geometry.width * 4
    let rowStride = frame.bytesPerRow
    frame.withUnsafeMutableBytes { base in
      for y in 0..<l.barsEnd { (base + y * rowStride).copyMemory(from: barsRow, byteCount: rowBytes) }
      for y in l.barsEnd..<l.rampEnd { (base + y * rowStride).copyMemory(from: rampRow, byteCount: rowBytes) }
      if l.codeEnd > l.rampEnd {
        let first = base + l.rampEnd * rowStride
        let pixels = first.assumingMemoryBound(to: UInt32.self)
        let code = UInt64(truncatingIfNeeded: n)
        for i in 0..<TestPatternLayout.codeBits {
          let cell = l.codeCell(i)
          let on = (code >> UInt64(TestPatternLayout.codeBits - 1 - i)) & 1 != 0
          (pixels + cell.lowerBound).update(repeating: on ? Self.white : Self.black, count: cell.count)
        }
        for y in (l.rampEnd + 1)..<l.codeEnd { (base + y * rowStride).copyMemory(from: first, byteCount: rowBytes) }
      }
      for y in l.codeEnd..<geometry.height { (base + y * rowStride).copyMemory(from: bandRow, byteCount: rowBytes) }

      fill(base, rowStride, x: l.boxX(frame: n), y: l.boxY, width: l.boxSide, height: l.boxSide, color: Self.boxColor)

      var value = Int(n % 1_000_000)
      let s = l.digitScale
      for d in stride(from: TestPatternLayout.counterDigits - 1, through: 0, by: -1) {
        let glyph = Self.digitFont[value % 10]
        value /= 10
        for (row, bits) in glyph.enumerated() {
          for column in 0..<5 where bits & (0x10 >> UInt8(column)) != 0 {
            fill(
              base, rowStride, x: l.counterX + (d * 6 + column) * s, y: l.counterY + row * s, width: s, height: s,
              color: Self.white)
          }
        }
      }
    }
  }

  /// Fills a rectangle, clipped to the frame.
  private func fill(
    _ base: UnsafeMutableRawPointer, _ stride: Int, x: Int, y: Int, width: Int, height: Int, color: UInt32
  ) {
    let x0 = max(0, x), x1 = min(geometry.width, x + width)
    let y0 = max(0, y), y1 = min(geometry.height, y + height)
    guard x0 < x1, y0 < y1 else { return }
    for row in y0..<y1 {
      (base + row * stride + x0 * 4).assumingMemoryBound(to: UInt32.self).update(repeating: color, count: x1 - x0)
    }
  }

  /// Reads the frame number back from the 16 code cells of a test-pattern frame (for
  /// example one decoded from a recording), or `nil` if the frame is too small to
  /// carry the code. Only the low 16 bits survive. Cells are sampled at their centre
  /// and thresholded at mid-grey, so mild compression artefacts do not matter.
  public static func decodeFrameNumber(from frame: PixelBuffer) -> Int? {
    let l = TestPatternLayout(frame.geometry)
    guard l.codeEnd > l.rampEnd, frame.width >= TestPatternLayout.codeBits else { return nil }
    let y = (l.rampEnd + l.codeEnd - 1) / 2
    var n = 0
    for i in 0..<TestPatternLayout.codeBits {
      let cell = l.codeCell(i)
      let p = frame[(cell.lowerBound + cell.upperBound - 1) / 2, y]
      let luma = (Int(p.r) + Int(p.g) + Int(p.b)) / 3
      n = n << 1 | (luma >= 128 ? 1 : 0)
    }
    return n
  }
}
