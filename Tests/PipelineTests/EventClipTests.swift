import Camfx
import Foundation
import Synchronization
import XCTest

/// Event clips from the packet bus's pre-roll, through the library: triggers fired at
/// exact frames of a test pattern recorded as fast as it encodes, clips decoded and
/// compared with the continuous recording of the same encode.
final class EventClipTests: XCTestCase {
  /// Fires `trigger` when the writer stage reaches frame `n` (before it is encoded):
  /// taps are asked on the filter stage, ahead of the writer, so it first waits until
  /// the writer has encoded the frames before `n` (it never needs frame `n` for that).
  final class TriggerAtFrames: FrameTap, @unchecked Sendable {
    private let frames = Atomic<Int>(0)
    let at: [Int: (EventRecorder) -> Void]
    var recorder: EventRecorder?
    var writer: MovieWriter?
    init(_ at: [Int: (EventRecorder) -> Void]) { self.at = at }
    var wantsFrame: Bool {
      let n = frames.add(1, ordering: .relaxed).newValue - 1
      if let fire = at[n], let recorder {
        while let writer, writer.videoFramesAppended < n { usleep(200) }
        fire(recorder)
      }
      return false
    }
    func take(_ frame: VideoFrame) {}
  }

  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-events-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// Records `seconds` of a 160x120 30 fps test pattern to `main.mp4` with event clips
  /// `clip-NNN.mp4`, firing the triggers at their frames.
  private func record(
    seconds: Int, preRecord: Double = 3, postRecord: Double = 2, gap: Double? = nil, gop: Int? = nil,
    pattern: String = "clip.mp4", preset: String? = "ultrafast", sound: RecordingPipeline.Configuration.Sound = .none,
    triggers: [Int: (EventRecorder) -> Void]
  ) throws -> (RecordingSummary, [EventRecorder.Event]) {
    var recording = RecordingPipeline.Configuration(source: .live(.testPattern))
    recording.size = FrameGeometry(width: 160, height: 120)
    recording.realtime = false
    recording.sound = sound
    recording.video.preset = preset
    recording.video.gop = gop
    recording.limits.duration = MediaTime(value: Int64(seconds), timescale: 1)
    recording.outputs = try RecordingOutputPlan(names: [path("main.mp4")])
    recording.events = EventRecorder.Options(
      preRecord: preRecord, postRecord: postRecord, gap: gap, pattern: path(pattern))
    let pipeline = try RecordingPipeline(recording)
    let tap = TriggerAtFrames(triggers)
    tap.recorder = try XCTUnwrap(pipeline.events)
    tap.writer = pipeline.writer
    pipeline.addTap(tap)
    let summary = try pipeline.run()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.stopReason, .duration, "\(summary)")
    return (summary, summary.events ?? [])
  }

  /// The video packets of `file`: size, keyframe, presentation time.
  private func packets(_ file: String) throws -> [(size: Int, key: Bool, time: Double)] {
    let text = String(
      decoding: try runTool(
        "ffprobe",
        ["-v", "error", "-select_streams", "v", "-show_entries", "packet=size,flags,pts_time", "-of", "csv=p=0", file]),
      as: UTF8.self)
    return text.split(separator: "\n").map { line in
      let f = line.split(separator: ",")
      return (Int(f[1]) ?? -1, f[2].hasPrefix("K"), Double(f[0]) ?? -1)
    }
  }

  func testAClipStartsAtTheKeyframeBeforeItsPreRollAndEndsAfterItsPostRoll() throws {
    // A trigger at frame 181 (6.0 s: the writer is at frame 180) lasting 3 s, then
    // another 1 s later: one clip, from the keyframe at or before 3.0 s to 11.0 s.
    let (summary, events) = try record(
      seconds: 13, gop: 45,
      triggers: [181: { $0.trigger("api", duration: 3) }, 211: { $0.trigger("api") }])
    XCTAssertEqual(summary.framesOut, 390)
    XCTAssertEqual(events.count, 1, "\(events)")
    let event = try XCTUnwrap(events.first)
    XCTAssertEqual(event.triggeredAt, 6.0, accuracy: 1e-9)
    XCTAssertEqual(event.triggers, 2)
    XCTAssertEqual(event.start, 3.0, accuracy: 1.5 + 1e-9, "within one keyframe interval (1.5 s) before the pre-roll")
    XCTAssertLessThanOrEqual(event.start, 3.0 + 1e-9)
    XCTAssertEqual(event.end, 11.0, accuracy: 1.0 / 30 + 1e-9)

    // The clip decodes, starts on a keyframe at zero, and holds exactly the main
    // recording's packets from its start.
    let clip = try packets(event.path)
    XCTAssertEqual(clip.count, event.frames)
    XCTAssertEqual(Double(clip.count), (event.end - event.start) * 30, accuracy: 0.5)
    XCTAssertEqual(clip.first?.key, true)
    XCTAssertEqual(clip.first?.time ?? -1, 0, accuracy: 1e-6)
    let main = try packets(path("main.mp4"))
    let first = Int((event.start * 30).rounded())
    XCTAssertTrue(main[first].key)
    XCTAssertEqual(main[first..<(first + clip.count)].map(\.size), clip.map(\.size), "the same packets as the main file")
    let sidecar = try JSONSerialization.jsonObject(
      with: Data(contentsOf: URL(fileURLWithPath: EventRecorder.sidecarPath(of: event.path)))) as? [String: Any]
    XCTAssertEqual(sidecar?["trigger"] as? String, "api")
    XCTAssertEqual(sidecar?["frames"] as? Int, clip.count)
  }

  /// The presentation times of the `stream` packets (`v` or `a`) of `file`, in order.
  private func times(_ file: String, stream: String) throws -> [Double] {
    let text = String(
      decoding: try runTool(
        "ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time", "-of", "csv=p=0", file]),
      as: UTF8.self)
    return text.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .punctuationCharacters)) }
  }

  func testAClipsSoundStartsWithItsPicture() throws {
    // x264's lookahead (the default preset's) holds pictures back, so the sound of a
    // time reaches the bus well before its picture; the clip still takes its sound from
    // its keyframe's time on.
    let (_, events) = try record(
      seconds: 8, preRecord: 2, postRecord: 1, preset: nil, sound: .tone(frequency: 440),
      triggers: [150: { $0.trigger("api") }])
    let event = try XCTUnwrap(events.first, "\(events)")
    let clipVideo = try times(event.path, stream: "v"), clipSound = try times(event.path, stream: "a")
    XCTAssertEqual(clipVideo.min() ?? -1, 0, accuracy: 1e-6)
    // The main recording's sound from the clip's first picture on is the clip's, from
    // its start: the first such packet begins the clip's sound.
    let mainSound = try times(path("main.mp4"), stream: "a")
    let expected = try XCTUnwrap(mainSound.first { $0 >= event.start - 1e-6 }) - event.start
    let soundStart = try XCTUnwrap(clipSound.first)
    XCTAssertEqual(soundStart, expected, accuracy: 1e-3, "the sound starts \(soundStart) s after the picture")
    XCTAssertLessThan(soundStart, 1024.0 / 48000, "within one AAC frame of the picture")
    // And it goes on to the clip's end without a hole.
    for (a, b) in zip(clipSound, clipSound.dropFirst()) { XCTAssertEqual(b - a, 1024.0 / 48000, accuracy: 1e-3) }
    XCTAssertEqual(clipSound.last ?? 0, event.end - event.start, accuracy: 0.05)
  }

  func testTriggersFurtherApartThanTheGapMakeTwoClipsAndAWiderGapOne() throws {
    // Triggers at 1.0 s and 11.0 s with a 2 s post-roll: two clips.
    let (_, two) = try record(
      seconds: 14, triggers: [31: { $0.trigger("api") }, 331: { $0.trigger("api") }])
    XCTAssertEqual(two.count, 2, "\(two)")
    XCTAssertEqual(two.first?.end ?? 0, 3.0, accuracy: 1.0 / 30 + 1e-9)
    XCTAssertEqual(two.last?.end ?? 0, 13.0, accuracy: 1.0 / 30 + 1e-9)
    XCTAssertNotEqual(two.first?.path, two.last?.path)

    // The same with --event-gap 15s: one clip, without a hole, to the second trigger's
    // post-roll and beyond (the gap keeps it open to the end of the recording).
    try FileManager.default.removeItem(atPath: path("main.mp4"))
    for event in two { try FileManager.default.removeItem(atPath: event.path) }
    let (_, one) = try record(
      seconds: 14, gap: 15, triggers: [31: { $0.trigger("api") }, 331: { $0.trigger("api") }])
    XCTAssertEqual(one.count, 1, "\(one)")
    let event = try XCTUnwrap(one.first)
    XCTAssertEqual(event.triggers, 2)
    let clip = try packets(event.path)
    XCTAssertEqual(Double(clip.count), (event.end - event.start) * 30, accuracy: 0.5)
    XCTAssertGreaterThanOrEqual(event.end, 13.0)
    let times = clip.map(\.time)
    for (a, b) in zip(times, times.dropFirst()) { XCTAssertEqual(b - a, 1.0 / 30, accuracy: 1e-3, "no hole") }
  }

  /// A clip that cannot be written (its folder went away) ends alone: the recording
  /// goes on whole, and the next clip, once the folder is back, is written.
  func testAClipThatCannotBeWrittenEndsAloneAndTheRecordingGoesOn() throws {
    let clips = path("clips")
    try FileManager.default.createDirectory(atPath: clips, withIntermediateDirectories: false)
    let (summary, events) = try record(
      seconds: 8, preRecord: 1, postRecord: 1, pattern: "clips/clip.mp4",
      triggers: [
        30: { recorder in
          try? FileManager.default.removeItem(atPath: clips)
          recorder.trigger("api")
        },
        120: { recorder in
          // The first clip's worker has tried its file (the recording runs faster than
          // real time, so it could still be behind) before the folder comes back.
          let deadline = Date().addingTimeInterval(10)
          while recorder.events.first?.error == nil, Date() < deadline { usleep(5_000) }
          try? FileManager.default.createDirectory(atPath: clips, withIntermediateDirectories: false)
          recorder.trigger("api")
        },
      ])
    XCTAssertEqual(summary.framesOut, 240)
    XCTAssertEqual(try packets(path("main.mp4")).count, 240, "the recording has every frame")
    XCTAssertEqual(events.count, 2, "\(events)")
    let failed = try XCTUnwrap(events.first)
    XCTAssertTrue(failed.error?.hasSuffix("No such file or directory") == true, "\(failed)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: failed.path))
    let written = try XCTUnwrap(events.last)
    XCTAssertNil(written.error)
    XCTAssertEqual(try packets(written.path).count, written.frames)
    XCTAssertGreaterThanOrEqual(written.frames, 60, "the pre-roll, the trigger and the post-roll")
  }

  /// A trigger that comes once the bus has finished (the recording is finishing its
  /// files; its event recorder finishes after them) is as late as one after the
  /// recorder's end: no clip, and no failed clip listed, which the recording's end would
  /// count as a lost one (exit status 1).
  func testATriggerAfterTheBusFinishedListsNoFailedClip() throws {
    let source = TestPatternSource(
      geometry: FrameGeometry(width: 160, height: 120), frameRate: 30, live: false, frameCount: 30, poolCapacity: 4)
    var video = VideoSettings(geometry: source.geometry)
    video.fps = 30
    video.preset = "ultrafast"
    let writer = try MovieWriter(settings: MovieSettings(video: video), outputs: [try MovieFileOutput(path: path("main.mp4"))])
    let recorder = try EventRecorder(
      bus: writer.bus, options: EventRecorder.Options(preRecord: 1, postRecord: 1, pattern: path("clip.mp4")), clock: { 0.5 })
    var chain = FilterChain([])
    try chain.configure(input: source.geometry)
    let session = try RecordingSession<PCMBuffer>(input: source, chain: chain, sink: MovieWriterSink(writer: writer))
    session.start()
    XCTAssertNil(session.waitUntilFinished(statusInterval: 0.05).error)
    XCTAssertTrue(writer.bus.hasFinished)
    recorder.trigger("api")
    XCTAssertEqual(recorder.events.map(\.path), [])
    recorder.finish()
    XCTAssertEqual(recorder.events.map(\.path), [])
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["main.mp4"])
  }

  func testAnEventFolderThatIsMissingIsRefusedAtTheStart() throws {
    var recording = RecordingPipeline.Configuration(source: .live(.testPattern))
    recording.outputs = try RecordingOutputPlan(names: [path("main.mp4")])
    recording.events = EventRecorder.Options(preRecord: 2, postRecord: 2, gap: nil, pattern: path("missing/clip.mp4"))
    XCTAssertThrowsError(try RecordingPipeline(recording)) { error in
      XCTAssertEqual(
        "\(error)", "--event-output '\(path("missing/clip.mp4"))': output directory '\(path("missing"))' does not exist")
    }
  }

  func testAKeyframeIntervalLongerThanThePreRollIsRefused() throws {
    var recording = RecordingPipeline.Configuration(source: .live(.testPattern))
    recording.video.gop = 300
    recording.outputs = try RecordingOutputPlan(names: [path("main.mp4")])
    recording.events = EventRecorder.Options(preRecord: 5, postRecord: 2, pattern: path("clip.mp4"))
    XCTAssertThrowsError(try RecordingPipeline(recording)) { error in
      XCTAssertEqual(
        "\(error)",
        "--gop 300 is longer than --pre-record 5.0 s (150 frames at 30.00 fps): an event clip could start up to 300 "
          + "frames before it; give --gop 150 or less")
    }
  }
}
