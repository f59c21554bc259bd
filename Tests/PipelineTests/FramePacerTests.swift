import CamfxCore
import Synchronization
import XCTest

@testable import Camfx

/// The live pacer on a fake clock: a consumer a few frames late loses nothing, as with a
/// camera's capture queue; one later than the queue loses the oldest frames.
final class FramePacerTests: XCTestCase {
  /// A clock the test moves by hand (nanoseconds).
  final class FakeClock: Sendable {
    let now = Atomic<Int64>(1_000_000_000)
    func advance(frames: Int64) { now.add(frames * 100_000_000, ordering: .relaxed) }  // 10 fps
    /// A 10 fps pacer on this clock.
    func pacer(queueDepth: Int) -> FramePacer {
      FramePacer(frameDuration: MediaTime(value: 1, timescale: 10), queueDepth: queueDepth) { self.now.load(ordering: .relaxed) }
    }
  }

  func testOnTimeAndSlightlyLateConsumersGetEveryFrame() {
    let clock = FakeClock()
    var pacer = clock.pacer(queueDepth: 4)
    XCTAssertEqual(pacer.waitForFrame(0), 0)
    clock.advance(frames: 1)
    XCTAssertEqual(pacer.waitForFrame(1), 1)
    // Back 3 frames late (frames 2, 3, 4 and 5 are all due): the queue still holds 2.
    clock.advance(frames: 4)
    XCTAssertEqual(pacer.waitForFrame(2), 2)
    XCTAssertEqual(pacer.waitForFrame(3), 3)
    XCTAssertEqual(pacer.waitForFrame(4), 4)
    XCTAssertEqual(pacer.waitForFrame(5), 5)
  }

  func testAConsumerLaterThanTheQueueLosesTheOldestFrames() {
    let clock = FakeClock()
    var pacer = clock.pacer(queueDepth: 4)
    XCTAssertEqual(pacer.waitForFrame(0), 0)
    // Frames 1...10 are due when the consumer asks for 1: only the newest 4 (7...10) are kept.
    clock.advance(frames: 10)
    XCTAssertEqual(pacer.waitForFrame(1), 7)
    XCTAssertEqual(pacer.waitForFrame(8), 8)
  }

  func testAQueueOfOneSkipsToTheLatestDueFrame() {
    let clock = FakeClock()
    var pacer = clock.pacer(queueDepth: 1)
    XCTAssertEqual(pacer.waitForFrame(0), 0)
    clock.advance(frames: 3)
    XCTAssertEqual(pacer.waitForFrame(1), 3)
  }
}
