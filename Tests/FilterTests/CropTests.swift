import Camfx
import XCTest

final class CropTests: XCTestCase {
  func testExplicitRectangleIsBitExactView() throws {
    var t = TestFrame(width: 33, height: 17)
    let storage = t.frame.storage
    var chain = try FilterRegistry.builtin.makeChain(["crop=x=5:y=3:width=7:height=9"])
    XCTAssertEqual(try chain.configure(input: t.frame.geometry), FrameGeometry(width: 7, height: 9))
    chain.process(&t.frame)
    XCTAssertEqual(t.frame.geometry, FrameGeometry(width: 7, height: 9))
    XCTAssertTrue(t.frame.storage === storage, "crop must be a view, not a copy")
    let expected = (0..<9).map { y in (0..<7).map { x in t.pixels[3 + y][5 + x] } }
    XCTAssertEqual(t.frame.allPixels, expected)
    t.assertOutsideUntouched()
  }

  func testCentredByDefault() throws {
    var t = TestFrame(width: 7, height: 5)
    try runChain(["crop=width=3:height=2"], on: &t.frame)
    // x = (7 - 3) / 2 = 2, y = (5 - 2) / 2 = 1
    XCTAssertEqual(t.frame.allPixels, (0..<2).map { y in (0..<3).map { x in t.pixels[1 + y][2 + x] } })
  }

  func testWholeFrameAndOnePixel() throws {
    var t = TestFrame(width: 1, height: 1)
    try runChain(["crop=width=1:height=1"], on: &t.frame)
    XCTAssertEqual(t.frame.allPixels, t.pixels)
    var u = TestFrame(width: 9, height: 4)
    try runChain(["crop=x=8:y=3:width=1:height=1"], on: &u.frame)
    XCTAssertEqual(u.frame.allPixels, [[u.pixels[3][8]]])
  }

  func testOnlyOneOfXAndYCentresTheOther() throws {
    var t = TestFrame(width: 10, height: 10)
    try runChain(["crop=x=0:width=4:height=4"], on: &t.frame)
    XCTAssertEqual(t.frame[0, 0], t.pixels[3][0])
  }

  func testRectangleOutsideFrameIsAConfigureError() throws {
    func configureError(_ spec: String, _ size: FrameGeometry) -> String? {
      errorMessage {
        var chain = try FilterRegistry.builtin.makeChain([spec])
        try chain.configure(input: size)
      }
    }
    let frame = FrameGeometry(width: 64, height: 48)
    XCTAssertEqual(
      configureError("crop=width=65:height=10", frame),
      "filter 'crop': rectangle 65x10 at (0, 19) does not fit inside the 64x48 input frame")
    XCTAssertEqual(
      configureError("crop=x=60:y=0:width=5:height=48", frame),
      "filter 'crop': rectangle 5x48 at (60, 0) does not fit inside the 64x48 input frame")
    XCTAssertEqual(
      configureError("crop=x=0:y=40:width=64:height=9", frame),
      "filter 'crop': rectangle 64x9 at (0, 40) does not fit inside the 64x48 input frame")
    // The same rectangle fits a frame one pixel wider.
    var chain = try FilterRegistry.builtin.makeChain(["crop=x=60:y=0:width=5:height=48"])
    XCTAssertEqual(try chain.configure(input: FrameGeometry(width: 65, height: 48)), FrameGeometry(width: 5, height: 48))
  }

  func testCropThenOtherFiltersWorkOnTheView() throws {
    var t = TestFrame(width: 33, height: 17)
    try runChain(["crop=x=4:y=2:width=21:height=9,mirror", "mirror=axis=vertical"], on: &t.frame)
    let expected: [[BGRA]] = (0..<9).map { (y: Int) -> [BGRA] in
      let source: [BGRA] = t.pixels[10 - y]
      return (0..<21).map { (x: Int) -> BGRA in source[24 - x] }
    }
    XCTAssertEqual(t.frame.allPixels, expected)
    t.assertOutsideUntouched()
  }
}
