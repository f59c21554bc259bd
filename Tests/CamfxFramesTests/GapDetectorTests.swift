import CamfxCore
import CamfxFrames
import XCTest

/// Gaps found in a source's timestamps, and the ones a reconnecting camera marks itself.
final class GapDetectorTests: XCTestCase {
  private func t(_ tenths: Int64) -> MediaTime { MediaTime(value: tenths, timescale: 10) }

  func testAStepLongerThanThreeFramesAndHalfASecondIsAGap() {
    var detector = GapDetector(frameDuration: t(1))
    for tenths: Int64 in [0, 1, 2, 5, 6, 13, 14] { detector.note(t(tenths)) }
    // 0.2 → 0.5 is three frames (not more); 0.6 → 1.3 is a gap.
    XCTAssertEqual(detector.gaps, [CameraGap(start: 0.6, seconds: 0.7)])
  }

  func testAMarkedDetectorFindsOnlyTheMarkedGapsHoweverShort() {
    var detector = GapDetector.markedGapsOnly
    detector.note(t(0))
    XCTAssertNil(detector.note(t(40)), "a jump alone is no gap here")
    detector.breakAfterLastFrame()
    XCTAssertEqual(detector.note(t(41)), CameraGap(start: 4.0, seconds: 0.1))
    XCTAssertNil(detector.note(t(42)), "the mark is used up")
    detector.breakAfterLastFrame()
    detector.endGap(at: t(50))
    XCTAssertEqual(detector.gaps, [CameraGap(start: 4.0, seconds: 0.1), CameraGap(start: 4.2, seconds: 0.8)])
  }

  func testNoFrameYetNoGap() {
    var detector = GapDetector.markedGapsOnly
    detector.breakAfterLastFrame()
    detector.endGap(at: t(10))
    XCTAssertNil(detector.note(t(20)))
    XCTAssertEqual(detector.gaps, [])
  }
}
