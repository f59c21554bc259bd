import Camfx
import CamfxPNG
import Foundation
import XCTest

/// `camfx run FILE.yml`: several testsrc cameras from one YAML file, each movie decoded;
/// `--check` and its errors compared whole; SIGHUP reloads checked on the frames written.
final class RunCommandTests: CLITestCase {
  /// Writes `text` to `name` in the test directory.
  private func write(_ text: String, to name: String = "cams.yml") throws {
    try text.write(toFile: path(name), atomically: true, encoding: .utf8)
  }

  /// The `creation_time` a movie carries (ISO 8601, UTC).
  private func creationTime(_ name: String) throws -> String {
    let json = try MovieOracle.run("ffprobe", ["-v", "error", "-show_entries", "format_tags=creation_time", "-of", "json", path(name)])
    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
    let format = try XCTUnwrap(object["format"] as? [String: Any])
    return try XCTUnwrap((format["tags"] as? [String: String])?["creation_time"], "\(name) has no creation_time")
  }

  /// Asserts that every frame missing from `times` (a step longer than `interval`) is
  /// one the camera's summary counted as dropped: a machine at load 8 stalls a live
  /// source for a second now and then, and says so, but a frame is never lost unsaid.
  private func assertNoGapButDrops(
    _ times: [Double], interval: Double, summary: String?, _ name: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    var missing = 0
    for (a, b) in zip(times, times.dropFirst()) { missing += max(0, Int(((b - a) / interval).rounded()) - 1) }
    let dropped = summary.flatMap { $0.firstMatch(of: /, (\d+) dropped \(/).flatMap { Int($0.output.1) } }
    XCTAssertNotNil(dropped, "no summary for \(name): \(summary ?? "")", file: file, line: line)
    XCTAssertLessThanOrEqual(missing, dropped ?? 0, "\(name): \(missing) frames missing, \(dropped ?? 0) dropped", file: file, line: line)
  }

  func testTwoCamerasRecordTheirOwnFilesThatLineUp() throws {
    try write("""
      cameras:
        front:
          source: testsrc
          size: 320x240
          filter: [mirror, "crop=width=240:height=160"]
          realtime: false       # no live drops on a loaded machine: the test is about content
          frames: 30
          x264-preset: ultrafast
          output: front.mp4
        back:
          source: testsrc
          size: 160x120
          realtime: false
          frames: 30
          x264-preset: ultrafast
          o: back.mkv
      """)
    let before = Date().timeIntervalSince1970
    let result = try CLI.run(["run", "--quiet", "cams.yml"], in: dir)
    let after = Date().timeIntervalSince1970
    XCTAssertEqual(result.status, 0, "\(result)")
    // Each camera's summary, prefixed with its name.
    let lines = result.stderr.split(separator: "\n").map(String.init).sorted()
    XCTAssertEqual(lines.count, 2, result.stderr)
    XCTAssertTrue(lines[0].hasPrefix("back: recorded 30 frames (1.00 s) to back.mkv: "), result.stderr)
    XCTAssertTrue(lines[1].hasPrefix("front: recorded 30 frames (1.00 s) to front.mp4: "), result.stderr)
    let front = try XCTUnwrap(MovieOracle.probe(path("front.mp4"))["video"])
    let back = try XCTUnwrap(MovieOracle.probe(path("back.mkv"))["video"])
    XCTAssertEqual([front.width, front.height, front.frames], [240, 160, 30])
    XCTAssertEqual([back.width, back.height, back.frames], [160, 120, 30])
    XCTAssertEqual(front.duration, 1, accuracy: 0.01)
    // Matroska keeps no stream duration: the last frame starts one frame before 1 s.
    XCTAssertEqual(back.frameTimes.last ?? 0, 29.0 / 30, accuracy: 0.002)
    // One start: both files carry the same instant (MP4 keeps whole seconds), which is
    // when the run started them.
    let frontTime = try creationTime("front.mp4"), backTime = try creationTime("back.mkv")
    XCTAssertEqual(frontTime.prefix(19), backTime.prefix(19))
    let parser = ISO8601DateFormatter()
    parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let instant = try XCTUnwrap(parser.date(from: backTime)).timeIntervalSince1970
    XCTAssertGreaterThanOrEqual(instant, before)
    XCTAssertLessThanOrEqual(instant, after)
    XCTAssertEqual(try listing(), ["back.mkv", "cams.yml", "front.mp4"])
  }

  func testCheckPrintsEachCameraAndOpensNothing() throws {
    try write("""
      cameras:
        front:
          source: /dev/video9   # not opened by --check
          fps: 30
          motion: true
          audio: sine=440
          output: [front.mp4, "-"]
        back:
          input: clip.mp4
          realtime: false
          segment: 10m
          output: back-%Y%m%d-%H%M%S.mp4
      preview: 127.0.0.1:8080
      mosaic:
        layout: pip=back:corner=tl
        size: 1280x720
        output: both.mp4
        audio: front
      """)
    let result = try CLI.run(["run", "--check", "cams.yml"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertEqual(result.stderr, "")
    XCTAssertEqual(
      result.stdout,
      """
      front: /dev/video9 -> front.mp4, stdout
      back: input clip.mp4 -> back-%Y%m%d-%H%M%S.mp4
      mosaic: pip=back:corner=tl:size=25% of front, back, 1280x720 -> both.mp4

      """)
    XCTAssertEqual(try listing(), ["cams.yml"])
  }

  func testCheckNamesTheFileLineAndKeyOfEachError() throws {
    let front = "cameras:\n  front:\n    source: testsrc\n    output: front.mp4\n"
    let cases: [(String, String)] = [
      (front + "    fsp: 30\n", "cams.yml:5: cameras.front.fsp: unknown option (did you mean 'fps'?)"),
      (front + "    sparkle: true\n",
       "cams.yml:5: cameras.front.sparkle: unknown option (a camera's keys are camfx record's options: camfx record --help)"),
      (front + "    size: {width: 640}\n", "cams.yml:5: cameras.front.size: expected a value, found a map"),
      (front + "    motion: often\n", "cams.yml:5: cameras.front.motion: expected true or false, found 'often'"),
      (front + "    fps: [25, 30]\n",
       "cams.yml:5: cameras.front.fps: takes one value, not a list (lists are for options that repeat, like filter and output)"),
      // ArgumentParser's message and RecordCommand's, each on its key's line.
      (front + "    fps: fast\n", "cams.yml:5: cameras.front.fps: the value 'fast' is invalid for '--fps <n>'"),
      (front + "    duration: 10x\n",
       "cams.yml:5: cameras.front.duration: --duration: invalid duration '10x': expected a positive time such as 10s, "
         + "500ms, 90m, 1h30m, 1d or 1:30:00 (at least 1ms)"),
      (front + "    filter: [mirror, sparkle]\n",
       "cams.yml:5: cameras.front.filter: filter 'sparkle': unknown filter (known: watermark, grayscale, crop, mirror, "
         + "scale, fit, pad, rotate, color, text, timestamp, frei0r)"),
      (front + "   fps: 30\n", "cams.yml:5: YAML: did not find expected key (while parsing a block mapping from line 2)"),
      ("cameras:\n", "cams.yml:1: cameras: expected a map of cameras by name, found nothing"),
      ("cameras: {}\n", "cams.yml:1: cameras: no cameras: give at least one, by name"),
      ("preview: 8080\n", "cams.yml:1: cameras: no cameras: add cameras: with one map of record options per camera"),
      (front + "  back:\n    source: testsrc\n", "cams.yml:5: cameras.back: no output: give output (a file, a URL, or a list of them), or pre-record for event clips"),
      ("cameras:\n  front:\n    source: /dev/video7\n    output: a.mp4\n  back:\n    output: b.mp4\n    source: /dev/./video7\n",
       "cams.yml:7: cameras.back.source: '/dev/./video7' is also the source of camera 'front' (line 3); a device records "
         + "for one camera only"),
      (front + "  back:\n    source: testsrc\n    output: ./front.mp4\n",
       "cams.yml:7: cameras.back.output: './front.mp4' is written by camera 'front' too (line 4); each file belongs to one camera"),
      (front + "    pre-record: 5s\n    event-output: clips/%H%M%S.mp4\n  back:\n    source: testsrc\n    pre-record: 5s\n"
         + "    event-output: ./clips/%H%M%S.mp4\n",
       "cams.yml:10: cameras.back.event-output: './clips/%H%M%S.mp4' is written by camera 'front' too (line 6); each file "
         + "belongs to one camera"),
      (front + "mosaic:\n  layout: pip=side\n  output: both.mp4\n",
       "cams.yml:6: mosaic.layout: layout 'pip=side', camera 'side': no such camera (cameras: front)"),
      (front + "mosaic:\n  layout: grid\n  output: both.mp4\n  audio: side\n",
       "cams.yml:8: mosaic.audio: no camera 'side' in the mosaic (it shows front)"),
      (front + "mosiac:\n  layout: grid\n", "cams.yml:5: mosiac: unknown key (did you mean 'mosaic'?)"),
      (front + "    audio: none\nmosaic:\n  layout: grid\n  output: both.mp4\n  audio: front\n",
       "cams.yml:6: mosaic.audio: front records no sound to go with the mosaic"),
      ("cameras:\n  mosaic:\n    source: testsrc\n    output: m.mp4\nmosaic:\n  layout: grid\n  output: both.mp4\n",
       "cams.yml:2: cameras.mosaic: 'mosaic' is the name of the file's mosaic: give this camera another name"),
      ("cameras:\n  both:\n    source: [testsrc, testsrc]\n    output: [a.mp4, b.mp4]\n",
       "cams.yml:3: cameras.both.source: one camera has one source; give each camera its own name under cameras:"),
      (front + "    layout: hstack\n",
       "cams.yml:5: cameras.front.layout: a camera is one picture; the file's mosaic: puts cameras in one (mosaic: {layout: ...})"),
    ]
    for (yaml, message) in cases {
      try write(yaml)
      try assertFails(["run", "--check", "cams.yml"], stderr: "camfx: error: " + message, keep: ["cams.yml"])
    }
    try FileManager.default.removeItem(atPath: path("cams.yml"))
    try assertFails(["run", "--check", "cams.yml"], stderr: "camfx: error: cams.yml: cannot be read: No such file or directory")
  }

  /// Red and blue PNG cameras of 320x240, each into its own file, and a mosaic.
  private func colourCameras(mosaic: String) throws -> String {
    for (name, colour) in [("red", BGRA(r: 220, g: 20, b: 20)), ("blue", BGRA(r: 20, g: 20, b: 220))] {
      let picture = PixelBuffer(width: 320, height: 240)
      picture.fill(colour)
      try PNGFile.write(picture, to: path("\(name).png"), alpha: false)
    }
    return """
      cameras:
        left:
          source: red.png
          x264-preset: ultrafast
          output: left.mp4
        right:
          source: blue.png
          x264-preset: ultrafast
          output: right.mp4
      mosaic:
      \(mosaic)
      """
  }

  /// The mean red and blue of the last frame of `movie` (`width`×`height`) over `columns`.
  private func lastFrameColour(_ movie: String, width: Int, height: Int, columns: Range<Int>, rows: Range<Int>) throws -> (r: Double, b: Double) {
    let bytes = [UInt8](try MovieOracle.run("ffmpeg", ["-v", "error", "-sseof", "-0.3", "-i", path(movie), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdout)
    let size = width * height * 3
    let frame = bytes[(bytes.count / size - 1) * size..<(bytes.count / size) * size]
    var r = 0.0, b = 0.0, n = 0.0
    for y in rows { for x in columns { let i = frame.startIndex + (y * width + x) * 3; r += Double(frame[i]); b += Double(frame[i + 2]); n += 1 } }
    return (r / n, b / n)
  }

  /// `camfx run ARGS cams.yml` until `file` is there and `seconds` more, then Ctrl-C.
  private func runUntilInterrupted(_ arguments: [String] = [], after file: String, seconds: Double) throws -> (status: Int32, stderr: String) {
    let process = try CLI.start(["run"] + arguments + ["cams.yml"], in: dir)
    defer { if process.isRunning { process.terminate() } }
    waitForFile(file)
    usleep(UInt32(seconds * 1e6))
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    return (process.terminationStatus, try String(contentsOfFile: path("stderr.txt"), encoding: .utf8))
  }

  func testAMosaicIsRecordedBesideEachCamerasOwnFile() throws {
    try write(try colourCameras(mosaic: "  layout: hstack\n  size: 640x240\n  output: both.mp4\n  x264-preset: ultrafast\n"))
    let (status, stderr) = try runUntilInterrupted(after: "both.mp4", seconds: 1.5)
    XCTAssertEqual(status, 0, stderr)
    let lines = stderr.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 3, stderr)
    for (name, size) in [("left.mp4", [320, 240]), ("right.mp4", [320, 240]), ("both.mp4", [640, 240])] {
      let video = try XCTUnwrap(MovieOracle.probe(path(name))["video"], name)
      XCTAssertEqual([video.width, video.height], size, name)
      XCTAssertGreaterThan(video.frames, 10, name)
      assertNoGapButDrops(video.frameTimes, interval: 1.0 / 30, summary: lines.first { $0.contains(" to \(name): ") }, name)
    }
    XCTAssertTrue(lines.contains { $0.hasPrefix("mosaic: recorded ") && $0.contains(" to both.mp4: ") }, stderr)
    // Each camera in its own half.
    let left = try lastFrameColour("both.mp4", width: 640, height: 240, columns: 0..<320, rows: 0..<240)
    let right = try lastFrameColour("both.mp4", width: 640, height: 240, columns: 320..<640, rows: 0..<240)
    XCTAssertTrue(left.r > 180 && left.b < 60, "left half: \(left)")
    XCTAssertTrue(right.b > 180 && right.r < 60, "right half: \(right)")
    // Its own record options: x264's settings in its stream say ultrafast's (subme 0).
    let settings = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path("both.mp4"))), as: UTF8.self)
    XCTAssertTrue(settings.contains(" subme=0 "), "the mosaic's x264 settings are not ultrafast's")
  }

  /// A camera that cannot open fails alone: the other camera and the mosaic record, and
  /// the run's last line counts the mosaic among its recordings.
  func testACameraThatCannotOpenFailsAloneAndTheLastLineCountsTheMosaic() throws {
    let yaml = try colourCameras(mosaic: "  layout: hstack\n  size: 640x240\n  output: both.mp4\n")
      .replacingOccurrences(of: "source: red.png", with: "source: /dev/camfx-no-such-camera\n    reconnect-timeout: 0")
    try write(yaml)
    let (status, stderr) = try runUntilInterrupted(["--quiet"], after: "both.mp4", seconds: 1)
    XCTAssertEqual(status, 1, stderr)
    XCTAssertEqual(
      stderr.split(separator: "\n").last.map(String.init),
      "camfx: error: 1 of 3 recordings (cameras and the mosaic) failed: left", stderr)
    XCTAssertGreaterThan(try XCTUnwrap(MovieOracle.probe(path("right.mp4"))["video"]).frames, 10)
    XCTAssertGreaterThan(try XCTUnwrap(MovieOracle.probe(path("both.mp4"))["video"]).frames, 10)
  }

  func testOnePreviewServesEveryCameraAndFollowsAReload() throws {
    let port = try LocalServer.freePort()
    // The mosaic names its cameras: one added to the file is not in it, and it records on.
    let cameras = try colourCameras(mosaic: "  layout: hstack\n  cameras: [left, right]\n  size: 640x240\n  output: both.mp4\n")
      + "preview: 127.0.0.1:\(port)\n"
    try write(cameras)
    let process = try CLI.start(["run", "cams.yml"], in: dir)
    defer { if process.isRunning { process.terminate() } }
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline && process.isRunning && !LocalServer.isListening(tcp: port) { usleep(20_000) }
    usleep(800_000)
    func names() throws -> String {
      String(decoding: try HTTPProbe.get(port: port, path: "/cameras").body, as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
    }
    XCTAssertEqual(try names(), #"{"cameras":["left","right","mosaic"]}"#)
    let left = try HTTPProbe.get(port: port, path: "/cameras/left/snapshot.png")
    try Data(left.body).write(to: URL(fileURLWithPath: path("left.png")))
    XCTAssertGreaterThan(try PNGFile.read(path: path("left.png"))[100, 100].r, 180)
    // A camera added by a reload is served too; the others were not started again.
    try write(cameras.replacingOccurrences(
      of: "mosaic:\n", with: "  extra:\n    source: testsrc\n    size: 160x120\n    output: extra.mp4\nmosaic:\n"))
    kill(process.processIdentifier, SIGHUP)
    waitForFile("extra.mp4")
    var served = ""
    while Date() < deadline.addingTimeInterval(30) {
      served = (try? names()) ?? ""
      if served.contains("extra") { break }
      usleep(100_000)
    }
    XCTAssertEqual(served, #"{"cameras":["left","right","extra","mosaic"]}"#)
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    XCTAssertTrue(stderr.contains("camfx: reloaded cams.yml: 1 added, 0 restarted, 0 removed, 3 unchanged"), stderr)
    XCTAssertEqual(stderr.components(separatedBy: "camfx: preview at http://127.0.0.1:\(port)").count - 1, 2, stderr)
  }

  func testReloadThatChangesTheMosaicRestartsItAloneAndTheCamerasRecordOn() throws {
    try write(try colourCameras(mosaic: "  layout: hstack\n  size: 640x240\n  output: both-1.mp4\n"))
    let process = try CLI.start(["run", "cams.yml"], in: dir)
    defer { if process.isRunning { process.terminate() } }
    waitForFile("both-1.mp4")
    usleep(800_000)
    try write(try colourCameras(mosaic: "  layout: vstack\n  size: 320x480\n  output: both-2.mp4\n"))
    kill(process.processIdentifier, SIGHUP)
    waitForFile("both-2.mp4")
    usleep(1_200_000)
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    let lines = stderr.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 5, stderr)
    XCTAssertTrue(lines.first?.hasPrefix("mosaic: recorded ") == true && lines.first?.contains(" to both-1.mp4: ") == true, stderr)
    XCTAssertEqual(lines.dropFirst().first, "camfx: reloaded cams.yml: 0 added, 1 restarted, 0 removed, 2 unchanged")
    for (name, size) in [("left.mp4", [320, 240]), ("both-1.mp4", [640, 240]), ("both-2.mp4", [320, 480])] {
      let video = try XCTUnwrap(MovieOracle.probe(path(name))["video"], name)
      XCTAssertEqual([video.width, video.height], size, name)
      assertNoGapButDrops(video.frameTimes, interval: 1.0 / 30, summary: lines.first { $0.contains(" to \(name): ") }, name)
    }
    // The new mosaic has the cameras one above the other, without starting them again.
    let top = try lastFrameColour("both-2.mp4", width: 320, height: 480, columns: 0..<320, rows: 0..<240)
    let bottom = try lastFrameColour("both-2.mp4", width: 320, height: 480, columns: 0..<320, rows: 240..<480)
    XCTAssertTrue(top.r > 180 && top.b < 60, "top: \(top)")
    XCTAssertTrue(bottom.b > 180 && bottom.r < 60, "bottom: \(bottom)")
  }

  func testReloadStartsAnAddedCameraAndKeepsTheOthersWithoutAGap() throws {
    let front = "cameras:\n  front:\n    source: testsrc\n    size: 160x120\n    x264-preset: ultrafast\n    output: front.mp4\n"
    let back = "  back:\n    source: testsrc\n    size: 128x96\n    x264-preset: ultrafast\n    output: back.mp4\n"
    try write(front)
    let process = try CLI.start(["run", "cams.yml"], in: dir)
    defer { if process.isRunning { process.terminate() } }
    waitForFile("front.mp4")
    usleep(500_000)
    try write(front + back)
    kill(process.processIdentifier, SIGHUP)
    waitForFile("back.mp4")
    usleep(500_000)
    // A file with an error changes nothing: both cameras record on.
    try write(front + back + "    fsp: 30\n")
    kill(process.processIdentifier, SIGHUP)
    let reloaded = Date()
    // Long enough that a camera the broken reload stopped (0.5 s and its start) falls
    // well short of the bar below however slowly it started.
    usleep(2_000_000)
    // (Taken at the stop, not at the exit: finishing two files takes a busy machine a while.)
    let stopped = Date()
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    XCTAssertEqual(process.terminationReason, .exit)
    XCTAssertEqual(process.terminationStatus, 0)
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    let lines = stderr.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 4, stderr)
    XCTAssertEqual(lines.first, "camfx: reloaded cams.yml: 1 added, 0 restarted, 0 removed, 1 unchanged")
    XCTAssertEqual(
      lines.dropFirst().first,
      "camfx: reload: error: cams.yml:12: cameras.back.fsp: unknown option (did you mean 'fps'?); "
        + "the cameras record on as they were")
    let frontSummary = lines.first { $0.hasPrefix("front: recorded ") }
    let backSummary = lines.first { $0.hasPrefix("back: recorded ") }
    let frontVideo = try XCTUnwrap(MovieOracle.probe(path("front.mp4"))["video"])
    let backVideo = try XCTUnwrap(MovieOracle.probe(path("back.mp4"))["video"])
    XCTAssertEqual([frontVideo.width, frontVideo.height], [160, 120])
    XCTAssertEqual([backVideo.width, backVideo.height], [128, 96])
    // The first camera went on through both reloads, frame after frame.
    assertNoGapButDrops(frontVideo.frameTimes, interval: 1.0 / 30, summary: frontSummary, "front.mp4")
    XCTAssertEqual(frontVideo.frameTimes.first ?? -1, 0, accuracy: 1e-6)
    XCTAssertGreaterThan(frontVideo.duration, backVideo.duration + 0.4, "front started first")
    // The added camera kept recording after the broken reload, until the stop: the 0.5 s
    // before that reload and the time from it to the stop (one stopped by it: 0.5 s).
    XCTAssertGreaterThan(backVideo.duration, stopped.timeIntervalSince(reloaded) + 0.2)
    assertNoGapButDrops(backVideo.frameTimes, interval: 1.0 / 30, summary: backSummary, "back.mp4")
  }

  func testReloadFinishesARemovedCameraAndRestartsAChangedOne() throws {
    let front = "  front:\n    source: testsrc\n    size: 160x120\n    x264-preset: ultrafast\n    output: front.mp4\n"
    let back = "  back:\n    source: testsrc\n    x264-preset: ultrafast\n"
    try write("cameras:\n" + front + back + "    size: 128x96\n    output: back-1.mp4\n")
    let process = try CLI.start(["run", "cams.yml"], in: dir)
    defer { if process.isRunning { process.terminate() } }
    waitForFile("front.mp4")
    waitForFile("back-1.mp4")
    usleep(300_000)
    try write("cameras:\n" + back + "    size: 96x64\n    output: back-2.mp4\n")
    kill(process.processIdentifier, SIGHUP)
    waitForFile("back-2.mp4")
    usleep(300_000)
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)
    let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
    let lines = stderr.split(separator: "\n").map(String.init)
    // Both leave before the changed one starts again (it may open the same device).
    XCTAssertEqual(lines.count, 4, stderr)
    let ended = lines.prefix(2).sorted()
    XCTAssertTrue(ended.first?.hasPrefix("back: recorded ") == true && ended.first?.contains(" to back-1.mp4: ") == true, stderr)
    XCTAssertTrue(ended.last?.hasPrefix("front: recorded ") == true && ended.last?.contains(" to front.mp4: ") == true, stderr)
    XCTAssertEqual(lines.dropFirst(2).first, "camfx: reloaded cams.yml: 0 added, 1 restarted, 1 removed, 0 unchanged")
    XCTAssertTrue(lines.last?.hasPrefix("back: recorded ") == true, stderr)
    XCTAssertTrue(lines.last?.contains(" to back-2.mp4: ") == true, stderr)
    for (name, size) in [("front.mp4", [160, 120]), ("back-1.mp4", [128, 96]), ("back-2.mp4", [96, 64])] {
      let video = try XCTUnwrap(MovieOracle.probe(path(name))["video"], name)
      XCTAssertEqual([video.width, video.height], size, name)
      XCTAssertGreaterThan(video.frames, 5, name)
      assertNoGapButDrops(video.frameTimes, interval: 1.0 / 30, summary: lines.first { $0.contains(" to \(name): ") }, name)
    }
  }

  /// The example the service unit reads is a good file.
  func testTheExampleFileChecks() throws {
    let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples/cams.yml")
    try FileManager.default.copyItem(at: example, to: dir.appendingPathComponent("cams.yml"))
    let result = try CLI.run(["run", "--check", "cams.yml"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertEqual(
      result.stdout,
      """
      front: /dev/video0 -> front-%Y%m%d-%H%M%S.mp4
      door: /dev/video1 -> event clips door-event-%Y%m%d-%H%M%S.mp4

      """)
  }

  /// SIGHUP reloads only `camfx run`: `camfx record` finishes its file on it, as ever.
  func testRecordStillFinishesOnSIGHUP() throws {
    let run = try signalWhileWriting(
      ["record", "--size", "64x48", "--x264-preset", "ultrafast", "-o", "out.mp4"], signal: SIGHUP, watching: "out.mp4")
    XCTAssertEqual(run.reason, .exit)
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(run.stderr.contains("stopped by interrupted"), run.stderr)
    let video = try XCTUnwrap(MovieOracle.probe(path("out.mp4"))["video"])
    XCTAssertGreaterThan(video.frames, 0)
  }
}
