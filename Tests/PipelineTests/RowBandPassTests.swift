import Camfx
import CamfxCore
import CamfxMedia
import Foundation
import XCTest

/// A transcode with a row-local chain runs in row bands on the decoded pictures
/// (`RowBandPass`); the movie it writes must be the very movie the three whole-frame
/// passes write (the encoder is deterministic, so equal pictures give equal output).
final class RowBandPassTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-bands-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  /// A movie made by ffmpeg: moving colour bars and a tone.
  func makeInput(width: Int, height: Int, frames: Int) throws -> String {
    let path = directory.appendingPathComponent("in-\(width)x\(height).mp4").path
    _ = try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30",
      "-f", "lavfi", "-i", "sine=f=440", "-frames:v", "\(frames)", "-shortest",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", path,
    ])
    return path
  }

  /// Transcodes `input` through `specs`; returns the session's summary, whether it ran
  /// in row bands, and the output's decoded yuv420p bytes.
  func transcode(_ input: String, _ specs: [String], rowBands: Bool) throws -> (RecordingSummary, Bool, Data) {
    let reader = try MovieReader(path: input, audio: AudioOutputSettings(sampleRate: 48_000, channels: 1))
    var chain = try FilterRegistry.builtin.makeChain(specs)
    try chain.configure(input: reader.geometry)
    var video = VideoSettings(geometry: try XCTUnwrap(chain.outputGeometry))
    video.fps = 30
    video.preset = "ultrafast"
    let output = directory.appendingPathComponent("out-\(rowBands).mp4").path
    let writer = try MovieWriter(
      path: output, settings: MovieSettings(video: video, audio: AudioSettings(sampleRate: 48_000, channels: 1)))
    let session = try RecordingSession<PCMBuffer>(
      input: MovieReaderInput(reader), chain: chain, sink: MovieWriterSink(writer: writer), yuv420Filters: false,
      rowBands: rowBands)
    let inBands = session.usesRowBands
    session.start()
    let summary = session.waitUntilFinished()
    let pictures = try runTool("ffmpeg", ["-v", "error", "-i", output, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
    return (summary, inBands, pictures)
  }

  func testBandsWriteTheSameMovieAsWholeFrames() throws {
    // 102 rows: six 16-row bands and a last one of 6; the mark straddles band edges.
    let input = try makeInput(width: 176, height: 102, frames: 20)
    let specs = ["mirror", "watermark=position=center:opacity=0.6"]
    let (banded, usedBands, bandedPictures) = try transcode(input, specs, rowBands: true)
    let (whole, usedWhole, wholePictures) = try transcode(input, specs, rowBands: false)
    XCTAssertTrue(usedBands)
    XCTAssertFalse(usedWhole)
    XCTAssertNil(banded.error)
    XCTAssertNil(whole.error)
    XCTAssertEqual(banded.framesOut, 20)
    XCTAssertGreaterThan(banded.audioChunks, 0)
    XCTAssertEqual(bandedPictures.count, 20 * 176 * 102 * 3 / 2)
    XCTAssertTrue(bandedPictures == wholePictures, "the banded transcode's pictures differ from the whole-frame one's")
  }

  func testChainsThatAreNotRowLocalUseWholeFrames() throws {
    let input = try makeInput(width: 64, height: 48, frames: 3)
    for specs in [["mirror=axis=vertical"], ["crop=width=32:height=32"]] {
      let (summary, inBands, _) = try transcode(input, specs, rowBands: true)
      XCTAssertFalse(inBands, "\(specs)")
      XCTAssertEqual(summary.framesOut, 3, "\(specs)")
    }
  }
}
