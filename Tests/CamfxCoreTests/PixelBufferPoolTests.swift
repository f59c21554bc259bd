import Foundation
import XCTest

@testable import CamfxCore

/// The pool hands out a fixed set of storages again and again, never more.
final class PixelBufferPoolTests: XCTestCase {
  func testAcquiredBufferHasPoolGeometryAlignedRowsAndTimestamp() throws {
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 17, height: 5), capacity: 2)
    let t = MediaTime(value: 7, timescale: 30)
    let b = try XCTUnwrap(pool.tryAcquire(presentationTime: t))
    XCTAssertEqual(b.width, 17)
    XCTAssertEqual(b.height, 5)
    XCTAssertEqual(b.bytesPerRow, 128)  // 68 bytes rounded up to 64
    XCTAssertEqual(pool.bytesPerRow, 128)
    XCTAssertEqual(b.presentationTime, t)
    b.withUnsafeBytes { XCTAssertEqual(Int(bitPattern: $0) % PixelStorage.alignment, 0) }
  }

  func testReleasedBufferReturnsToThePool() {
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 4, height: 4), capacity: 3)
    XCTAssertEqual(pool.buffersInUse, 0)
    var held: [PixelBuffer] = []
    for i in 1...3 {
      held.append(pool.tryAcquire()!)
      XCTAssertEqual(pool.buffersInUse, i)
    }
    held.removeLast()
    XCTAssertEqual(pool.buffersInUse, 2)
    held.removeAll()
    XCTAssertEqual(pool.buffersInUse, 0)
  }

  func testReuseNeverGrowsBeyondCapacity() {
    let capacity = 3
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 8, height: 2), capacity: capacity)
    var seen = Set<ObjectIdentifier>()
    var inFlight: [PixelBuffer] = []
    for i in 0..<500 {
      // Hold up to two frames at a time, as two pipeline stages would.
      let b = pool.tryAcquire()!
      seen.insert(ObjectIdentifier(b.storage))
      inFlight.append(b)
      if inFlight.count > 2 || i % 7 == 0 { inFlight.removeFirst() }
    }
    XCTAssertEqual(seen.count, capacity, "the pool handed out storages it did not create up front")
    inFlight.removeAll()
    XCTAssertEqual(pool.buffersInUse, 0)
  }

  func testExhaustedPoolRefusesThenHandsBackTheReleasedStorage() {
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 2, height: 2), capacity: 2)
    let a = pool.tryAcquire()!
    var b: PixelBuffer? = pool.tryAcquire()!
    XCTAssertNil(pool.tryAcquire(), "an exhausted pool must refuse, not allocate")
    let released = ObjectIdentifier(b!.storage)
    b = nil
    let c = pool.tryAcquire()
    XCTAssertNotNil(c)
    XCTAssertEqual(ObjectIdentifier(c!.storage), released)
    XCTAssertNotEqual(ObjectIdentifier(c!.storage), ObjectIdentifier(a.storage))
  }

  func testACroppedViewKeepsItsStorageOutOfThePool() {
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 8, height: 8), capacity: 1)
    var view: PixelBuffer? = pool.tryAcquire()!
    view!.crop(x: 2, y: 2, width: 3, height: 3)
    XCTAssertNil(pool.tryAcquire())
    view = nil
    XCTAssertNotNil(pool.tryAcquire())
  }

  func testBlockingAcquireGivesUpWhenAskedToStop() {
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 2, height: 2), capacity: 1)
    let held = pool.tryAcquire()!
    var asked = 0
    XCTAssertNil(pool.acquire(shouldStop: { asked += 1; return asked > 2 }))
    XCTAssertEqual(asked, 3)
    _ = held
  }

  func testBlockingAcquireWaitsForABufferReleasedOnAnotherThread() {
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 2, height: 2), capacity: 1)
    let ring = FrameRing<PixelBuffer>(capacity: 2)
    XCTAssertTrue(ring.tryPush(pool.tryAcquire()!))
    XCTAssertNil(pool.tryAcquire())
    let consumer = Thread {
      // The downstream stage takes the frame and lets it go.
      _ = ring.pop()
    }
    consumer.start()
    let b = pool.acquire()
    XCTAssertNotNil(b, "acquire must return once the other thread released the only buffer")
  }

  func testFrameSizedBuffersAreZeroedAlignedAndWritable() throws {
    // 1280x720 BGRA is far above the size from which storage is mapped from the kernel.
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 1280, height: 720), capacity: 2)
    let b = try XCTUnwrap(pool.tryAcquire())
    XCTAssertGreaterThanOrEqual(b.bytesPerRow * b.height, PixelStorage.mappedThreshold)
    b.withUnsafeBytes { XCTAssertEqual(Int(bitPattern: $0) % PixelStorage.alignment, 0) }
    XCTAssertEqual(b[0, 0], BGRA(b: 0, g: 0, r: 0, a: 0))
    XCTAssertEqual(b[1279, 719], BGRA(b: 0, g: 0, r: 0, a: 0))
    b.fill(BGRA(b: 1, g: 2, r: 3, a: 4))
    XCTAssertEqual(b[1279, 719], BGRA(b: 1, g: 2, r: 3, a: 4))
  }

  func testTheFirstFreeBufferIsReusedSoSparesStayUntouched() throws {
    // A live pool is sized for the worst stall; in steady state only the first few
    // buffers should circulate, so the spares never take RAM.
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 64, height: 64), capacity: 8)
    var seen = Set<UnsafeMutableRawPointer>()
    var previous: PixelBuffer?
    for _ in 0..<100 {
      // Two stages: one frame held while the next is acquired.
      let b = try XCTUnwrap(pool.tryAcquire())
      b.withUnsafeBytes { seen.insert(UnsafeMutableRawPointer(mutating: $0)) }
      previous = b
      _ = previous
    }
    XCTAssertEqual(seen.count, 2)
  }
}
