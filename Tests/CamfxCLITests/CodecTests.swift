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
    for banner in Self.libraryLogLines {
      XCTAssertFalse(result.stderr.contains(banner), "encoder banners stay off stderr: \(result.stderr)", line: line)
    }
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
      stderr: "camfx: error: unknown --video-codec 'h266' (expected h264, hevc, av1, vp9, mjpeg or copy; --encoder NAME takes any FFmpeg encoder)")
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
      prefix: "camfx: error: opening video encoder 'h264_v4l2m2m' for 320x240 failed: ")
  }

  /// How libx264, libx265 and SVT-AV1 start the lines they write themselves.
  static let libraryLogLines = ["[libx264", "x264 [", "x265 [", "[libx265", "Svt[", "[libsvtav1"]

  // `assertFails` compares the whole of stderr with the one camfx line: none of the
  // encoders' own lines (`libraryLogLines`) may come with it.

  func testEncoderSizeLimitsAreCheckedBeforeOpening() throws {
    let short = ["--audio", "none", "--frames", "3", "--quiet"]
    try assertFails(
      short + ["--video-codec", "av1", "--size", "32x32", "-o", "a.mkv"],
      stderr: "camfx: error: frame size 32x32 is too small for libsvtav1 (AV1), which needs at least 64x64")
    try assertFails(
      short + ["--video-codec", "av1", "--size", "64x62", "-o", "a.mkv"],
      stderr: "camfx: error: frame size 64x62 is too small for libsvtav1 (AV1), which needs at least 64x64")
    try assertFails(
      short + ["--video-codec", "av1", "--size", "64x8706", "-o", "a.mkv"],
      stderr: "camfx: error: frame size 64x8706 is too tall for libsvtav1 (AV1), which takes at most 8704 rows")
    try assertFails(
      short + ["--video-codec", "av1", "--size", "64x64", "--video-bitrate", "200M", "-o", "a.mkv"],
      stderr: "camfx: error: invalid video bitrate 200000000 bit/s for libsvtav1 (AV1): at most 100M (100 Mbit/s)")
    try assertFails(
      short + ["--video-codec", "hevc", "--size", "2x2", "-o", "a.mkv"],
      stderr: "camfx: error: frame size 2x2 is too small for libx265 (HEVC), which needs at least 16x16")
    try assertFails(
      short + ["--video-codec", "hevc", "--size", "64x14", "-o", "a.mkv"],
      stderr: "camfx: error: frame size 64x14 is too small for libx265 (HEVC), which needs at least 16x16")
    try assertFails(
      short + ["--video-codec", "hevc", "--size", "16x16", "--x264-preset", "placebo", "-o", "a.mkv"],
      stderr: "camfx: error: frame size 16x16 is too small for libx265 (HEVC) with preset placebo, which needs at least 32x32")
  }

  func testTheSmallestSizesTheEncodersTakeRecord() throws {
    for (codec, size) in [("av1", "64x64"), ("hevc", "16x16")] {
      let result = try CLI.run(
        ["--video-codec", codec, "--size", size, "--frames", "3", "--audio", "none", "--quiet", "-o", "a.mkv"], in: dir)
      XCTAssertEqual(result.status, 0, "\(codec) \(size): \(result)")
      XCTAssertEqual(try MovieOracle.probe(path("a.mkv"))["video"]?.frames, 3, "\(codec) \(size)")
      XCTAssertTrue(result.stderr.hasPrefix("recorded 3 frames"), "only camfx's summary: \(result.stderr)")
      XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "only camfx's summary: \(result.stderr)")
      try FileManager.default.removeItem(atPath: path("a.mkv"))
    }
  }

  func testTunesAreCheckedBeforeOpening() throws {
    let short = ["--size", "64x64", "--audio", "none", "--frames", "3", "--quiet"]
    let x264Tunes = "expected film, animation, grain, stillimage, psnr, ssim, fastdecode or zerolatency; "
      + "several join with commas, e.g. film,zerolatency"
    try assertFails(short + ["--tune", "x", "-o", "a.mp4"], stderr: "camfx: error: unknown --tune 'x' for libx264 (\(x264Tunes))")
    try assertFails(
      short + ["--encoder", "libx264", "--tune", "film,fast", "-o", "a.mp4"],
      stderr: "camfx: error: unknown --tune 'fast' in 'film,fast' for libx264 (\(x264Tunes))")
    try assertFails(short + ["--tune", "", "-o", "a.mp4"], stderr: "camfx: error: unknown --tune '' for libx264 (\(x264Tunes))")
    try assertFails(
      short + ["--tune", "film,grain", "-o", "a.mp4"],
      stderr: "camfx: error: --tune 'film,grain' names more than one of film, animation, grain, stillimage, psnr, ssim; "
        + "libx264 takes one of them (fastdecode and zerolatency combine with any)")
    try assertFails(
      short + ["--video-codec", "hevc", "--tune", "film", "-o", "a.mkv"],
      stderr: "camfx: error: unknown --tune 'film' for libx265 (expected psnr, ssim, grain, fastdecode, zerolatency or animation)")
    // What x264 itself takes: any case, and any of its separators.
    let result = try CLI.run(short + ["--tune", "Film/ZeroLatency", "-o", "a.mp4"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertTrue(result.stderr.hasPrefix("recorded 3 frames"), result.stderr)
  }

  func testVerboseShowsWhyAnEncoderRefusedToOpen() throws {
    // libx265 cannot code a 16384x16 picture in a level it knows; camfx has no check for that.
    let args = ["--video-codec", "hevc", "--size", "16384x16", "--audio", "none", "--frames", "2", "-o", "a.mkv"]
    let refused = "camfx: error: opening video encoder 'libx265' for 16384x16 failed: libx265 refused the frame size, rate or options"
    try assertFails(args, stderr: refused)
    let verbose = try CLI.run(args + ["-v"], in: dir)
    XCTAssertEqual(verbose.status, 1, "\(verbose)")
    XCTAssertTrue(verbose.stderr.contains("Cannot open libx265 encoder"), verbose.stderr)
    XCTAssertTrue(verbose.stderr.hasSuffix(refused + "\n"), verbose.stderr)
  }

  private func packetHashes(_ file: String) throws -> [String] { try MovieOracle.videoPacketHashes(path(file)) }

  func testCopyWritesTheInputsPacketsUnchanged() throws {
    // An MJPEG movie (what a camera's MJPEG recording is), and H.264 with B-frames.
    _ = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-f", "lavfi", "-i", "sine=f=1000",
      "-t", "4", "-c:v", "mjpeg", "-q:v", "3", "-c:a", "aac", path("mjpeg.mkv"),
    ])
    _ = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "4", "-c:v", "libx264", "-bf", "3",
      path("h264.mp4"),
    ])
    let mjpeg = try packetHashes("mjpeg.mkv")
    XCTAssertEqual(mjpeg.count, 100)
    for out in ["copy.mkv", "copy.mp4"] {
      let result = try CLI.run(["--input", "mjpeg.mkv", "--video-codec", "copy", "-o", out], in: dir)
      XCTAssertEqual(result.status, 0, "\(result)")
      XCTAssertTrue(result.stderr.contains("copied 100 frames (4.00 s)"), result.stderr)
      XCTAssertEqual(try packetHashes(out), mjpeg, out)
      XCTAssertEqual(try MovieOracle.probe(path(out))["audio"]?.codec, "aac")
    }
    let result = try CLI.run(["--input", "h264.mp4", "--video-codec", "copy", "-o", "h264.mkv", "-o", "h264-copy.mp4"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertEqual(try packetHashes("h264.mkv"), try packetHashes("h264.mp4"))
    XCTAssertEqual(try packetHashes("h264-copy.mp4"), try packetHashes("h264.mp4"))
    XCTAssertEqual(try MovieOracle.probe(path("h264-copy.mp4"))["video"]?.frames, 100)
    // Limits hold to the frame.
    let cut = try CLI.run(["--input", "mjpeg.mkv", "--video-codec", "copy", "--duration", "2s", "-o", "cut.mkv"], in: dir)
    XCTAssertEqual(cut.status, 0, "\(cut)")
    XCTAssertEqual(try packetHashes("cut.mkv"), Array(mjpeg.prefix(50)))
    // Segments: the summary lists the files a copy wrote, which hold every packet once.
    let cuts = try CLI.run(
      ["--input", "mjpeg.mkv", "--video-codec", "copy", "--segment", "1s", "--stats-json", "stats.json", "-o", "seg.mkv"],
      in: dir)
    XCTAssertEqual(cuts.status, 0, "\(cuts)")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("stats.json")))) as? [String: Any])
    let names = try XCTUnwrap(json["segments"] as? [[String: Any]]).compactMap { $0["name"] as? String }
    XCTAssertEqual(names, ["seg-000.mkv", "seg-001.mkv", "seg-002.mkv", "seg-003.mkv"])
    XCTAssertEqual(try names.flatMap { try packetHashes($0) }, mjpeg)
  }

  func testCopyRefusesWhatNeedsPictures() throws {
    _ = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x64:rate=25", "-f", "lavfi", "-i", "sine", "-t", "1",
      "-c:v", "mjpeg", "-c:a", "pcm_s16le", path("in.mkv"),
    ])
    try assertFails(
      ["--source", "testsrc", "--video-codec", "copy", "-o", "a.mkv"],
      stderr: "camfx: error: --video-codec copy records a camera's or a movie's own compressed stream; --source testsrc has none (use --input FILE or a camera)",
      keep: ["in.mkv"])
    try assertFails(
      ["--source", "/dev/video63", "--video-codec", "copy", "--input-format", "yuyv", "-o", "a.mkv"],
      stderr: "camfx: error: --video-codec copy records compressed frames: --input-format yuyv is not, use h264 or mjpeg",
      keep: ["in.mkv"])
    try assertFails(
      ["--source", "/dev/video63", "--video-codec", "copy", "--audio", "sine", "-o", "a.mkv"],
      stderr: "camfx: error: --video-codec copy from a camera records no sound yet; drop --audio sine",
      keep: ["in.mkv"])
    try assertFails(
      ["--input", "in.mkv", "--video-codec", "copy", "--filter", "mirror", "-o", "a.mkv"],
      stderr: "camfx: error: --filter needs decoded pictures or an encoder; --video-codec copy has neither", keep: ["in.mkv"])
    for option in [["--still", "s.png"], ["--motion"]] {
      try assertFails(
        ["--input", "in.mkv", "--video-codec", "copy"] + option + ["-o", "a.mkv"],
        stderr: "camfx: error: \(option[0]) needs decoded pictures or an encoder; --video-codec copy has neither",
        keep: ["in.mkv"])
    }
    try assertFails(
      ["--input", "in.mkv", "--video-codec", "copy", "-o", "a.mp4"],
      stderr: "camfx: error: recording to 'a.mp4' failed: the MP4 container cannot hold pcm_s16le (Matroska, .mkv, holds every codec)",
      keep: ["in.mkv"])
  }
}
