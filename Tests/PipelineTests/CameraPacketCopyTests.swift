import Camfx
import CamfxCore
import CamfxMedia
import Foundation
import XCTest

/// The packet path of `--video-codec copy` from a camera: JPEGs as a camera's driver
/// buffers hold them, wrapped by `CompressedFramePackager` and copied by
/// `PacketCopySession` into files. (No camera here offers MJPEG, vivid included, so the
/// V4L2 dequeue in front of it is not tested for MJPEG; it is the same as for raw
/// frames.)
final class CameraPacketCopyTests: TranscodeTestCase {
  /// Hands out JPEG files as a camera would: on its own clock (far from zero), one
  /// frame interval apart, each from the same few reused buffers.
  final class JPEGFrames: PacketSource {
    let streams: [EncodedStream]
    let frames: [Data]
    let packager: CompressedFramePackager
    var next = 0

    init(frames: [Data], width: Int, height: Int) throws {
      let stream = try EncodedStream(video: "mjpeg", width: width, height: height, framesPerSecond: 25)
      streams = [stream]
      self.frames = frames
      packager = try CompressedFramePackager(stream: stream, maximumBytes: frames.map(\.count).max()! + 100)
    }

    func nextPacket() throws -> EncodedPacket? {
      guard next < frames.count else { return nil }
      defer { next += 1 }
      return try frames[next].withUnsafeBytes { bytes in
        try packager.packet(bytes, microseconds: 7_200_000_000 + Int64(next) * 40_000, durationMicroseconds: 40_000)
      }
    }
  }

  private func makeJPEGs(count: Int) throws -> [Data] {
    let pattern = directory.appendingPathComponent("f%03d.jpg").path
    _ = try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-frames:v", "\(count)",
      "-c:v", "mjpeg", "-pix_fmt", "yuvj422p", "-q:v", "3", pattern,
    ])
    return try (1...count).map { try Data(contentsOf: directory.appendingPathComponent(String(format: "f%03d.jpg", $0))) }
  }

  /// The bytes of every video packet in `movie`, in order.
  private func videoPackets(_ movie: String) throws -> [Data] {
    let data = try runTool("ffprobe", [
      "-v", "error", "-select_streams", "v", "-show_packets", "-show_data", "-of", "json", movie,
    ])
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    let packets = try XCTUnwrap(json["packets"] as? [[String: Any]])
    return try packets.map { packet in
      // ffprobe's hexdump: "00000000: ffd8 ffe0 ...  ascii" lines.
      let dump = try XCTUnwrap(packet["data"] as? String)
      var bytes = Data()
      for line in dump.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let hex = line[line.index(after: colon)...].prefix(41)
        for group in hex.split(separator: " ") {
          var i = group.startIndex
          while i < group.endIndex, let j = group.index(i, offsetBy: 2, limitedBy: group.endIndex) {
            bytes.append(UInt8(group[i..<j], radix: 16)!)
            i = j
          }
        }
      }
      return bytes
    }
  }

  func testACamerasJPEGsAreCopiedUnchangedAndPlayAtTheCamerasRate() throws {
    let jpegs = try makeJPEGs(count: 30)
    for name in ["cam.mkv", "cam.mp4"] {
      let path = directory.appendingPathComponent(name).path
      let source = try JPEGFrames(frames: jpegs, width: 320, height: 240)
      let session = try PacketCopySession(source: source, outputs: [try MovieFileOutput(path: path)])
      let summary = session.run()
      XCTAssertNil(summary.error, name)
      XCTAssertEqual(summary.framesOut, 30, name)
      XCTAssertEqual(summary.durationSeconds, 1.2, accuracy: 1e-9, name)
      XCTAssertEqual(try videoPackets(path), jpegs, name)
      let probed = try ffprobe([
        "-select_streams", "v", "-count_frames", "-show_entries", "stream=codec_name,width,height,nb_read_frames,avg_frame_rate:format=duration", path,
      ])
      XCTAssertEqual(probed["codec_name"], "mjpeg", name)
      XCTAssertEqual(probed["width"], "320", name)
      XCTAssertEqual(probed["nb_read_frames"], "30", name)
      XCTAssertEqual(Double(probed["duration"] ?? "") ?? 0, 1.2, accuracy: 0.05, name)
    }
  }

  func testTheCopyStopsAtItsLimits() throws {
    let jpegs = try makeJPEGs(count: 30)
    let path = directory.appendingPathComponent("cut.mkv").path
    let session = try PacketCopySession(
      source: try JPEGFrames(frames: jpegs, width: 320, height: 240), outputs: [try MovieFileOutput(path: path)],
      limits: RecordingLimits(duration: MediaTime(value: 1, timescale: 2)))
    let summary = session.run()
    XCTAssertEqual(summary.stopReason, .duration)
    XCTAssertEqual(try videoPackets(path), Array(jpegs.prefix(13)))
  }

  func testAFrameLargerThanTheCamerasBuffersIsAnError() throws {
    let stream = try EncodedStream(video: "mjpeg", width: 16, height: 16, framesPerSecond: 30)
    let packager = try CompressedFramePackager(stream: stream, maximumBytes: 8)
    let bytes = [UInt8](repeating: 0, count: 9)
    XCTAssertThrowsError(try bytes.withUnsafeBytes { try packager.packet($0, microseconds: 0, durationMicroseconds: 1) })
    XCTAssertThrowsError(try EncodedStream(video: "no-such-codec", width: 16, height: 16, framesPerSecond: 30))
  }
}
