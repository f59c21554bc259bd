import Camfx
import Foundation
import Synchronization
import XCTest

/// The taps (motion, stills, a preview, a program's own) run on a stage of their own,
/// beside the encoder: a tap that blocks, or a trigger that holds the event recorder's
/// lock, costs the recording nothing. Checked on what was written: every frame the
/// source made is in the file, and none was dropped at the source.
final class TapStageTests: XCTestCase {
  /// Takes every frame and sleeps `seconds` on each.
  final class BlockingTap: FrameTap, @unchecked Sendable {
    let seconds: Double
    private let count = Atomic<Int>(0)
    private let lastTime = Mutex<Double>(-1)
    private let inOrder = Atomic<Bool>(true)
    init(seconds: Double) { self.seconds = seconds }
    var taken: Int { count.load(ordering: .acquiring) }
    var sawFramesInOrder: Bool { inOrder.load(ordering: .acquiring) }
    var wantsFrame: Bool { true }
    func take(_ frame: VideoFrame) {
      let time = frame.presentationTime.seconds
      lastTime.withLock { last in
        if time <= last { inOrder.store(false, ordering: .releasing) }
        last = time
      }
      count.add(1, ordering: .releasing)
      usleep(UInt32(seconds * 1e6))
    }
  }

  /// At frame `at`, starts a clip, then holds the event recorder's lock for `seconds`
  /// (what a clip name on a stalled disk would cost a trigger), while another thread
  /// triggers too and waits for that lock.
  final class SlowTriggerTap: FrameTap, @unchecked Sendable {
    let at: Int
    let seconds: Double
    var recorder: EventRecorder?
    private let frames = Atomic<Int>(0)
    let secondTrigger = DispatchGroup()
    init(at: Int, seconds: Double) {
      self.at = at
      self.seconds = seconds
    }
    var wantsFrame: Bool { frames.add(1, ordering: .relaxed).newValue - 1 == at }
    func take(_ frame: VideoFrame) {
      guard let recorder else { return }
      recorder.trigger("api")
      DispatchQueue.global().async(group: secondTrigger) {
        usleep(100_000)
        recorder.trigger("http")
      }
      recorder.observe(score: 50, boxes: [], at: 0.5) { [seconds] _ in
        usleep(UInt32(seconds * 1e6))
        return nil
      }
    }
  }

  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-taps-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// `seconds` of a 160x120 30 fps test pattern, on the wall clock (`live`) or as fast
  /// as it encodes, to `main.mp4`.
  private func configuration(seconds: Int, live: Bool) throws -> RecordingPipeline.Configuration {
    var recording = RecordingPipeline.Configuration(source: .live(.testPattern))
    recording.size = FrameGeometry(width: 160, height: 120)
    recording.realtime = live
    recording.video.preset = "ultrafast"
    recording.limits.duration = MediaTime(value: Int64(seconds), timescale: 1)
    recording.outputs = try RecordingOutputPlan(names: [path("main.mp4")])
    return recording
  }

  /// Video frames ffprobe counts in `file`.
  private func frames(_ file: String) throws -> Int {
    let text = String(
      decoding: try runTool(
        "ffprobe",
        ["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file]),
      as: UTF8.self)
    return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }

  func testATapThatBlocksASecondPerFrameCostsALiveRecordingNoFrame() throws {
    let pipeline = try RecordingPipeline(try configuration(seconds: 2, live: true))
    let tap = BlockingTap(seconds: 1)
    pipeline.addTap(tap)
    let summary = try pipeline.run()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesIn, 60)
    XCTAssertEqual(summary.droppedTotal, 0, "\(summary.dropped)")
    XCTAssertEqual(summary.framesOut, 60)
    XCTAssertEqual(try frames(path("main.mp4")), 60, "the file has every frame the source made")
    // The tap saw what it had time for, in order; the rest was dropped for it alone.
    let taps = try XCTUnwrap(summary.taps)
    XCTAssertEqual(taps.frames, tap.taken)
    XCTAssertEqual(taps.frames + taps.dropped, 60)
    XCTAssertGreaterThan(taps.dropped, 0)
    XCTAssertTrue(tap.sawFramesInOrder)
  }

  func testBehindStoredMediaTheTapsSeeEveryFrame() throws {
    let pipeline = try RecordingPipeline(try configuration(seconds: 1, live: false))
    let tap = BlockingTap(seconds: 0.02)
    pipeline.addTap(tap)
    let summary = try pipeline.run()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesOut, 30)
    XCTAssertEqual(try frames(path("main.mp4")), 30)
    XCTAssertEqual(summary.taps, RecordingSummary.TapSummary(frames: 30, dropped: 0))
    XCTAssertEqual(tap.taken, 30)
    XCTAssertTrue(tap.sawFramesInOrder)
  }

  func testATriggerHeldUpUnderTheEventRecordersLockDoesNotStallTheEncoder() throws {
    // The clip's 3 s post-roll outlasts the lock: the second trigger extends it.
    var recording = try configuration(seconds: 4, live: true)
    recording.events = EventRecorder.Options(preRecord: 1, postRecord: 3, pattern: path("clip.mp4"))
    let pipeline = try RecordingPipeline(recording)
    let tap = SlowTriggerTap(at: 15, seconds: 1.5)
    tap.recorder = try XCTUnwrap(pipeline.events)
    pipeline.addTap(tap)
    let summary = try pipeline.run()
    tap.secondTrigger.wait()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesIn, 120)
    XCTAssertEqual(summary.droppedTotal, 0, "\(summary.dropped)")
    XCTAssertEqual(summary.framesOut, 120)
    XCTAssertEqual(try frames(path("main.mp4")), 120, "the file has every frame the source made")
    // Both triggers made one clip, which decodes.
    let events = summary.events ?? []
    XCTAssertEqual(events.count, 1, "\(events)")
    let event = try XCTUnwrap(events.first)
    XCTAssertNil(event.error)
    XCTAssertEqual(event.triggers, 2)
    XCTAssertGreaterThan(event.frames, 0)
    XCTAssertEqual(try frames(event.path), event.frames)
  }
}

/// `StillCapture` on its own: what the tap stage does with it when frames are marked
/// faster than it takes them.
final class StillCaptureTests: XCTestCase {
  /// A still for each request: two requests give two stills, and a frame marked while
  /// the last request was still open, taken after it was answered, gives none.
  func testAStillForEachRequestAndNoneForFramesMarkedPastThem() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-stills-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let stills = StillCapture(pattern: directory.appendingPathComponent("still.png").path) { _ in }
    let frame = VideoFrame.bgra(PixelBuffer(width: 8, height: 8))
    stills.request()
    stills.request()
    // The filter stage marks three frames (each asks `wantsFrame`) before the tap stage
    // takes the first.
    XCTAssertTrue(stills.wantsFrame)
    for _ in 0..<3 { stills.take(frame) }
    stills.waitUntilWritten()
    XCTAssertEqual(stills.count, 2)
    XCTAssertFalse(stills.wantsFrame)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["still-000.png", "still-001.png"])
  }
}
