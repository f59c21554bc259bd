import Foundation
import XCTest

/// The codecs beside H.264/AAC, in every container that holds them: what camfx wrote
/// decodes with ffprobe, frame for frame; containers refuse what they cannot hold.
final class CodecTests: CLITestCase {
  private let clip = ["--size", "320x240", "--audio", "sine=440", "--duration", "1s", "--quiet"]

  private func assertRecords(
    _ options: [String], _ file: String, video: String, audio: String = "aac", line: UInt = #line
  ) throws {
    let result = try CLI.run(clip + options + ["-o", file], in: dir)
    XCTAssertEqual(result.status, 0, "\(options) \(file): \(result)", line: line)
    let streams = try MovieOracle.probe(path(file))
    XCTAssertEqual(streams["video"]?.codec, video, file, line: line)
    XCTAssertEqual(streams["video"]?.frames, 30, file, line: line)
    XCTAssertEqual(streams["video"]?.width, 320, file, line: line)
    XCTAssertEqual(streams["audio"]?.codec, audio, file, line: line)
    let sound = try XCTUnwrap(streams["audio"], line: line)
    let seconds = (sound.frameTimes.last ?? 0) - (sound.frameTimes.first ?? 0)
    XCTAssertEqual(seconds, 1, accuracy: 0.05, "\(file): a second of sound", line: line)
    XCTAssertFalse(result.stderr.contains("x265 [info]"), "encoder banners stay off stderr: \(result.stderr)", line: line)
  }

  func testHEVCInMP4MatroskaAndMOV() throws {
    for ext in ["mp4", "mkv", "mov"] { try assertRecords(["--video-codec", "hevc"], "hevc.\(ext)", video: "hevc") }
  }

  func testAV1AndVP9InMP4AndMatroska() throws {
    for ext in ["mp4", "mkv"] {
      try assertRecords(["--video-codec", "av1"], "av1.\(ext)", video: "av1")
      try assertRecords(["--video-codec", "vp9"], "vp9.\(ext)", video: "vp9")
    }
  }

  func testMJPEGAndAnEncoderByName() throws {
    try assertRecords(["--video-codec", "mjpeg"], "mjpeg.mkv", video: "mjpeg")
    try assertRecords(["--encoder", "libx264", "--tune", "zerolatency"], "named.mp4", video: "h264")
  }

  func testOpusInMP4AndMatroska() throws {
    for ext in ["mp4", "mkv"] { try assertRecords(["--audio-codec", "opus"], "opus.\(ext)", video: "h264", audio: "opus") }
  }

  func testContainersAndEncodersRefuseWhatTheyCannotDo() throws {
    try assertFails(
      clip + ["--video-codec", "av1", "-o", "a.mov"],
      stderr: "camfx: error: recording to 'a.mov' failed: the QuickTime (.mov) container cannot hold av1 (Matroska, .mkv, holds every codec)")
    try assertFails(
      clip + ["--audio-codec", "opus", "-o", "a.mov"],
      stderr: "camfx: error: recording to 'a.mov' failed: the QuickTime (.mov) container cannot hold opus (Matroska, .mkv, holds every codec)")
    try assertFails(
      clip + ["--video-codec", "hevc", "-o", "rtmp://127.0.0.1:9/live/x"],
      stderr: "camfx: error: recording to 'rtmp://127.0.0.1:9/live/x' failed: the FLV (RTMP) container cannot hold hevc (Matroska, .mkv, holds every codec)")
    try assertFails(
      clip + ["--video-codec", "h266", "-o", "a.mkv"],
      stderr: "camfx: error: unknown --video-codec 'h266' (expected h264, hevc, av1, vp9, mjpeg; --encoder NAME takes any FFmpeg encoder)")
    try assertFails(
      clip + ["--encoder", "nosuch", "-o", "a.mkv"], prefix: "camfx: error: FFmpeg has no encoder 'nosuch'; the video encoders that take yuv420p here: ")
    try assertFails(
      clip + ["--encoder", "h264_vaapi", "-o", "a.mkv"],
      stderr: "camfx: error: video encoder 'h264_vaapi' does not take yuv420p frames (a VAAPI or QSV encoder needs hardware frames, which camfx does not make)")
    try assertFails(
      clip + ["--audio-codec", "opus", "--sample-rate", "44100", "-o", "a.mkv"],
      stderr: "camfx: error: Opus does not support sample rate 44100 (use one of 48000, 24000, 16000, 12000, 8000)")
    try assertFails(
      clip + ["--video-codec", "mjpeg", "--crf", "20", "-o", "a.mkv"],
      stderr: "camfx: error: video encoder 'mjpeg' has no --crf (use --video-bitrate)")
    try assertFails(
      clip + ["--video-codec", "vp9", "--encoder", "libx264", "-o", "a.mkv"],
      stderr: "camfx: error: use either --video-codec or --encoder, not both")
  }

  func testAHardwareEncoderWithoutItsDeviceIsAClearError() throws {
    // No V4L2 memory-to-memory encoder exists here (a Raspberry Pi has one).
    guard !FileManager.default.fileExists(atPath: "/dev/video11") else { throw XCTSkip("a V4L2 device is present") }
    try assertFails(
      clip + ["--encoder", "h264_v4l2m2m", "-o", "a.mkv"],
      prefix: "camfx: error: opening video encoder 'h264_v4l2m2m' failed: ")
  }
}
