import CFFmpeg
import CamfxCore
import CamfxMedia
import XCTest

final class PixelBufferAdaptorTests: XCTestCase {
  private func frame(_ colour: BGRA) -> PixelBuffer {
    let b = PixelBuffer(width: 32, height: 4)
    b.fill(colour)
    return b
  }

  func testFramesAreReusedAndHoldTheConversion() throws {
    let adaptor = try PixelBufferAdaptor(width: 32, height: 4, capacity: 2)
    let first = try adaptor.convert(frame(BGRA(r: 255, g: 0, b: 0)))
    let second = try adaptor.convert(frame(BGRA(r: 0, g: 255, b: 0)))
    let third = try adaptor.convert(frame(BGRA(r: 0, g: 0, b: 255)))
    XCTAssertNotEqual(first, second)
    XCTAssertEqual(first, third, "the pool of two is reused round-robin")
    XCTAssertEqual(AVPixelFormat(rawValue: third.pointee.format), AV_PIX_FMT_YUV420P)
    XCTAssertEqual(third.pointee.data.0![0], 41)  // blue's Y
    XCTAssertEqual(second.pointee.data.0![0], 144)  // green's Y
  }

  /// An encoder holding a reference (as libavcodec does with `av_frame_ref`) must not
  /// see its picture overwritten by later conversions.
  func testAFrameStillReferencedElsewhereIsNeverOverwritten() throws {
    let adaptor = try PixelBufferAdaptor(width: 32, height: 4, capacity: 2)
    let red = try adaptor.convert(frame(BGRA(r: 255, g: 0, b: 0)))
    guard let held = av_frame_alloc() else { return XCTFail("av_frame_alloc") }
    var heldPointer: UnsafeMutablePointer<AVFrame>? = held
    defer { av_frame_free(&heldPointer) }
    XCTAssertEqual(av_frame_ref(held, red), 0)
    for i in 0..<5 {
      _ = try adaptor.convert(frame(BGRA(r: 0, g: UInt8(i * 40), b: 255)))
    }
    XCTAssertEqual(held.pointee.data.0![0], 82, "red's Y is intact")
    XCTAssertEqual(held.pointee.data.2![0], 240, "red's V is intact")
  }

  func testWrongSizeIsRefused() throws {
    let adaptor = try PixelBufferAdaptor(width: 32, height: 4)
    XCTAssertThrowsError(try adaptor.convert(PixelBuffer(width: 30, height: 4))) {
      XCTAssertEqual("\($0)", "append video frame failed: frame is 30x4 but the video track is 32x4")
    }
  }
}
