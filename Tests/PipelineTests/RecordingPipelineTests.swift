import Camfx
import CamfxCore
import CamfxMedia
import Foundation
import Synchronization
import XCTest

/// A recording built in Swift, as a program that embeds camfx builds it: the same
/// pipeline `camfx record` runs, with a tap on the filtered frames.
final class RecordingPipelineTests: XCTestCase {
  /// Counts the frames it is given, and remembers their size and first time.
  final class CountingTap: FrameTap {
    let frames = Atomic<Int>(0)
    let sizes = Mutex<Set<String>>([])
    var wantsFrame: Bool { true }
    func take(_ frame: VideoFrame) {
      frames.add(1, ordering: .relaxed)
      sizes.withLock { _ = $0.insert("\(frame.geometry)") }
    }
  }

  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-pipeline-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

  func testARecordingBuiltInCodeWritesWhatItsTapSaw() throws {
    let movie = directory.appendingPathComponent("code.mkv").path
    var recording = RecordingPipeline.Configuration(source: .live(.testPattern))
    recording.size = FrameGeometry(width: 320, height: 240)
    recording.realtime = false
    recording.chain = try FilterRegistry.builtin.makeChain(["crop=width=160:height=120", "mirror"])
    recording.sound = .tone(frequency: 1000)
    recording.video.preset = "ultrafast"
    recording.outputs = try RecordingOutputPlan(names: [movie])
    recording.limits.frames = 45
    let pipeline = try RecordingPipeline(recording)
    XCTAssertEqual(pipeline.outputGeometry, FrameGeometry(width: 160, height: 120))
    let tap = CountingTap()
    pipeline.addTap(tap)
    let summary = try pipeline.run()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesOut, 45)
    XCTAssertEqual(tap.frames.load(ordering: .relaxed), 45)
    XCTAssertEqual(tap.sizes.withLock { $0 }, ["160x120"])
    let video = try ffprobe([
      "-select_streams", "v", "-count_frames", "-show_entries", "stream=codec_name,width,height,nb_read_frames", movie,
    ])
    XCTAssertEqual(video["codec_name"], "h264")
    XCTAssertEqual(video["width"], "160")
    XCTAssertEqual(video["nb_read_frames"], "45")
    XCTAssertEqual(try ffprobe(["-select_streams", "a", "-show_entries", "stream=codec_name", movie])["codec_name"], "aac")
  }

  func testAPipelineWithoutOutputsOnlyFeedsItsTaps() throws {
    var recording = RecordingPipeline.Configuration(source: .live(.testPattern))
    recording.size = FrameGeometry(width: 64, height: 48)
    recording.realtime = false
    recording.limits.frames = 20
    let pipeline = try RecordingPipeline(recording)
    XCTAssertNil(pipeline.writer)
    let tap = CountingTap()
    pipeline.addTap(tap)
    let summary = try pipeline.run()
    XCTAssertNil(summary.error)
    XCTAssertEqual(tap.frames.load(ordering: .relaxed), 20)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
  }

  func testSettingsThatDoNotGoTogetherAreRefusedBeforeAnythingOpens() throws {
    var timelapse = RecordingPipeline.Configuration(source: .live(.testPattern))
    timelapse.timelapse = MediaTime(value: 1, timescale: 1)
    timelapse.sound = .tone(frequency: 440)
    XCTAssertThrowsError(try RecordingPipeline(timelapse)) { error in
      XCTAssertEqual("\(error)", "a timelapse is silent: it cannot record sound")
    }
    var movie = RecordingPipeline.Configuration(source: .movie(path: directory.appendingPathComponent("none.mp4").path))
    movie.sound = .tone(frequency: 440)
    XCTAssertThrowsError(try RecordingPipeline(movie)) { error in
      XCTAssertEqual("\(error)", "a movie brings its own sound: it cannot take a tone or a microphone as well")
    }
    var live = RecordingPipeline.Configuration(source: .live(.testPattern))
    live.sound = .movie
    XCTAssertThrowsError(try RecordingPipeline(live))
  }
}
