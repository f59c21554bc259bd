import Foundation
import Synchronization
import XCTest

@testable import CamfxCore

/// The event count the pipeline's stages sleep on: a waiter wakes on `notify()` (not on
/// its time-out), and no wake-up is lost between a waiter's test and its sleep.
final class WakeSignalTests: XCTestCase {
  /// Ten seconds: a wait that ends by its time-out instead of a notify shows in the
  /// elapsed time, which the tests below keep far under it.
  static let timeout = 10_000_000_000

  func testAWaitWhoseConditionHoldsReturnsAtOnce() {
    let signal = WakeSignal()
    let started = ContinuousClock.now
    signal.wait(timeoutNanoseconds: Self.timeout) { true }
    XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
  }

  func testNotifyWakesASleepingWaiter() {
    let signal = WakeSignal()
    let published = Atomic<Bool>(false)
    let notifier = Thread {
      usleep(50_000)
      published.store(true, ordering: .releasing)
      signal.notify()
    }
    let started = ContinuousClock.now
    notifier.start()
    while !published.load(ordering: .acquiring) {
      signal.wait(timeoutNanoseconds: Self.timeout) { published.load(ordering: .acquiring) }
    }
    XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "woken by the time-out, not by notify()")
  }

  /// Two threads hand a token back and forth 2000 times, each sleeping until it is its
  /// turn: one lost wake-up would cost a ten-second time-out.
  func testPingPongLosesNoWakeUp() {
    let signal = WakeSignal()
    let turn = Atomic<Int>(0)
    let rounds = 2000
    let started = ContinuousClock.now
    let other = Thread {
      for round in 0..<rounds {
        while turn.load(ordering: .acquiring) != 2 * round + 1 {
          signal.wait(timeoutNanoseconds: Self.timeout) { turn.load(ordering: .acquiring) == 2 * round + 1 }
        }
        turn.store(2 * round + 2, ordering: .releasing)
        signal.notify()
      }
    }
    other.start()
    for round in 0..<rounds {
      turn.store(2 * round + 1, ordering: .releasing)
      signal.notify()
      while turn.load(ordering: .acquiring) != 2 * round + 2 {
        signal.wait(timeoutNanoseconds: Self.timeout) { turn.load(ordering: .acquiring) == 2 * round + 2 }
      }
    }
    XCTAssertEqual(turn.load(ordering: .acquiring), 2 * rounds)
    XCTAssertLessThan(ContinuousClock.now - started, .seconds(9), "a wake-up was lost")
  }
}
