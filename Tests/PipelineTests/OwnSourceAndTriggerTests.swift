import Camfx
import Foundation
import Synchronization
import XCTest

/// A pipeline built through the public API alone from a source and a trigger defined
/// here, as a program would plug in its own: the source is recorded like a built-in
/// one, and the trigger's event makes a clip.
final class OwnSourceAndTriggerTests: XCTestCase {
  /// A doorbell: a program's own trigger, rung from the source's thread.
  final class Doorbell: EventTrigger {
    private let target = Mutex<EventRecorder?>(nil)
    let rings = Atomic<Int>(0)
    func start(firing events: EventRecorder) throws { target.withLock { $0 = events } }
    func stop(firing events: EventRecorder) { target.withLock { $0 = nil } }
    func ring() {
      rings.add(1, ordering: .relaxed)
      target.withLock { $0 }?.trigger("doorbell")
    }
  }

  /// Four seconds of a colour ramp; rings the doorbell at its 3rd second.
  final class Ramp: MediaSource {
    let geometry = FrameGeometry(width: 320, height: 240)
    let frameDuration: MediaTime? = MediaTime(value: 1, timescale: 30)
    let isLive = false
    let pool = PixelBufferPool(geometry: FrameGeometry(width: 320, height: 240), capacity: 8)
    let doorbell: Doorbell
    var n: Int64 = 0
    init(doorbell: Doorbell) { self.doorbell = doorbell }
    func nextSample() throws -> MediaSample<PCMBuffer>? {
      guard n < 120, let frame = pool.acquire(presentationTime: MediaTime(value: n, timescale: 30)) else { return nil }
      frame.fill(BGRA(r: UInt8(n * 2), g: 90, b: 200))
      if n == 90 { doorbell.ring() }
      n += 1
      return .video(.bgra(frame))
    }
  }

  func testAProgramsOwnSourceIsRecordedAndItsOwnTriggerMakesAClip() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-own-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let doorbell = Doorbell()
    var recording = RecordingPipeline.Configuration(source: .own(Ramp(doorbell: doorbell)))
    recording.outputs = try RecordingOutputPlan(names: [directory.appendingPathComponent("all.mp4").path])
    recording.events = EventRecorder.Options(
      preRecord: 1, postRecord: 0.5, pattern: directory.appendingPathComponent("clip-%H%M%S.mp4").path)
    recording.triggers = [doorbell]
    recording.video.preset = "ultrafast"
    let summary = try RecordingPipeline(recording).run()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesOut, 120)
    XCTAssertEqual(doorbell.rings.load(ordering: .relaxed), 1)

    let all = try ffprobe(["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames,width", directory.appendingPathComponent("all.mp4").path])
    XCTAssertEqual(all["nb_read_frames"], "120")
    XCTAssertEqual(all["width"], "320")
    let clips = try XCTUnwrap(summary.events)
    XCTAssertEqual(clips.count, 1)
    XCTAssertEqual(clips.first?.trigger, "doorbell")
    XCTAssertNil(clips.first?.error)
    // The clip holds the pre-roll before the ring (from the keyframe at or before it, up
    // to a second earlier) and the post-roll after it, and the frame the bell rang on.
    let clipPath = try XCTUnwrap(clips.first?.path)
    let clip = try ffprobe(["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames", clipPath])
    let frames = try XCTUnwrap(Int(try XCTUnwrap(clip["nb_read_frames"])))
    XCTAssertGreaterThanOrEqual(frames, 45)
    XCTAssertLessThanOrEqual(frames, 75)
    let rgb = [UInt8](try runTool("ffmpeg", ["-v", "error", "-i", clipPath, "-vf", "crop=2:2:100:100", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
    let reds = stride(from: 0, to: rgb.count, by: 12).map { Int(rgb[$0]) }
    XCTAssertTrue(reds.contains { abs($0 - 180) <= 4 }, "no frame of the clip is the one the bell rang on: \(reds)")
  }

  func testATriggerWithoutEventClipsIsRefusedByName() throws {
    var recording = RecordingPipeline.Configuration(source: .live(.testPattern))
    recording.triggers = [Doorbell()]
    XCTAssertThrowsError(try RecordingPipeline(recording)) { error in
      XCTAssertEqual("\(error)", "a trigger starts event clips: the recording needs events (a pre-record) for it")
    }
  }
}
