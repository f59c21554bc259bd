import Camfx
import CamfxCore
import CamfxMedia
import Foundation
import XCTest

/// The composition model on its own, and a composition built in Swift and exported
/// through the recording pipeline, as a program using the library does.
final class CompositionTests: TranscodeTestCase {
  private func seconds(_ s: Int64, _ scale: Int32 = 1) -> MediaTime { MediaTime(value: s, timescale: scale) }

  func testItemsParseAsTheCommandLineWritesThem() throws {
    XCTAssertEqual(try CompositionItem(parsing: "a.mp4").asset, .movie(path: "a.mp4"))
    let cut = try CompositionItem(parsing: "c.mp4@1:02.5..1:10")
    XCTAssertEqual(cut.start, seconds(125, 2))
    XCTAssertEqual(cut.end, seconds(70))
    XCTAssertEqual(try CompositionItem(parsing: "a.mp4@5s..").start, seconds(5))
    XCTAssertNil(try CompositionItem(parsing: "a.mp4@5s..").end)
    XCTAssertEqual(try CompositionItem(parsing: "b.mkv@..1m30s").end, seconds(90))
    XCTAssertEqual(try CompositionItem(parsing: "me@home/a.mp4@0..2s").asset.path, "me@home/a.mp4")
    let still = try CompositionItem(parsing: "title.PNG@2.5s")
    XCTAssertEqual(still.asset, .still(path: "title.PNG"))
    XCTAssertEqual(still.stillDuration, seconds(5, 2))
    XCTAssertEqual(try CompositionItem(parsing: "logo.png").stillDuration, seconds(3))
    for bad in ["a.mp4@5s", "a.mp4@2s..1s", "a.mp4@x..1s", "pic.jpeg", "@1s..2s", "t.png@0"] {
      XCTAssertThrowsError(try CompositionItem(parsing: bad), bad)
    }
  }

  func testTheTimelineOverlapsNeighboursByTheTransition() throws {
    var composition = Composition(items: [
      CompositionItem(movie: "a.mp4", start: seconds(1)), CompositionItem(still: "s.png", duration: seconds(2)),
      CompositionItem(movie: "b.mp4", end: seconds(3, 2)),
    ])
    composition.transition = seconds(1, 2)
    let timeline = try CompositionTimeline(composition, sourceDurations: [seconds(4), seconds(2), seconds(10)])
    XCTAssertEqual(timeline.placements.map(\.start), [.zero, seconds(5, 2), seconds(4)])
    XCTAssertEqual(timeline.placements.map(\.duration), [seconds(3), seconds(2), seconds(3, 2)])
    XCTAssertEqual(timeline.total, seconds(11, 2))
    XCTAssertEqual(timeline.frameCount(frameDuration: MediaTime(value: 1, timescale: 25)), 138)  // 137.5 frames
    XCTAssertEqual(timeline.sampleCount(rate: 44_100), 242_550)
    XCTAssertThrowsError(try CompositionTimeline(composition, sourceDurations: [seconds(4), seconds(2), seconds(1)]))
  }

  func testACompositionBuiltInSwiftExportsThroughThePipeline() throws {
    let a = try makeInput(width: 320, height: 240, frames: 45)  // 1.5 s at 30 fps
    let still = directory.appendingPathComponent("still.png").path
    _ = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=green:size=100x100", "-frames:v", "1", still])
    var composition = Composition(items: [
      CompositionItem(movie: a, start: MediaTime(value: 1, timescale: 2)), CompositionItem(still: still, duration: seconds(1)),
    ])
    composition.transition = MediaTime(value: 1, timescale: 4)
    let timeline = try CompositionTimeline(composition, sourceDurations: try CompositionProbe(composition).durations)
    let video = VideoComposition(renderSize: FrameGeometry(width: 320, height: 240), frameDuration: MediaTime(value: 1, timescale: 20))
    let input = try CompositionInput(timeline: timeline, video: video, audio: AudioMix(sampleRate: 48_000, channels: 1))
    XCTAssertEqual(input.frameCount, 35)  // 1 s + 1 s − 0.25 s at 20 fps
    var export = RecordingPipeline.Configuration(source: .composition(input))
    let out = directory.appendingPathComponent("composed.mp4").path
    export.outputs = try RecordingOutputPlan(names: [out])
    export.video.preset = "ultrafast"
    let summary = try RecordingPipeline(export).run()
    XCTAssertNil(summary.error)
    XCTAssertEqual(summary.framesOut, 35)
    let probed = try ffprobe(["-select_streams", "v", "-count_frames", "-show_entries", "stream=nb_read_frames,duration", out])
    XCTAssertEqual(probed["nb_read_frames"], "35")
    XCTAssertEqual(Double(probed["duration"] ?? "") ?? 0, 1.75, accuracy: 0.0005)
  }
}
