import Camfx
import CamfxMedia
import XCTest

final class TestPatternSourceTests: XCTestCase {
  private func frame(_ geometry: FrameGeometry, _ n: Int64, bytesPerRow: Int? = nil) -> PixelBuffer {
    let source = TestPatternSource(geometry: geometry, poolCapacity: 1)
    let buffer = PixelBuffer(width: geometry.width, height: geometry.height, bytesPerRow: bytesPerRow)
    source.render(frameNumber: n, into: buffer)
    return buffer
  }

  func testEverySizeRendersWithoutTrouble() {
    for (w, h) in [(1, 1), (1, 7), (7, 1), (2, 2), (3, 5), (16, 9), (17, 31), (64, 24), (641, 479)] {
      for n: Int64 in [0, 1, 99, 123_456, 9_999_999] {
        let g = FrameGeometry(width: w, height: h)
        XCTAssertTrue(frame(g, n).hasSamePixels(as: frame(g, n)), "\(g) frame \(n) is deterministic")
      }
    }
  }

  func testOnePixelFrameIsTheFirstBar() {
    XCTAssertEqual(frame(FrameGeometry(width: 1, height: 1), 5)[0, 0], TestPatternSource.barColors[0])
  }

  func testBarsAreInOrderAcrossTheTop() {
    let image = frame(FrameGeometry(width: 700, height: 480), 0)
    for (i, colour) in TestPatternSource.barColors.enumerated() {
      XCTAssertEqual(image[i * 100 + 50, 10], colour, "bar \(i)")
      XCTAssertEqual(image[i * 100, 300], colour, "bar \(i) starts at its column")
    }
  }

  func testPaddedRowsGiveTheSamePixels() {
    let g = FrameGeometry(width: 37, height: 29)
    XCTAssertTrue(frame(g, 3, bytesPerRow: 37 * 4 + 100).hasSamePixels(as: frame(g, 3)))
  }

  func testFramesChangeAndTheFrameNumberCanBeReadBack() {
    let g = FrameGeometry(width: 640, height: 480)
    XCTAssertFalse(frame(g, 0).hasSamePixels(as: frame(g, 1)))
    for n: Int64 in [0, 1, 2, 255, 256, 1234, 65535, 65536 + 7] {
      XCTAssertEqual(TestPatternSource.decodeFrameNumber(from: frame(g, n)), Int(n % 65536))
    }
    for (w, h) in [(16, 24), (33, 50), (1920, 1080)] {
      XCTAssertEqual(TestPatternSource.decodeFrameNumber(from: frame(FrameGeometry(width: w, height: h), 4321)), 4321, "\(w)x\(h)")
    }
    XCTAssertNil(TestPatternSource.decodeFrameNumber(from: frame(FrameGeometry(width: 8, height: 8), 1)))
  }

  func testTheBoxMovesBetweenFrames() {
    // Outside the counter and code cells, only the moving box changes the band.
    let g = FrameGeometry(width: 640, height: 480)
    let a = frame(g, 10), b = frame(g, 11)
    var changedRight = 0
    for y in 400..<480 { for x in 200..<640 where a[x, y] != b[x, y] { changedRight += 1 } }
    XCTAssertGreaterThan(changedRight, 0)
    // The bars and the ramp never change.
    for y in 0..<360 { for x in stride(from: 0, to: 640, by: 7) { XCTAssertEqual(a[x, y], b[x, y]) } }
  }

  func testNextFrameStampsTimesAndStopsAfterFrameCount() throws {
    let source = TestPatternSource(geometry: FrameGeometry(width: 8, height: 6), frameRate: 25, firstFrame: 3, frameCount: 4, poolCapacity: 2)
    XCTAssertEqual(source.frameDuration, MediaTime(value: 1, timescale: 25))
    XCTAssertFalse(source.isLive)
    var times: [MediaTime] = []
    while let f = try source.nextFrame() {
      times.append(f.presentationTime)
      let expected = PixelBuffer(width: 8, height: 6)
      source.render(frameNumber: 3 + Int64(times.count - 1), into: expected)
      XCTAssertTrue(f.hasSamePixels(as: expected))
    }
    XCTAssertEqual(times, (3..<7).map { MediaTime(value: $0, timescale: 25) })
  }

  func testLiveSourceDropsFramesWhenEveryBufferIsHeld() throws {
    let source = TestPatternSource(geometry: FrameGeometry(width: 4, height: 4), frameRate: 1000, live: true, frameCount: 3, poolCapacity: 1)
    XCTAssertTrue(source.isLive)
    let held = try XCTUnwrap(try source.nextFrame())
    XCTAssertEqual(held.presentationTime, MediaTime.zero)
    XCTAssertNil(try source.nextFrame())  // frames 1 and 2 find no free buffer
    // What a recording reads of the drops, through the source protocol.
    let counter: any MediaSource<PCMBuffer> = source
    XCTAssertEqual(counter.framesDroppedOutOfBuffers + counter.framesSkippedLate, 2)
    withExtendedLifetime(held) {}
  }
}
