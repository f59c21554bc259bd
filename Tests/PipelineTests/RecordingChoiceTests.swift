import Camfx
import Foundation
import XCTest

/// `Recording` builds what a configuration asks for: an encoding pipeline, or a copy
/// of the source's packets for the video codec `copy`; a pipeline asked to copy says
/// where copies are made instead of failing to find an encoder called "copy".
final class RecordingChoiceTests: XCTestCase {
  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-choice-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    _ = try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-t", "1", "-c:v", "mjpeg",
      directory.appendingPathComponent("in.mkv").path,
    ])
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func configuration(codec: String?, output: String) throws -> RecordingPipeline.Configuration {
    var configuration = RecordingPipeline.Configuration(source: .movie(path: directory.appendingPathComponent("in.mkv").path))
    if let codec { configuration.video.codec = codec }
    configuration.video.preset = "ultrafast"
    configuration.outputs = try RecordingOutputPlan(names: [directory.appendingPathComponent(output).path])
    return configuration
  }

  func testTheCopyCodecMakesACopyAndAnyOtherAPipeline() throws {
    guard case .copying(let copy) = try Recording(try configuration(codec: VideoSettings.copyCodec, output: "copy.mkv"))
    else { return XCTFail("the codec copy makes a PacketCopySession") }
    let copied = copy.run()
    XCTAssertNil(copied.error)
    XCTAssertEqual(copied.framesOut, 25)
    XCTAssertEqual(copy.videoPath, Recording.copying(copy).job.videoPath)

    guard case .encoding(let pipeline) = try Recording(try configuration(codec: nil, output: "encoded.mkv"))
    else { return XCTFail("the default codec makes a RecordingPipeline") }
    let encoded = try pipeline.run()
    XCTAssertNil(encoded.error)
    XCTAssertEqual(encoded.framesOut, 25)
    // The copy holds MJPEG as it was, the pipeline's file H.264.
    let codecs = try ["copy.mkv", "encoded.mkv"].map { name in
      String(decoding: try runTool("ffprobe", [
        "-v", "error", "-select_streams", "v", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
        directory.appendingPathComponent(name).path,
      ]), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    XCTAssertEqual(codecs, ["mjpeg", "h264"])
  }

  func testAPipelineAskedToCopySaysWhereCopiesAreMade() throws {
    XCTAssertThrowsError(try RecordingPipeline(try configuration(codec: VideoSettings.copyCodec, output: "x.mkv"))) { error in
      XCTAssertEqual(
        "\(error)", "video codec 'copy' records the source's own packets: a PacketCopySession does that (Recording chooses)")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.mkv").path))
  }
}
