import Camfx
import XCTest

final class GrayscaleTests: XCTestCase {
  /// round(Kr·R + Kg·G + Kb·B) in Double: what the issue specifies.
  func reference(_ p: BGRA, _ matrix: Grayscale.Matrix) -> Int {
    let k = matrix.weights
    return Int((k.r * Double(p.r) + k.g * Double(p.g) + k.b * Double(p.b)).rounded())
  }

  func check(_ frame: PixelBuffer, before: [[BGRA]], matrix: Grayscale.Matrix, file: StaticString = #filePath, line: UInt = #line) {
    var worst = 0
    for y in 0..<frame.height {
      for x in 0..<frame.width {
        let out = frame[x, y], p = before[y][x]
        XCTAssertTrue(out.b == out.g && out.g == out.r, "not grey at (\(x), \(y)): \(out)", file: file, line: line)
        XCTAssertEqual(out.a, p.a, "alpha changed at (\(x), \(y))", file: file, line: line)
        worst = max(worst, abs(Int(out.g) - reference(p, matrix)))
      }
    }
    XCTAssertLessThanOrEqual(worst, 1, "\(matrix) differs from the Double reference by \(worst)", file: file, line: line)
  }

  func testOddSizesAndPaddedRowsWithinOneOfReference() throws {
    for matrix in Grayscale.Matrix.allCases {
      for (w, h) in testSizes {
        var t = TestFrame(width: w, height: h, seed: UInt64(w * 1000 + h))
        try runChain(["grayscale=matrix=\(matrix.rawValue)"], on: &t.frame)
        check(t.frame, before: t.pixels, matrix: matrix)
        t.assertOutsideUntouched()
      }
    }
  }

  /// A dense sample of the colour cube through the real filter: every (B, G) pair with
  /// 16 values of R from 0 to 255 (1024×1024 pixels: B = x & 255, G = y & 255,
  /// R = 17 · ((x >> 8) | (y >> 8) << 2)). The fixed-point error is largest at the
  /// extremes, which the sample includes. (All 2^24 colours pass too; that run takes
  /// half a minute in a debug build, so it is not part of the suite.)
  func testDenseColourSampleWithinOneOfReference() {
    let side = 1024
    for matrix in Grayscale.Matrix.allCases {
      let frame = PixelBuffer(width: side, height: side)
      let alpha: UInt32 = 0x5A
      func red(_ x: Int, _ y: Int) -> Int { 17 * ((x >> 8) | (y >> 8) << 2) }
      frame.withUnsafeMutableBytes { base in
        for y in 0..<side {
          let row = (base + y * frame.bytesPerRow).assumingMemoryBound(to: UInt32.self)
          for x in 0..<side {
            row[x] = UInt32(x & 255) | UInt32(y & 255) << 8 | UInt32(red(x, y)) << 16 | alpha << 24
          }
        }
      }
      var out = frame
      Grayscale(matrix: matrix).process(&out)
      let k = matrix.weights
      var worst = 0.0, badAlpha = 0, notGrey = 0
      out.withUnsafeBytes { base in
        for y in 0..<side {
          let row = (base + y * frame.bytesPerRow).assumingMemoryBound(to: UInt32.self)
          for x in 0..<side {
            let expected = (k.r * Double(red(x, y)) + k.g * Double(y & 255) + k.b * Double(x & 255)).rounded()
            let p = row[x]
            if (p >> 8) & 255 != p & 255 || (p >> 16) & 255 != p & 255 { notGrey += 1 }
            if p >> 24 != alpha { badAlpha += 1 }
            worst = max(worst, abs(Double(p & 255) - expected))
          }
        }
      }
      XCTAssertEqual(notGrey, 0, "\(matrix)")
      XCTAssertEqual(badAlpha, 0, "\(matrix)")
      XCTAssertLessThanOrEqual(worst, 1, "\(matrix)")
    }
  }

  /// Golden values of the fixed-point kernel (the Double formula's are in comments).
  func testGoldenPixels() throws {
    var frame = PixelBuffer(width: 5, height: 1)
    frame[0, 0] = BGRA(r: 255, g: 255, b: 255, a: 7)
    frame[1, 0] = BGRA(r: 255, g: 0, b: 0, a: 0)
    frame[2, 0] = BGRA(r: 0, g: 255, b: 0, a: 1)
    frame[3, 0] = BGRA(r: 0, g: 0, b: 255, a: 128)
    frame[4, 0] = BGRA(r: 0, g: 0, b: 0, a: 200)
    try runChain(["grayscale"], on: &frame)
    XCTAssertEqual(frame[0, 0], BGRA(r: 255, g: 255, b: 255, a: 7))
    XCTAssertEqual(frame[1, 0], BGRA(r: 77, g: 77, b: 77, a: 0))  // 76.245
    XCTAssertEqual(frame[2, 0], BGRA(r: 149, g: 149, b: 149, a: 1))  // 149.685
    XCTAssertEqual(frame[3, 0], BGRA(r: 29, g: 29, b: 29, a: 128))  // 29.07
    XCTAssertEqual(frame[4, 0], BGRA(r: 0, g: 0, b: 0, a: 200))
  }

  func testMatrixDefaultsToBT601() throws {
    let filter = try FilterRegistry.builtin.makeFilter(FilterSpec.parse("grayscale"))
    XCTAssertEqual((filter as? Grayscale)?.matrix, .bt601)
  }
}
