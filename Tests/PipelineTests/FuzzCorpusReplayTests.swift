import Camfx
import CamfxCapture
import CamfxMedia
import CamfxPNG
import Foundation
import XCTest

/// Every input in `fuzz/corpus/` (the seeds, and every input a fuzzer ever crashed on)
/// through what the fuzz targets run, without a sanitizer: an input that once aborted
/// camfx must now give an answer or an error.
final class FuzzCorpusReplayTests: XCTestCase {
  private func corpus(_ name: String) throws -> [URL] {
    let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../fuzz/corpus/\(name)")
    let files = try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
    XCTAssertFalse(files.isEmpty, "fuzz/corpus/\(name) is empty")
    return files.sorted { $0.path < $1.path }
  }

  /// A scratch copy (repair writes in place).
  private func copy(_ file: URL) throws -> String {
    let path = NSTemporaryDirectory() + "camfx-replay-\(UUID().uuidString)-" + file.lastPathComponent
    try FileManager.default.copyItem(atPath: file.path, toPath: path)
    return path
  }

  func testMovieInputs() throws {
    FFmpegLogging.fatalOnly()
    for file in try corpus("movie") {
      let path = try copy(file)
      defer { try? FileManager.default.removeItem(atPath: path) }
      if let reader = try? MovieReader(path: path, audio: AudioOutputSettings(), poolCapacity: 4) {
        for _ in 0..<8 { guard (try? reader.nextSample()) != nil else { break } }
      }
      _ = try? FragmentedMovieFinisher.finish(path: path)
    }
  }

  func testPNGInputs() throws {
    for file in try corpus("png") { _ = try? PNGFile.read(path: file.path) }
  }

  /// What FuzzCameraFrame runs: a camera's compressed frame (first byte: MJPEG when
  /// even, H.264 when odd) checked, scanned and decoded into pictures of both kinds.
  func testCameraFrameInputs() throws {
    FFmpegLogging.fatalOnly()
    let mjpeg = try CompressedFrameDecoder(codec: .mjpeg), h264 = try CompressedFrameDecoder(codec: .h264)
    let planes = YUV420Planes(width: 64, height: 48), bgra = PixelBuffer(width: 64, height: 48)
    var decoded = 0
    for file in try corpus("camera-frame") {
      let data = try Data(contentsOf: file)
      guard let selector = data.first else { continue }
      let codec: CompressedFrameDecoder.Codec = selector % 2 == 0 ? .mjpeg : .h264
      let decoder = codec == .mjpeg ? mjpeg : h264
      data.dropFirst().withUnsafeBytes { bytes in
        _ = CompressedFrameDecoder.isWholeFrame(bytes, codec: codec)
        _ = H264Bitstream.isKeyframe(bytes)
        _ = H264Bitstream.parameterSets(in: bytes)
        if decoder.decode(bytes, into: planes.picture) == .decoded { decoded += 1 }
        _ = decoder.decode(bytes, into: bgra)
      }
    }
    // The seeds' whole frames decode (the replay reaches the decoder, not just the checks).
    XCTAssertGreaterThan(decoded, 0)
  }

  func testFilterSpecInputs() throws {
    for file in try corpus("filter-spec") {
      let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
      if var chain = try? FilterRegistry.builtin.makeChain([text]) {
        _ = try? chain.configure(input: FrameGeometry(width: 64, height: 48))
      }
    }
  }
}
