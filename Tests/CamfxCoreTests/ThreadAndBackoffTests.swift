import CamfxCore
import Foundation
import Synchronization
import XCTest

/// The one way camfx starts threads, waits and backs off.
final class ThreadAndBackoffTests: XCTestCase {
  func testBackoffDoublesToItsCeilingAndStartsAgainAfterReset() {
    var backoff = Backoff(first: 1, maximum: 30)
    XCTAssertEqual((0..<7).map { _ in backoff.next() }, [1, 2, 4, 8, 16, 30, 30])
    backoff.reset()
    XCTAssertEqual(backoff.next(), 1)
  }

  /// The closure runs on a thread of its own with the name given (cut to the 15 bytes
  /// the kernel keeps), and `join` returns only after it has.
  func testNamedThreadRunsNamedAndJoins() throws {
    let seen = Mutex<(name: String, sameThread: Bool)?>(nil)
    let caller = pthread_self()
    let thread = try NamedThread("camfx.test.thread.long") {
      let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
      seen.withLock { $0 = (comm.trimmingCharacters(in: .whitespacesAndNewlines), pthread_equal(pthread_self(), caller) != 0) }
    }
    thread.join()
    let result = seen.withLock { $0 }
    XCTAssertEqual(result?.name, "camfx.test.thre")
    XCTAssertEqual(result?.sameThread, false)
  }

  func testSleepingUntilAPassedDeadlineReturnsAtOnceAndAFutureOneWaits() {
    let start = MonotonicClock.nanoseconds()
    MonotonicClock.sleep(untilNanoseconds: start - 1_000_000_000)
    XCTAssertLessThan(MonotonicClock.nanoseconds() - start, 500_000_000, "at once, not the second it was past")
    MonotonicClock.sleep(seconds: 0.02)
    XCTAssertGreaterThanOrEqual(MonotonicClock.nanoseconds() - start, 20_000_000)
  }
}
