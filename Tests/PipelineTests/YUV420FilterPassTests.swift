import Camfx
import CamfxCore
import CamfxMedia
import Foundation
import XCTest

/// A transcode whose every filter works on yuv420p runs the chain on the decoded
/// pictures themselves (`YUV420FilterPass`). Those filters do what ffmpeg's do to the
/// same planes, so with the same encoder settings the movie camfx writes must decode to
/// exactly the pictures of the movie `ffmpeg -vf …` writes (x264 is deterministic).
final class YUV420FilterPassTests: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-yuv420-\(UUID().uuidString)")
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

  enum Path: Equatable {
    case yuv420, rowBands, wholeFrames
  }

  /// Transcodes `input` through `specs` (libx264 ultrafast, CRF 23, GOP 60, no
  /// B-frames); returns the summary, the path the filter stage took, and the output.
  func transcode(_ input: String, _ specs: [String]) throws -> (RecordingSummary, Path, String) {
    let reader = try MovieReader(path: input, audio: AudioOutputSettings(sampleRate: 48_000, channels: 1))
    var chain = try FilterRegistry.builtin.makeChain(specs)
    try chain.configure(input: reader.geometry)
    var video = VideoSettings(geometry: try XCTUnwrap(chain.outputGeometry))
    video.fps = 30
    video.preset = "ultrafast"
    video.gop = 60
    let output = directory.appendingPathComponent("camfx-\(UUID().uuidString).mp4").path
    let writer = try MovieWriter(
      path: output, settings: MovieSettings(video: video, audio: AudioSettings(sampleRate: 48_000, channels: 1)))
    let session = try RecordingSession<PCMBuffer>(
      input: MovieReaderInput(reader), chain: chain, sink: MovieWriterSink(writer: writer))
    let path: Path = session.usesYUV420Filters ? .yuv420 : session.usesRowBands ? .rowBands : .wholeFrames
    session.start()
    return (session.waitUntilFinished(), path, output)
  }

  /// The output's pictures, decoded to yuv420p.
  func pictures(_ movie: String) throws -> Data {
    try runTool("ffmpeg", ["-v", "error", "-i", movie, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
  }

  func testChainsWriteWhatTheSameFFmpegFiltersWrite() throws {
    let input = try makeInput(width: 176, height: 102, frames: 20)
    let cases: [([String], String, Int)] = [
      (["mirror"], "hflip", 176 * 102),
      (["mirror=axis=both"], "hflip,vflip", 176 * 102),
      (["grayscale"], "hue=s=0", 176 * 102),
      (["crop=x=16:y=8:width=96:height=64"], "crop=96:64:16:8", 96 * 64),
      (["mirror", "crop=x=16:y=8:width=96:height=64", "mirror=axis=vertical"], "hflip,crop=96:64:16:8,vflip", 96 * 64),
    ]
    for (specs, vf, pixels) in cases {
      let (summary, path, output) = try transcode(input, specs)
      XCTAssertEqual(path, .yuv420, "\(specs)")
      XCTAssertNil(summary.error, "\(specs)")
      XCTAssertEqual(summary.framesOut, 20, "\(specs)")
      XCTAssertGreaterThan(summary.audioChunks, 0, "\(specs)")
      let reference = directory.appendingPathComponent("ffmpeg.mp4").path
      _ = try runTool("ffmpeg", [
        "-v", "error", "-y", "-i", input, "-vf", vf, "-c:v", "libx264", "-preset", "ultrafast", "-crf", "23",
        "-g", "60", "-bf", "0", "-an", reference,
      ])
      let ours = try pictures(output), theirs = try pictures(reference)
      XCTAssertEqual(ours.count, 20 * pixels * 3 / 2, "\(specs)")
      XCTAssertTrue(ours == theirs, "\(specs): camfx's pictures differ from ffmpeg -vf \(vf)'s")
    }
  }

  func testEachChainTakesTheCheapestPathItCan() throws {
    let input = try makeInput(width: 64, height: 48, frames: 3)
    let cases: [([String], Path)] = [
      (["mirror", "grayscale", "crop=width=32:height=32"], .yuv420),
      (["mirror", "watermark=x=3:y=5:opacity=0.5", "grayscale"], .yuv420),
      ([], .yuv420),
      (["grayscale=matrix=bt709"], .rowBands),  // BT.709 grey is not the picture's Y
      (["mirror", "grayscale=matrix=bt709"], .rowBands),
      (["crop=x=1:y=0:width=32:height=32"], .wholeFrames),  // odd corner: chroma would not line up
    ]
    for (specs, expected) in cases {
      let (summary, path, _) = try transcode(input, specs)
      XCTAssertEqual(path, expected, "\(specs)")
      XCTAssertEqual(summary.framesOut, 3, "\(specs)")
    }
  }
}
