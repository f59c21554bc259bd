import CamfxCore
import XCTest

@testable import CamfxCapture

final class MJPEGDecoderTests: XCTestCase {
  /// A JPEG made by the ffmpeg tool: left half red, right half blue, 64x48.
  func makeJPEG() throws -> [UInt8] {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-mjpeg-\(getpid()).jpg")
    defer { try? FileManager.default.removeItem(at: out) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [
      "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=red:s=32x48,format=rgb24[a];color=blue:s=32x48,format=rgb24[b];[a][b]hstack",
      "-frames:v", "1", "-q:v", "2", "-pix_fmt", "yuvj422p", "-f", "mjpeg", out.path,
    ]
    p.arguments = [
      "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=red:s=32x48[a];color=blue:s=32x48[b];[a][b]hstack",
      "-frames:v", "1", "-q:v", "2", "-pix_fmt", "yuvj422p", "-f", "mjpeg", out.path,
    ]
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw XCTSkip("ffmpeg could not make a JPEG") }
    return Array(try Data(contentsOf: out))
  }

  func testDecodesAJPEGFrameToBGRA() throws {
    let jpeg = try makeJPEG()
    let decoder = try MJPEGDecoder(device: "test")
    let frame = PixelBuffer(width: 64, height: 48)
    XCTAssertTrue(jpeg.withUnsafeBytes { decoder.decode($0.baseAddress!, count: $0.count, into: frame) })
    XCTAssertLessThanOrEqual(maxChannelDifference(frame[8, 24], BGRA(r: 255, g: 0, b: 0)), 6, "\(frame[8, 24])")
    XCTAssertLessThanOrEqual(maxChannelDifference(frame[56, 24], BGRA(r: 0, g: 0, b: 255)), 6, "\(frame[56, 24])")
  }

  func testCorruptAndWrongSizedFramesAreRejected() throws {
    let jpeg = try makeJPEG()
    let decoder = try MJPEGDecoder(device: "test")
    let frame = PixelBuffer(width: 64, height: 48)
    let garbage = [UInt8](repeating: 0x5A, count: 4000)
    XCTAssertFalse(garbage.withUnsafeBytes { decoder.decode($0.baseAddress!, count: $0.count, into: frame) })
    let truncated = Array(jpeg.prefix(jpeg.count / 3))
    XCTAssertFalse(truncated.withUnsafeBytes { decoder.decode($0.baseAddress!, count: $0.count, into: frame) })
    let wrongSize = PixelBuffer(width: 32, height: 48)
    XCTAssertFalse(jpeg.withUnsafeBytes { decoder.decode($0.baseAddress!, count: $0.count, into: wrongSize) })
    // The decoder recovers: the next good frame decodes.
    XCTAssertTrue(jpeg.withUnsafeBytes { decoder.decode($0.baseAddress!, count: $0.count, into: frame) })
  }
}
