import Camfx
import XCTest

final class MirrorTests: XCTestCase {
  func testEveryAxisIsBitExactOnOddSizesAndPaddedRows() throws {
    for axis in Mirror.Axis.allCases {
      for (w, h) in testSizes {
        var t = TestFrame(width: w, height: h, seed: UInt64(w * 7 + h))
        try runChain(["mirror=axis=\(axis.rawValue)"], on: &t.frame)
        // Naive reference: where each output pixel comes from.
        let expected: [[BGRA]] = (0..<h).map { y in
          (0..<w).map { x in
            switch axis {
            case .horizontal: return t.pixels[y][w - 1 - x]
            case .vertical: return t.pixels[h - 1 - y][x]
            case .both: return t.pixels[h - 1 - y][w - 1 - x]
            }
          }
        }
        XCTAssertEqual(t.frame.allPixels, expected, "\(axis) \(w)x\(h)")
        t.assertOutsideUntouched()
      }
    }
  }

  func testTwiceIsIdentity() throws {
    var t = TestFrame(width: 45, height: 11)
    try runChain(["mirror=axis=both", "mirror=axis=both"], on: &t.frame)
    XCTAssertEqual(t.frame.allPixels, t.pixels)
  }

  func testDefaultAxisIsHorizontal() throws {
    var frame = PixelBuffer(width: 2, height: 1)
    frame[0, 0] = BGRA(r: 1, g: 2, b: 3, a: 4)
    frame[1, 0] = BGRA(r: 5, g: 6, b: 7, a: 8)
    try runChain(["mirror"], on: &frame)
    XCTAssertEqual(frame[0, 0], BGRA(r: 5, g: 6, b: 7, a: 8))
    XCTAssertEqual(frame[1, 0], BGRA(r: 1, g: 2, b: 3, a: 4))
  }
}
