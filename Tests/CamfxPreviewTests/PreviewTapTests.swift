import Camfx
import CamfxPNG
import CamfxPreview
import Foundation
import XCTest

/// The preview's snapshots: each is answered with the next frame, or fails after its
/// own timeout, never another request's.
final class PreviewTapTests: XCTestCase {
  private let geometry = FrameGeometry(width: 32, height: 16)

  private func frame(_ color: BGRA) -> VideoFrame {
    let buffer = PixelBuffer(width: geometry.width, height: geometry.height)
    buffer.fill(color)
    return .bgra(buffer)
  }

  /// The colour of a PNG snapshot's corner pixel.
  private func corner(of png: [UInt8]) throws -> BGRA {
    let path = NSTemporaryDirectory() + "camfx-preview-tap-\(getpid())-\(UUID().uuidString).png"
    defer { try? FileManager.default.removeItem(atPath: path) }
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(png)))
    let picture = try PNGFile.read(path: path)
    XCTAssertEqual(picture.width, geometry.width)
    XCTAssertEqual(picture.height, geometry.height)
    return picture[0, 0]
  }

  func testASnapshotAskedLateInAnEarlierOnesTimeWaitsItsOwnTime() throws {
    let tap = PreviewTap(geometry: geometry, framesPerSecond: 5, snapshotTimeout: 2)
    try tap.start()
    defer { tap.stop() }
    let asked = Date()
    let first = Answer()
    tap.snapshot(.png, completion: first.completion)
    XCTAssertTrue(tap.wantsFrame)
    tap.take(frame(BGRA(r: 255, g: 0, b: 0)))
    XCTAssertEqual(try corner(of: try XCTUnwrap(first.wait(seconds: 5)).get()), BGRA(r: 255, g: 0, b: 0))

    // Asked 0.3 s before the first request's timer fires; the frame comes after it did.
    Thread.sleep(until: asked + 1.7)
    let second = Answer()
    tap.snapshot(.png, completion: second.completion)
    Thread.sleep(until: asked + 2.5)
    XCTAssertTrue(tap.wantsFrame, "the second snapshot still waits for a frame")
    tap.take(frame(BGRA(r: 0, g: 0, b: 255)))
    let answer = try XCTUnwrap(second.wait(seconds: 5), "the second snapshot was answered")
    XCTAssertEqual(try corner(of: try answer.get()), BGRA(r: 0, g: 0, b: 255))
  }

  func testASnapshotNoFrameComesForFailsAfterItsTimeout() throws {
    let tap = PreviewTap(geometry: geometry, framesPerSecond: 5, snapshotTimeout: 0.3)
    try tap.start()
    defer { tap.stop() }
    let asked = Date()
    let answer = Answer()
    tap.snapshot(.jpeg, completion: answer.completion)
    let result = try XCTUnwrap(answer.wait(seconds: 5))
    XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(asked), 0.3)
    XCTAssertEqual(result.failure, PreviewError("no frame came within 0.3 s"))
    XCTAssertFalse(tap.wantsFrame, "no snapshot waits, and there is no viewer")
  }

  func testStoppingFailsTheSnapshotsStillWaiting() throws {
    let tap = PreviewTap(geometry: geometry, framesPerSecond: 5, snapshotTimeout: 30)
    try tap.start()
    let answer = Answer()
    tap.snapshot(.png, completion: answer.completion)
    tap.stop()
    XCTAssertEqual(try XCTUnwrap(answer.wait(seconds: 5)).failure, PreviewError("the preview has stopped"))
    let late = Answer()
    tap.snapshot(.png, completion: late.completion)
    XCTAssertEqual(try XCTUnwrap(late.wait(seconds: 0)).failure, PreviewError("the preview has stopped"))
  }
}

/// One snapshot's answer, waited for.
private final class Answer: @unchecked Sendable {
  private let lock = NSLock()
  private var result: Result<[UInt8], PreviewError>?
  private let arrived = DispatchSemaphore(value: 0)

  var completion: PreviewTap.SnapshotCompletion {
    { [self] result in
      lock.withLock { self.result = result }
      arrived.signal()
    }
  }

  func wait(seconds: Double) -> Result<[UInt8], PreviewError>? {
    guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
    return lock.withLock { result }
  }
}

extension Result {
  fileprivate var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
