import Camfx
import Foundation
import CamfxCore
import CamfxMedia
import Synchronization
import XCTest

/// The wrappers around a source (timelapse, pacing) pass on what they do not change by
/// construction: an interrupt, the yuv420p ability, the camera's gaps. TimelapseSource
/// used to drop `interrupt()`, so a timelapse of an unplugged camera waited for it on
/// Ctrl-C. And a source that implements only what the protocol requires is stopped,
/// has its gaps found and is encoded as yuv420p without a line of its own for any of it.
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

  /// A source of a program's own that implements only what `MediaSource` requires: BGRA
  /// frames 0.1 s apart by their timestamps, with a hole from 0.4 s to 1.5 s, and after
  /// 2.9 s a jump to 100 s (a clock that leapt). Its frames come at once when asked.
  final class BareSource: MediaSource {
    let geometry = FrameGeometry(width: 32, height: 16)
    let frameDuration: MediaTime? = MediaTime(value: 1, timescale: 10)
    let isLive = true
    private var next = 0
    private let pool = PixelBufferPool(geometry: FrameGeometry(width: 32, height: 16), capacity: 8)

    func nextSample() throws -> MediaSample<PCMBuffer>? {
      let tenths = next < 5 ? next : next < 20 ? 15 + (next - 5) : 1000 + next
      next += 1
      guard let frame = pool.acquire(presentationTime: MediaTime(value: Int64(tenths), timescale: 10)) else { return nil }
      frame.fill(BGRA(r: 200, g: 100, b: 50))
      return .video(.bgra(frame))
    }
  }

  func testABareSourceInTimelapseAndPacingStopsAtOnceReportsItsGapAndIsEncodedAsYUV420() throws {
    let source = BareSource()
    let input = TimelapseSource(
      PacedSource(source), interval: MediaTime(value: 1, timescale: 5), frameDuration: MediaTime(value: 1, timescale: 30))
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-bare-\(UUID().uuidString).mp4").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    var video = VideoSettings(geometry: input.geometry)
    video.fps = 30
    video.preset = "ultrafast"
    let writer = try MovieWriter(path: output, settings: MovieSettings(video: video))
    var chain = FilterChain([])
    try chain.configure(input: input.geometry)
    let session = try RecordingSession<PCMBuffer>(input: input, chain: chain, sink: MovieWriterSink(writer: writer))
    XCTAssertEqual(session.videoPath, "bgra → yuv420p → encoder")
    session.start()
    // Every frame up to 2.9 s is paced out by then; the pacer then waits for 100 s.
    let deadline = Date().addingTimeInterval(15)
    while session.statistics.snapshot.framesWritten < 11, Date() < deadline { usleep(20_000) }
    usleep(200_000)
    let stopped = Date()
    session.stop()
    let summary = session.waitUntilFinished(statusInterval: 0.05)
    XCTAssertLessThan(Date().timeIntervalSince(stopped), 1.0, "the stop ended the pacer's wait")
    XCTAssertNil(summary.error)
    // Kept every 0.2 s of the source: 0, 0.2, 0.4, then 1.5 and every 0.2 s to 2.9.
    XCTAssertEqual(summary.framesOut, 11)
    let gaps = try XCTUnwrap(summary.cameraGaps)
    XCTAssertEqual(gaps.count, 1, "\(gaps)")
    XCTAssertEqual(gaps.first?.start ?? 0, 0.4, accuracy: 1e-9)
    XCTAssertEqual(gaps.first?.seconds ?? 0, 1.1, accuracy: 1e-9)
    // The encoder's yuv420p, made from the source's BGRA: the colour comes back.
    let rgb = [UInt8](try runTool("ffmpeg", ["-v", "error", "-i", output, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
    XCTAssertEqual(rgb.count, 32 * 16 * 3)
    XCTAssertEqual(Double(rgb[8 * 32 * 3 + 16 * 3]), 200, accuracy: 8)
    XCTAssertEqual(Double(rgb[8 * 32 * 3 + 16 * 3 + 1]), 100, accuracy: 8)
    XCTAssertEqual(Double(rgb[8 * 32 * 3 + 16 * 3 + 2]), 50, accuracy: 8)
  }
}
