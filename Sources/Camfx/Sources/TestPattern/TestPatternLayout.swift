import CamfxCore

/// Where each part of the test pattern goes for one frame size. Computed once.
///
///     +----+----+----+----+----+----+----+   rows 0 ..< barsEnd
///     | Wh | Ye | Cy | Gr | Ma | Re | Bl |   75% colour bars
///     +----+----+----+----+----+----+----+
///     | black ............ grey ... white |   rampEnd: grey ramp
///     +--+--+--+--+--+--+--+--+--+--+-----+
///     |  frame number, 16 bits, MSB first |   codeEnd: one cell per bit
///     +-----------------------------------+
///     | 000123    [box] ->                |   band: counter and moving box
///     +-----------------------------------+
///
/// Every part may be empty on tiny frames (a 1x1 frame is one bar pixel).
struct TestPatternLayout {
  let width: Int
  let height: Int
  let barsEnd: Int
  let rampEnd: Int
  let codeEnd: Int
  /// Font scale of the counter's 5x7 digits.
  let digitScale: Int
  /// Left edge and top of the counter.
  let counterX: Int
  let counterY: Int
  /// Side of the moving box, and the span its left edge travels.
  let boxSide: Int
  let boxY: Int
  let boxMinX: Int
  let boxTravel: Int
  let boxStep: Int

  static let codeBits = 16
  static let counterDigits = 6

  init(_ geometry: FrameGeometry) {
    width = geometry.width
    height = geometry.height
    barsEnd = max(1, height * 2 / 3)
    rampEnd = min(height, barsEnd + height / 12)
    codeEnd = min(height, rampEnd + height / 24)
    let band = height - codeEnd

    digitScale = max(1, band / 24)
    let margin = 2 * digitScale
    counterX = margin
    counterY = codeEnd + max(0, (band - 7 * digitScale) / 2)
    let counterEnd = counterX + Self.counterDigits * 6 * digitScale

    boxSide = max(1, min(band / 2, width))
    boxY = codeEnd + (band - boxSide) / 2
    // The box moves right of the counter when there is room, else across the frame.
    boxMinX = counterEnd + margin + boxSide <= width ? counterEnd + margin : 0
    boxTravel = width - boxMinX - boxSide
    boxStep = max(1, width / 90)
  }

  /// Left edge of the moving box in frame `n`: it bounces between the ends of its span.
  func boxX(frame n: Int64) -> Int {
    guard boxTravel > 0 else { return boxMinX }
    let period = Int64(2 * boxTravel)
    let p = Int((n &* Int64(boxStep)) % period + period) % Int(period)
    return boxMinX + (p <= boxTravel ? p : 2 * boxTravel - p)
  }

  /// Horizontal span of code cell `i` (bit `15 - i`).
  func codeCell(_ i: Int) -> Range<Int> {
    (i * width / Self.codeBits)..<((i + 1) * width / Self.codeBits)
  }
}
