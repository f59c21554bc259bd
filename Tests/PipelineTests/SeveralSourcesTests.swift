import Camfx
import CamfxPNG
import Foundation
import XCTest

/// Several sources recorded at once in one process, each with its own chain, encoder
/// and file, through the public library API alone.
final class SeveralSourcesTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-several-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// One frame of `movie`'s, as RGB bytes.
  private func firstFrameRGB(_ movie: String) throws -> [UInt8] {
    [UInt8](try runTool("ffmpeg", ["-v", "error", "-i", movie, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
  }

  func testTestPatternAndAPNGRecordAtOnceEachThroughItsOwnChainIntoItsOwnFile() throws {
    // A 64x48 picture: red on the left, blue on the right.
    let picture = PixelBuffer(width: 64, height: 48)
    picture.fill(BGRA(r: 220, g: 20, b: 20))
    for y in 0..<48 { for x in 32..<64 { picture[x, y] = BGRA(r: 20, g: 20, b: 220) } }
    try PNGFile.write(picture, to: path("card.png"), alpha: false)

    var pattern = RecordingPipeline.Configuration(source: .live(.testPattern))
    pattern.size = FrameGeometry(width: 320, height: 240)
    pattern.chain = try FilterRegistry.builtin.makeChain(["scale=width=160:height=120"])
    pattern.outputs = try RecordingOutputPlan(names: [path("pattern.mp4")])
    pattern.limits.duration = MediaTime(value: 1, timescale: 1)
    var card = RecordingPipeline.Configuration(source: .live(.image(path: path("card.png"))))
    card.chain = try FilterRegistry.builtin.makeChain(["mirror"])
    card.outputs = try RecordingOutputPlan(names: [path("card.mp4")])
    card.limits.duration = MediaTime(value: 1, timescale: 1)

    var statusCalls = 0
    let results = RecordingPipeline.run(
      [try RecordingPipeline(pattern), try RecordingPipeline(card)], statusInterval: 0.2
    ) { snapshots, _ in
      XCTAssertEqual(snapshots.count, 2)
      statusCalls += 1
    }
    let summaries = try results.map { try $0.get() }
    XCTAssertGreaterThan(statusCalls, 0)
    for summary in summaries {
      XCTAssertNil(summary.error)
      XCTAssertEqual(summary.framesOut, 30, "1 s at 30 fps")
    }
    // Both ran at once: each took a second of the wall clock, and they began together.
    let starts = try summaries.map { try XCTUnwrap($0.firstFrameEpochSeconds) }
    XCTAssertLessThan(abs(starts[0] - starts[1]), 0.5)

    let patternVideo = try ffprobe(["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=width,height,nb_read_frames", path("pattern.mp4")])
    XCTAssertEqual(patternVideo["width"], "160")
    XCTAssertEqual(patternVideo["height"], "120")
    XCTAssertEqual(patternVideo["nb_read_frames"], "30")
    let cardVideo = try ffprobe(["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=width,height,nb_read_frames", path("card.mp4")])
    XCTAssertEqual(cardVideo["width"], "64")
    XCTAssertEqual(cardVideo["nb_read_frames"], "30")
    // Mirrored: blue on the left now, red on the right.
    let rgb = try firstFrameRGB(path("card.mp4"))
    func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
      let i = (y * 64 + x) * 3
      return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
    }
    let (lr, _, lb) = pixel(8, 24), (rr, _, rb) = pixel(56, 24)
    XCTAssertGreaterThan(lb, 150)
    XCTAssertLessThan(lr, 80)
    XCTAssertGreaterThan(rr, 150)
    XCTAssertLessThan(rb, 80)
  }
}
