import Camfx
import CamfxPNG
import Foundation
import XCTest

/// Cameras feeding a mosaic recorded as one more pipeline (`MosaicFeed`, `MosaicSource`,
/// `RecordingGroup`), through the public library API alone.
final class MosaicRecordingTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-mosaic-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  private func writeCard(_ name: String, _ color: BGRA) throws -> String {
    let picture = PixelBuffer(width: 160, height: 120)
    picture.fill(color)
    try PNGFile.write(picture, to: path(name), alpha: false)
    return path(name)
  }

  /// Every frame of `movie` as rgb24, `width`×`height`.
  private func frames(_ movie: String, width: Int, height: Int) throws -> [[UInt8]] {
    let bytes = [UInt8](try runTool("ffmpeg", ["-v", "error", "-i", movie, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
    let size = width * height * 3
    return stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
  }

  /// The mean red, green and blue of the part of `frame` between columns `x0..<x1`.
  private func mean(_ frame: [UInt8], width: Int, columns: Range<Int>) -> (r: Double, g: Double, b: Double) {
    var sums = (0.0, 0.0, 0.0)
    var n = 0.0
    for row in 0..<(frame.count / (width * 3)) {
      for x in columns {
        let i = (row * width + x) * 3
        sums.0 += Double(frame[i]); sums.1 += Double(frame[i + 1]); sums.2 += Double(frame[i + 2])
        n += 1
      }
    }
    return (sums.0 / n, sums.1 / n, sums.2 / n)
  }

  func testEachCameraIsInItsOwnHalfAndOneThatEndsGivesWayToItsCardWhileTheMosaicGoesOn() throws {
    let red = try writeCard("red.png", BGRA(r: 220, g: 20, b: 20))
    let blue = try writeCard("blue.png", BGRA(r: 20, g: 20, b: 220))
    let mosaicSource = try MosaicSource(
      layout: MosaicLayout(parsing: "hstack", cameras: ["left", "right"]), cameras: ["left", "right"],
      size: FrameGeometry(width: 320, height: 120), framesPerSecond: 30, staleAfter: MediaTime(value: 3, timescale: 10))

    // The cameras record nothing of their own: they only feed the mosaic.
    let left = try RecordingPipeline(RecordingPipeline.Configuration(source: .live(.image(path: red))))
    var rightConfiguration = RecordingPipeline.Configuration(source: .live(.image(path: blue)))
    rightConfiguration.limits.frames = 15  // half a second, then it is gone
    let right = try RecordingPipeline(rightConfiguration)
    for (name, camera) in [("left", left), ("right", right)] {
      camera.addTap(try MosaicFeed(camera: name, into: mosaicSource.mosaic, geometry: camera.outputGeometry))
    }
    var mosaicConfiguration = RecordingPipeline.Configuration(source: .own(mosaicSource))
    mosaicConfiguration.outputs = try RecordingOutputPlan(names: [path("mosaic.mp4")])
    mosaicConfiguration.limits.duration = MediaTime(value: 2, timescale: 1)
    mosaicConfiguration.video.preset = "ultrafast"
    let mosaic = try RecordingPipeline(mosaicConfiguration)

    let group = RecordingGroup([
      .init(name: "left", pipeline: left, leads: false), .init(name: "right", pipeline: right, leads: false),
      .init(name: "mosaic", pipeline: mosaic),
    ])
    let summary = try group.run()
    XCTAssertNil(summary.error)
    // 2 s at the picture's 30 fps, though one camera ended after 0.5 s: each frame written,
    // or dropped and counted (the picture is live, and a busy machine drops frames).
    XCTAssertEqual(summary.framesOut + summary.droppedTotal, 60)
    let results = try group.results.map { try $0.get() }
    XCTAssertEqual(results.count, 3)
    XCTAssertEqual(results[1].framesOut, 15)
    XCTAssertEqual(results[1].stopReason, .frames)
    XCTAssertEqual(results[0].stopReason, .interrupted, "the follower is stopped when the mosaic ends")

    let probed = try ffprobe(["-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames,width,height", path("mosaic.mp4")])
    XCTAssertEqual(probed["width"], "320")
    XCTAssertEqual(probed["height"], "120")
    XCTAssertEqual(probed["nb_read_frames"], String(summary.framesOut))
    let pictures = try frames(path("mosaic.mp4"), width: 320, height: 120)
    XCTAssertEqual(pictures.count, summary.framesOut)
    func isRed(_ c: (r: Double, g: Double, b: Double)) -> Bool { c.r > 180 && c.b < 60 }
    func isBlue(_ c: (r: Double, g: Double, b: Double)) -> Bool { c.b > 180 && c.r < 60 }
    // Both cameras at once, each in its own half (the first frames may still be cards).
    let both = pictures.firstIndex { isRed(mean($0, width: 320, columns: 0..<160)) && isBlue(mean($0, width: 320, columns: 160..<320)) }
    XCTAssertNotNil(both, "no frame shows the red camera on the left and the blue one on the right")
    // At the end the right camera has been gone for over a second: its card (dark grey,
    // with its name in light letters) and never blue; the left camera goes on.
    let last = try XCTUnwrap(pictures.last)
    XCTAssertTrue(isRed(mean(last, width: 320, columns: 0..<160)))
    let card = mean(last, width: 320, columns: 160..<320)
    XCTAssertFalse(isBlue(card))
    XCTAssertLessThan(abs(card.r - card.b), 10, "the card is grey: \(card)")
    XCTAssertGreaterThan(card.g, 30)
    XCTAssertLessThan(card.g, 110)
  }
}
