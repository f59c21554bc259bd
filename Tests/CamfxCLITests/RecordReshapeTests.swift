import Foundation
import XCTest

/// Filters that change the frame's shape, through `camfx record`: a live source through
/// resizing filters (the BGRA path's pools), a movie scaled by `--size`, and a phone-style
/// movie with a display matrix turned upright. Decoded with ffmpeg and compared.
final class RecordReshapeTests: CLITestCase {
  private func record(_ name: String, _ extra: [String]) throws {
    let result = try CLI.run(
      ["record", "--size", "640x360", "--fps", "30", "--duration", "1s", "--no-realtime", "--quiet",
       "--x264-preset", "ultrafast", "--crf", "12", "-o", name] + extra, in: dir)
    XCTAssertEqual(result.status, 0, "\(name): \(result)")
  }

  /// The luma plane of the first frame.
  private func luma(_ name: String, _ width: Int, _ height: Int) throws -> [UInt8] {
    let frames = try MovieOracle.decodeYUV(path(name), width: width, height: height, frames: 1)
    return Array(try XCTUnwrap(frames.first, name).prefix(width * height))
  }

  func testLiveSourceThroughRotateAndScale() throws {
    try record("plain.mp4", [])
    try record("turned.mp4", ["--filter", "rotate=angle=90", "--filter", "mirror", "--filter", "scale=width=180:height=-2:method=area"])
    let video = try XCTUnwrap(MovieOracle.probe(path("turned.mp4"))["video"])
    XCTAssertEqual([video.width, video.height, video.frames], [180, 320, 30])
    // The reference: the plain recording turned, mirrored and shrunk 2:1 by ffmpeg.
    let reference = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-i", path("plain.mp4"), "-frames:v", "1", "-vf", "transpose=1,hflip,scale=180:320:flags=area",
      "-f", "rawvideo", "-pix_fmt", "yuv420p", "-",
    ]).stdout.prefix(180 * 320)
    let ours = try luma("turned.mp4", 180, 320)
    XCTAssertEqual(ours.count, reference.count)
    let mean = Double(zip(ours, reference).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(ours.count)
    XCTAssertLessThan(mean, 2.5, "against ffmpeg's transpose,hflip,scale")
  }

  func testSizeScalesAMovieInputAndAutorotateTurnsItUpright() throws {
    try record("clip.mp4", ["--audio", "sine"])
    // A phone-style file: the same pictures, stored with a 90° display matrix.
    _ = try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path("clip.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", path("phone.mp4")])

    let scaled = try CLI.run(["record", "--input", "clip.mp4", "--size", "320x-2", "--quiet", "-o", "small.mp4"], in: dir)
    XCTAssertEqual(scaled.status, 0, "\(scaled)")
    let small = try XCTUnwrap(MovieOracle.probe(path("small.mp4"))["video"])
    XCTAssertEqual([small.width, small.height, small.frames], [320, 180, 30])

    let upright = try CLI.run(["record", "--input", "phone.mp4", "--quiet", "-o", "upright.mp4"], in: dir)
    XCTAssertEqual(upright.status, 0, "\(upright)")
    let turned = try XCTUnwrap(MovieOracle.probe(path("upright.mp4"))["video"])
    XCTAssertEqual([turned.width, turned.height, turned.frames], [360, 640, 30])
    // ffmpeg's own autorotate of the phone file is the reference picture.
    let reference = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-i", path("phone.mp4"), "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-",
    ]).stdout.prefix(360 * 640)
    let ours = try luma("upright.mp4", 360, 640)
    XCTAssertEqual(ours.count, reference.count)
    let mean = Double(zip(ours, reference).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(ours.count)
    XCTAssertLessThan(mean, 2.5, "against ffmpeg's autorotate")

    let stored = try CLI.run(["record", "--input", "phone.mp4", "--no-autorotate", "--quiet", "-o", "stored.mp4"], in: dir)
    XCTAssertEqual(stored.status, 0, "\(stored)")
    let kept = try XCTUnwrap(MovieOracle.probe(path("stored.mp4"))["video"])
    XCTAssertEqual([kept.width, kept.height], [640, 360])
  }

  func testBadSizeForAMovieInput() throws {
    try record("clip.mp4", [])
    try assertFails(
      ["record", "--input", "clip.mp4", "--size=-1x-1", "-o", "out.mp4"],
      stderr: "camfx: error: --size: invalid size '-1x-1': only one of width and height may be -1 or -2", keep: ["clip.mp4"])
  }

  /// Text drawn in a transcode (on the decoded planes) and in a live recording (in
  /// BGRA) reads back with OCR from the decoded movie (the centre, where the box is:
  /// tesseract reads a label, not a label on colour bars).
  func testTextReadsBackFromTheMovie() throws {
    try record("clip.mp4", [])
    let spec = "text=text=FRAME %{frame}:size=40:color=black:box=white:position=center"
    let transcode = try CLI.run(["record", "--input", "clip.mp4", "--quiet", "--filter", spec, "-o", "texted.mp4"], in: dir)
    XCTAssertEqual(transcode.status, 0, "\(transcode)")
    try record("live.mp4", ["--filter", "mirror=axis=vertical", "--filter", spec])
    for (name, frame) in [("texted.mp4", 12), ("live.mp4", 21)] {
      _ = try MovieOracle.run("ffmpeg", [
        "-v", "error", "-i", path(name), "-vf", "select=eq(n\\,\(frame)),crop=300:90", "-frames:v", "1", path("\(name).png"),
      ])
      let text = try MovieOracle.run("tesseract", [path("\(name).png"), "stdout", "--psm", "7"]).stdout
      XCTAssertTrue(String(decoding: text, as: UTF8.self).contains("FRAME \(frame)"), "\(name): \(String(decoding: text, as: UTF8.self))")
    }
  }

  /// `--input FILE --realtime` plays the movie on the wall clock, as a camera: a 1 s
  /// clip takes at least its own length, and every frame still arrives on a quiet run
  /// (the check is a lower bound on time, never an upper one).
  func testRealtimeInputPlaysOnTheWallClock() throws {
    try record("clip.mp4", ["--audio", "sine"])
    let result = try CLI.run(
      ["record", "--input", "clip.mp4", "--realtime", "--quiet", "-v", "--stats-json", "stats.json", "-o", "paced.mp4"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertTrue(result.stderr.hasPrefix("camfx: video path: yuv420p → encoder\n"), result.stderr)
    let stats = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("stats.json")))) as? [String: Any])
    XCTAssertGreaterThanOrEqual(stats["elapsed_seconds"] as? Double ?? 0, 29.0 / 30)
    let video = try XCTUnwrap(MovieOracle.probe(path("paced.mp4"))["video"])
    let dropped = (stats["dropped"] as? [String: Int])?.values.reduce(0, +) ?? -1
    XCTAssertEqual(video.frames + dropped, 30, "every frame is written or counted as dropped")
  }

  /// strftime fields in a transcode show the movie's creation time plus the frame's
  /// timestamp (in UTC here, the machine's zone), and the bare timestamp without one.
  func testTextShowsTheMovieCreationTime() throws {
    try record("clip.mp4", [])
    _ = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-i", path("clip.mp4"), "-c", "copy", "-metadata", "creation_time=2021-03-04T05:06:07Z", path("dated.mp4"),
    ])
    for (input, expected) in [("dated.mp4", "2021-03-04 05:06:07"), ("clip.mp4", "1970-01-01 00:00:00")] {
      let result = try CLI.run(
        ["record", "--input", input, "--quiet", "--filter", "timestamp=size=24:color=black:box=white", "-o", "out-\(input)"],
        in: dir, environment: ["TZ": "UTC"])
      XCTAssertEqual(result.status, 0, "\(result)")
      _ = try MovieOracle.run("ffmpeg", [
        "-v", "error", "-i", path("out-\(input)"), "-frames:v", "1", "-vf", "crop=320:60:0:0", path("\(input).png"),
      ])
      let text = String(decoding: try MovieOracle.run("tesseract", [path("\(input).png"), "stdout", "--psm", "7"]).stdout, as: UTF8.self)
      XCTAssertTrue(text.contains(expected), "\(input): \(text)")
    }
  }
}
