import Camfx
import CamfxCore
import CamfxMedia
import Synchronization
import XCTest

/// The wrappers around an input (timelapse, pacing) pass on what they do not change by
/// construction: an interrupt, the yuv420p ability, the camera's gaps. TimelapseSource
/// used to drop `interrupt()`, so a timelapse of an unplugged camera waited for it on
/// Ctrl-C.
final class MediaSourceWrapperTests: XCTestCase {
  /// An input defined here, neither camera nor file: BGRA frames of its own, one gap,
  /// and a record of what the session asked of it.
  final class SyntheticInput: MediaSource, @unchecked Sendable {
    typealias Audio = PCMBuffer
    let geometry = FrameGeometry(width: 16, height: 8)
    let frameDuration: MediaTime? = MediaTime(value: 1, timescale: 10)
    let isLive = true
    let hasAudio = false
    let interrupted = Atomic<Bool>(false)
    var askedForYUV420 = false
    private var next = 0
    private(set) var framesDroppedOutOfBuffers = 0
    private let pool = PixelBufferPool(geometry: FrameGeometry(width: 16, height: 8), capacity: 4)

    var canDeliverYUV420Frames: Bool { true }
    func deliverYUV420Frames() { askedForYUV420 = true }
    func interrupt() { interrupted.store(true, ordering: .releasing) }
    var cameraGaps: [CameraGap]? { [CameraGap(start: 1.5, seconds: 2)] }

    func nextSample() throws -> MediaSample<PCMBuffer>? {
      while next < 30, !interrupted.load(ordering: .acquiring) {
        defer { next += 1 }
        if let frame = pool.tryAcquire(presentationTime: MediaTime(value: Int64(next), timescale: 10)) {
          return .video(.bgra(frame))
        }
        framesDroppedOutOfBuffers += 1
      }
      return nil
    }
  }

  func testTimelapseAndPacingPassOnInterruptGapsAndYUV420() throws {
    let synthetic = SyntheticInput()
    let paced = PacedSource(synthetic)
    let timelapse = TimelapseSource(paced, interval: MediaTime(value: 1, timescale: 2), frameDuration: MediaTime(value: 1, timescale: 30))
    let input: any MediaSource<PCMBuffer> = timelapse
    XCTAssertEqual(input.geometry, FrameGeometry(width: 16, height: 8))
    XCTAssertTrue(input.isLive)
    XCTAssertTrue(input.canDeliverYUV420Frames)
    try input.deliverYUV420Frames()
    XCTAssertTrue(synthetic.askedForYUV420, "deliverYUV420Frames reached the input inside both wrappers")
    XCTAssertEqual(input.cameraGaps, [CameraGap(start: 1.5, seconds: 2)])
    // One frame in five kept (0.5 s of a 10 fps source), re-timed at 30 fps.
    guard case .video(let first)? = try input.nextSample() else { return XCTFail("no first frame") }
    XCTAssertEqual(first.presentationTime, .zero)
    guard case .video(let second)? = try input.nextSample() else { return XCTFail("no second frame") }
    XCTAssertEqual(second.presentationTime, MediaTime(value: 1, timescale: 30))
    input.interrupt()
    XCTAssertTrue(synthetic.interrupted.load(ordering: .acquiring), "interrupt() reached the input inside both wrappers")
    XCTAssertNil(try input.nextSample(), "the interrupted input ended")
  }
}
