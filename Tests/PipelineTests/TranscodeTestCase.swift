import Camfx
import CamfxCore
import CamfxMedia
import Foundation
import XCTest

/// Tests that transcode movies made by ffmpeg: a fresh temporary folder per test, the
/// input movie, and the transcode through a `RecordingSession`.
class TranscodeTestCase: XCTestCase {
  var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-transcode-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  /// A movie made by ffmpeg: moving colour bars and a tone, H.264 yuv420p and AAC.
  func makeInput(width: Int, height: Int, frames: Int) throws -> String {
    let path = directory.appendingPathComponent("in-\(width)x\(height).mp4").path
    _ = try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30",
      "-f", "lavfi", "-i", "sine=f=440", "-frames:v", "\(frames)", "-shortest",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", path,
    ])
    return path
  }

  /// How the filter stage ran the chain.
  enum FilterStagePath: Equatable {
    case yuv420, rowBands, wholeFrames
  }

  /// Transcodes `input` through `specs` (libx264 ultrafast, CRF 23, GOP 60, no
  /// B-frames; mono 48 kHz AAC); returns the summary, the path the filter stage took,
  /// and the output's path.
  func transcode(
    _ input: String, _ specs: [String], yuv420Filters: Bool = true, rowBands: Bool = true, sourceBands: Bool = true,
    filtersWhileConverting: (([String]) -> Void)? = nil
  ) throws -> (summary: RecordingSummary, path: FilterStagePath, output: String) {
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
      input: reader, chain: chain, sink: MovieWriterSink(writer: writer), yuv420Filters: yuv420Filters,
      rowBands: rowBands, sourceBands: sourceBands)
    filtersWhileConverting?(session.filtersWhileConverting)
    let path: FilterStagePath = session.usesYUV420Filters ? .yuv420 : session.usesRowBands ? .rowBands : .wholeFrames
    session.start()
    return (session.waitUntilFinished(), path, output)
  }

  /// A movie's pictures, decoded to yuv420p.
  func decodedPictures(_ movie: String) throws -> Data {
    try runTool("ffmpeg", ["-v", "error", "-i", movie, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
  }
}
