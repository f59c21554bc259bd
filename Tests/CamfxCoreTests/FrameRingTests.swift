import Foundation
import XCTest

@testable import CamfxCore

/// The SPSC ring: order, full/empty edges at every wrap-around offset, two threads, and
/// the close/drain protocol the pipeline's shutdown relies on.
final class FrameRingTests: XCTestCase {
  /// Like swift-collections' `withEveryDeque`: start the ring at every head offset (so
  /// the live region wraps at every possible slot), fill it, then drain it.
  func testFillAndDrainAtEveryWrapAroundOffset() {
    for capacity in [2, 4, 8] {
      for offset in 0..<(2 * capacity) {
        let ring = FrameRing<Int>(capacity: capacity)
        for i in 0..<offset {
          XCTAssertTrue(ring.tryPush(i))
          XCTAssertEqual(ring.tryPop(), i)
        }
        XCTAssertNil(ring.tryPop(), "capacity \(capacity) offset \(offset): empty ring popped")
        for i in 0..<capacity {
          XCTAssertTrue(ring.tryPush(100 + i), "capacity \(capacity) offset \(offset): push \(i) refused")
        }
        XCTAssertEqual(ring.count, capacity)
        XCTAssertFalse(ring.tryPush(-1), "capacity \(capacity) offset \(offset): full ring accepted a push")
        for i in 0..<capacity {
          XCTAssertEqual(ring.tryPop(), 100 + i, "capacity \(capacity) offset \(offset): wrong order")
        }
        XCTAssertNil(ring.tryPop())
        XCTAssertEqual(ring.count, 0)
      }
    }
  }

  /// Partial fills at every offset: push k, pop j < k, push again; order is FIFO throughout.
  func testInterleavedPushPopAtEveryOffsetKeepsOrder() {
    let capacity = 8
    for offset in 0..<capacity {
      for fill in 1...capacity {
        let ring = FrameRing<Int>(capacity: capacity)
        for i in 0..<offset { _ = ring.tryPush(i); _ = ring.tryPop() }
        var next = 0
        var expected = 0
        for _ in 0..<3 {
          while ring.count < fill { XCTAssertTrue(ring.tryPush(next)); next += 1 }
          for _ in 0..<(fill + 1) / 2 {
            XCTAssertEqual(ring.tryPop(), expected)
            expected += 1
          }
        }
        while let v = ring.tryPop() {
          XCTAssertEqual(v, expected)
          expected += 1
        }
        XCTAssertEqual(expected, next)
      }
    }
  }

  /// A million items from one thread to another arrive complete and in order.
  func testMillionItemsBetweenTwoThreadsArriveInOrder() {
    let ring = FrameRing<Int>(capacity: 64)
    let total = 1_000_000
    let done = DispatchSemaphore(value: 0)
    let producer = Thread {
      for i in 0..<total { _ = ring.push(i) }
      ring.close()
      done.signal()
    }
    producer.start()
    var expected = 0
    var outOfOrder = 0
    while let v = ring.pop() {
      if v != expected { outOfOrder += 1 }
      expected = v + 1
    }
    done.wait()
    XCTAssertEqual(outOfOrder, 0)
    XCTAssertEqual(expected, total)
  }

  /// Reference-counted elements (pixel buffers) survive the trip and are released by the
  /// consumer, or by the ring's deinit when left in it.
  func testElementsLeftInTheRingAreReleasedWithIt() {
    final class Token: Sendable {}
    weak var popped: Token?
    weak var left: Token?
    do {
      let ring = FrameRing<Token>(capacity: 4)
      let a = Token(), b = Token()
      popped = a
      left = b
      XCTAssertTrue(ring.tryPush(a))
      XCTAssertTrue(ring.tryPush(b))
      XCTAssertTrue(ring.tryPop() === a)
    }
    XCTAssertNil(popped)
    XCTAssertNil(left, "an element still in the ring leaked when the ring went away")
  }

  func testPopDrainsEverythingPushedBeforeCloseThenReturnsNil() {
    let ring = FrameRing<Int>(capacity: 4)
    XCTAssertTrue(ring.tryPush(1))
    XCTAssertTrue(ring.tryPush(2))
    XCTAssertTrue(ring.tryPush(3))
    XCTAssertFalse(ring.isClosed)
    ring.close()
    XCTAssertTrue(ring.isClosed)
    XCTAssertEqual(ring.pop(), 1)
    XCTAssertEqual(ring.pop(), 2)
    XCTAssertEqual(ring.pop(), 3)
    XCTAssertNil(ring.pop(), "a closed, drained ring must end the consumer's loop")
    XCTAssertNil(ring.pop())
  }

  func testDrainAcrossThreadsAfterClose() {
    // The producer closes right after its last push; the consumer must still see every item.
    for _ in 0..<50 {
      let ring = FrameRing<Int>(capacity: 2)
      let producer = Thread {
        for i in 0..<100 { _ = ring.push(i) }
        ring.close()
      }
      producer.start()
      var got: [Int] = []
      while let v = ring.pop() { got.append(v) }
      XCTAssertEqual(got, Array(0..<100))
    }
  }

  func testPopOnEmptyOpenRingReturnsNilWhenAskedToStop() {
    let ring = FrameRing<Int>(capacity: 2)
    var asked = 0
    XCTAssertNil(ring.pop(shouldStop: { asked += 1; return asked > 3 }))
    XCTAssertEqual(asked, 4)
  }

  func testPushOnFullRingWaitsUntilConsumerMakesRoom() {
    let ring = FrameRing<Int>(capacity: 2)
    XCTAssertTrue(ring.tryPush(0))
    XCTAssertTrue(ring.tryPush(1))
    let pushed = DispatchSemaphore(value: 0)
    let producer = Thread {
      _ = ring.push(2)  // blocks: full
      pushed.signal()
    }
    producer.start()
    XCTAssertEqual(ring.pop(), 0)
    pushed.wait()
    XCTAssertEqual(ring.pop(), 1)
    XCTAssertEqual(ring.pop(), 2)
  }

  func testPushOnFullRingGivesUpWhenAskedToStop() {
    let ring = FrameRing<Int>(capacity: 2)
    XCTAssertTrue(ring.tryPush(0))
    XCTAssertTrue(ring.tryPush(1))
    var asked = 0
    XCTAssertFalse(ring.push(2, shouldStop: { asked += 1; return asked > 2 }))
    XCTAssertEqual(ring.tryPop(), 0)
    XCTAssertEqual(ring.tryPop(), 1)
    XCTAssertNil(ring.tryPop(), "the refused element must not be in the ring")
  }
}
