import Foundation
import XCTest

/// `camfx record` as a user runs it; every movie is decoded with ffprobe/ffmpeg.
///
/// `--no-realtime` makes testsrc deterministic (no live drops on a loaded machine) where
/// the test is about content; the live path is exercised by the SIGINT test.
final class RecordCommandTests: CLITestCase {
  private let fast = ["--x264-preset", "ultrafast"]

  func testRecordIsTheDefaultCommandAndPrintsASummary() throws {
    let result = try CLI.run(["--size", "64x48", "--frames", "10", "--no-realtime", "-o", "out.mp4"] + fast, in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    // One line: recorded 10 frames (0.33 s) to out.mp4: 4.7 kB, 112.5 kbit/s, 0 dropped (...); stopped by frames after 0.1 s
    XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
    XCTAssertTrue(result.stderr.hasPrefix("recorded 10 frames (0.33 s) to out.mp4: "), result.stderr)
    XCTAssertTrue(result.stderr.contains(" kbit/s, 0 dropped (late 0, out-of-buffers 0, corrupt 0); stopped by frames after "), result.stderr)
    XCTAssertTrue(result.stderr.hasSuffix(" s\n"), result.stderr)
    let video = try XCTUnwrap(MovieOracle.probe(path("out.mp4"))["video"])
    XCTAssertEqual(video.codec, "h264")
    XCTAssertEqual([video.width, video.height], [64, 48])
    XCTAssertEqual(video.frames, 10)
    XCTAssertEqual(try listing(), ["out.mp4"], "no temporary file may be left")
  }

  func testSineAudioMatchesTheVideoAndIs440Hz() throws {
    let result = try CLI.run(
      ["record", "--size", "160x120", "--duration", "2s", "--audio", "sine=440", "--no-realtime", "-o", "tone.mp4"] + fast,
      in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let streams = try MovieOracle.probe(path("tone.mp4"))
    let video = try XCTUnwrap(streams["video"])
    let audio = try XCTUnwrap(streams["audio"])
    XCTAssertEqual(audio.codec, "aac")
    XCTAssertEqual(video.frames, 60)
    XCTAssertEqual(audio.duration, video.duration, accuracy: 0.05)
    let samples = try MovieOracle.decodeMono(path("tone.mp4"))
    XCTAssertEqual(Double(samples.count) / 48_000, video.duration, accuracy: 0.05)
    let middle = samples[24_000..<48_000]
    XCTAssertEqual(MovieOracle.dominantFrequency(middle, rate: 48_000, range: 100...2000, step: 20), 440)
    XCTAssertGreaterThan(middle.map { abs(Int($0)) }.max() ?? 0, 8000, "the tone must be loud, not silence")
  }

  func testStatsJSONHasTheFinalFigures() throws {
    let result = try CLI.run(
      ["record", "--size", "64x48", "--frames", "12", "--no-realtime", "--stats-json", "stats.json", "-o", "out.mkv"] + fast,
      in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let data = try Data(contentsOf: dir.appendingPathComponent("stats.json"))
    let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    XCTAssertEqual(json["frames_in"] as? Int, 12)
    XCTAssertEqual(json["frames_out"] as? Int, 12)
    XCTAssertEqual(json["dropped"] as? [String: Int], ["late": 0, "out-of-buffers": 0, "corrupt": 0])
    XCTAssertEqual(json["stop_reason"] as? String, "frames")
    let busy = try XCTUnwrap(json["busy_seconds"] as? [String: Double])
    XCTAssertEqual(Set(busy.keys), ["filter", "writer"])
    XCTAssertGreaterThan(busy["writer"] ?? 0, 0)
    XCTAssertEqual(json["duration_seconds"] as? Double ?? 0, 0.4, accuracy: 1e-9)
    let size = try FileManager.default.attributesOfItem(atPath: path("out.mkv"))[.size] as? Int
    XCTAssertEqual(json["bytes"] as? Int, size)
    XCTAssertEqual(try MovieOracle.probe(path("out.mkv"))["video"]?.frames, 12)
  }

  /// Two files: the summary credited the first with both files' bytes ("to a.mp4: 63.5
  /// kB" for a 32.5 kB a.mp4), and so did `--stats-json`'s `bytes`. Each file has its own
  /// figures now, compared with its size on disk and its frames by ffprobe.
  func testEachFileHasItsOwnSizeAndBitRate() throws {
    let result = try CLI.run(
      ["record", "--size", "160x120", "--frames", "45", "--no-realtime", "--stats-json", "s.json", "-o", "a.mp4", "-o", "b.mkv"]
        + fast, in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("s.json"))) as? [String: Any])
    func size(_ name: String) throws -> Int64 {
      try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path(name))[.size] as? Int64)
    }
    let a = try size("a.mp4"), b = try size("b.mkv")
    XCTAssertNotEqual(a, b, "the files differ, so crediting one with the other's size shows")
    let seconds = try [("a.mp4", a), ("b.mkv", b)].map { name, bytes -> Double in
      let frames = try XCTUnwrap(MovieOracle.probe(path(name))["video"]).frames
      XCTAssertEqual(frames, 45, name)
      return Double(frames) / 30
    }
    // The summary's figures, written as camfx writes them (one decimal, rounded half up).
    func fixed(_ value: Double, _ digits: Int) -> String {
      let scale = digits == 1 ? 10.0 : 100.0
      let scaled = Int64((value * scale).rounded())
      let fraction = String(scaled % Int64(scale))
      return "\(scaled / Int64(scale))." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
    func figures(_ bytes: Int64, _ seconds: Double) -> String {
      "\(fixed(Double(bytes) / 1e3, 1)) kB, \(fixed(Double(bytes) * 8 / seconds / 1e3, 1)) kbit/s"
    }
    let elapsed = try XCTUnwrap(json["elapsed_seconds"] as? Double)
    XCTAssertEqual(
      result.stderr,
      "recorded 45 frames (\(fixed(seconds[0], 2)) s) to a.mp4: \(figures(a, seconds[0])), 0 dropped (late 0, "
        + "out-of-buffers 0, corrupt 0); stopped by frames after \(fixed(elapsed, 1)) s\n"
        + "b.mkv: 45 frames (\(fixed(seconds[1], 2)) s), \(figures(b, seconds[1]))\n")
    // The JSON: the first file's bytes, the total, and each output's own.
    XCTAssertEqual(json["bytes"] as? Int64, a)
    XCTAssertEqual(json["total_bytes"] as? Int64, a + b)
    let outputs = try XCTUnwrap(json["outputs"] as? [[String: Any]])
    XCTAssertEqual(outputs.map { $0["name"] as? String }, ["a.mp4", "b.mkv"])
    XCTAssertEqual(outputs.map { $0["bytes"] as? Int64 }, [a, b])
    for (output, length) in zip(outputs, seconds) {
      let bytes = try XCTUnwrap(output["bytes"] as? Int64)
      XCTAssertEqual(output["video_seconds"] as? Double ?? 0, length, accuracy: 0.001, "\(output)")
      XCTAssertEqual(output["bits_per_second"] as? Double ?? 0, Double(bytes) * 8 / length, accuracy: 1, "\(output)")
    }
  }

  func testMaxSizeStopsWithAPlayableFile() throws {
    let result = try CLI.run(
      ["record", "--size", "320x240", "--frames", "300", "--crf", "0", "--max-size", "40k", "--no-realtime",
       "--stats-json", "stats.json", "-o", "out.mp4"] + fast,
      in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any])
    XCTAssertEqual(json["stop_reason"] as? String, "max-size")
    let written = try XCTUnwrap(json["frames_out"] as? Int)
    XCTAssertLessThan(written, 300)
    XCTAssertEqual(try MovieOracle.probe(path("out.mp4"))["video"]?.frames, written)
  }

  /// --max-size holds each file to the limit: with two files the recording stopped when
  /// they reached it together (112 kB and 109 kB for --max-size 200k).
  func testMaxSizeHoldsEachFileNotTheirSum() throws {
    let result = try CLI.run(
      ["record", "--size", "320x240", "--frames", "900", "--crf", "10", "--max-size", "200k", "--no-realtime",
       "--stats-json", "s.json", "-o", "a.mp4", "-o", "b.mkv"] + fast, in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertTrue(result.stderr.contains("; stopped by max-size after "), result.stderr)
    let sizes = try ["a.mp4", "b.mkv"].map { name -> Int in
      try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path(name))[.size] as? Int)
    }
    // Within a packet and the index of the limit: a 320x240 frame at --crf 10 is a few kB.
    XCTAssertGreaterThan(sizes.max() ?? 0, 190_000, "\(sizes)")
    XCTAssertLessThan(sizes.max() ?? 0, 230_000, "\(sizes)")
    for name in ["a.mp4", "b.mkv"] {
      XCTAssertGreaterThan(try MovieOracle.probe(path(name))["video"]?.frames ?? 0, 0, name)
    }
  }

  /// A live recording stopped with Ctrl-C: exit 0 and a file that decodes to the end.
  func testSIGINTFinishesAPlayableFile() throws {
    try assertSignalFinishesAPlayableFile(SIGINT)
  }

  /// `kill` (SIGTERM) from a service manager stops the same clean way.
  func testSIGTERMFinishesAPlayableFile() throws {
    try assertSignalFinishesAPlayableFile(SIGTERM)
  }

  /// coreutils `timeout` signals the process and then its group: two SIGTERMs from one
  /// sender, 50 ms apart here, are one stop, and every frame encoded reaches the file.
  func testTwoStopSignalsFromOneSenderCountOnce() throws {
    let run = try signalWhileWriting(
      ["record", "--size", "320x240", "--x264-preset", "medium", "--stats-json", "s.json", "-o", "live.mp4"],
      signal: SIGTERM, settle: 1, watching: "live.mp4", againAfter: [50_000], ready: { $0 > 0 })
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertFalse(run.stderr.contains("interrupted twice"), run.stderr)
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("s.json"))) as? [String: Any])
    XCTAssertEqual(json["stop_reason"] as? String, "interrupted")
    let written = try XCTUnwrap(json["frames_out"] as? Int)
    XCTAssertEqual(json["frames_in"] as? Int, written, "no frame left in the encoder")
    XCTAssertEqual(try MovieOracle.probe(path("live.mp4"))["video"]?.frames, written)
  }

  /// A second Ctrl-C with a slow preset (x264's placebo holds 60 frames, 2 s, in its
  /// lookahead): when the encoder was still taking frames, the file's sound went on past
  /// its last frame (3.61 s of sound over 1.50 s of video, which the summary gave); when
  /// it was already draining, the second signal waited 2.7 to 4 s for the drain to end.
  /// The sound now ends with the picture, the summary gives what the file holds, and the
  /// drain is cut at once.
  func testASecondSignalKeepsNoSoundPastTheLastFrame() throws {
    let run = try signalWhileWriting(
      ["record", "--audio", "sine", "--x264-preset", "placebo", "--stats-json", "s.json", "-o", "x.mp4"],
      signal: SIGINT, settle: 2, watching: "x.mp4", againAfter: [300_000], ready: { $0 > 0 })
    XCTAssertEqual(run.reason, .exit, run.stderr)
    XCTAssertEqual(run.status, 1, run.stderr)
    // One placebo frame, and the file's finish (0.2 to 0.45 s here).
    XCTAssertLessThan(run.secondsAfterLastSignal, 1.5, "the second signal did not stop at once")
    let streams = try MovieOracle.probe(path("x.mp4"))
    let video = try XCTUnwrap(streams["video"]), audio = try XCTUnwrap(streams["audio"])
    XCTAssertGreaterThan(video.frames, 0)
    XCTAssertLessThanOrEqual(audio.duration, video.duration + 0.001, "the sound runs past the last frame")
    XCTAssertGreaterThan(audio.duration, video.duration - 0.05, "the sound ends with the picture, not before")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("s.json"))) as? [String: Any])
    XCTAssertEqual(json["frames_out"] as? Int, video.frames)
    XCTAssertEqual(json["duration_seconds"] as? Double ?? 0, video.duration, accuracy: 0.001)
    let lines = run.stderr.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 2, run.stderr)
    XCTAssertTrue(
      lines[0].hasPrefix("recorded \(video.frames) frames (\(String(format: "%.2f", video.duration)) s) to x.mp4: "),
      run.stderr)
    XCTAssertEqual(
      lines.last,
      "camfx: error: interrupted twice: stopped at once, without the frames still in the encoder; kept \(video.frames) "
        + "frames in x.mp4")
    let decode = try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path("x.mp4"), "-f", "null", "-"])
    XCTAssertEqual(decode.stderr, "")
  }

  /// The same through coreutils `timeout` itself. How many frames two seconds hold
  /// depends on how busy the machine is (the other test processes share its cores), so
  /// the file is held to the summary's count, not to a rate.
  func testTimeoutStopsCleanly() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["--preserve-status", "2", try CLI.executable.path]
      + CLI.withTestSource(["record", "--size", "320x240", "--x264-preset", "medium", "-o", "t.mp4"])
    process.currentDirectoryURL = dir
    process.standardOutput = FileHandle.nullDevice
    let err = Pipe()
    process.standardError = err
    try process.run()
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    XCTAssertFalse(stderr.contains("interrupted twice"), stderr)
    let video = try XCTUnwrap(MovieOracle.probe(path("t.mp4"))["video"], stderr)
    XCTAssertGreaterThan(video.frames, 0)
    XCTAssertTrue(stderr.contains("recorded \(video.frames) frames ("), stderr)
    let decode = try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path("t.mp4"), "-f", "null", "-"])
    XCTAssertEqual(decode.stderr, "")
  }

  private func assertSignalFinishesAPlayableFile(_ signal: Int32) throws {
    // Signalled once it is writing (the movie has its header) and has recorded for
    // about two seconds (it has no limit of its own).
    let run = try signalWhileWriting(
      ["record", "--size", "160x120", "--audio", "sine", "-o", "live.mp4"] + fast, signal: signal, settle: 2,
      watching: "live.mp4", ready: { $0 > 0 })
    let stderr = run.stderr
    XCTAssertEqual(run.reason, .exit, stderr)
    XCTAssertEqual(run.status, 0, stderr)
    XCTAssertTrue(stderr.contains("stopped by interrupted"), stderr)
    let streams = try MovieOracle.probe(path("live.mp4"))
    let video = try XCTUnwrap(streams["video"])
    XCTAssertGreaterThan(video.frames, 5)
    XCTAssertEqual(streams["audio"]?.codec, "aac")
    // Decoding the whole file must not report any error (a truncated file would).
    let decode = try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path("live.mp4"), "-f", "null", "-"])
    XCTAssertEqual(decode.stderr, "")
    XCTAssertEqual(try listing(), ["live.mp4", "stderr.txt"])
  }

  // MARK: Bad input: one line, non-zero exit, no file left behind.

  func testUnknownProfile() throws {
    try assertFails(
      ["record", "--profile", "ultra", "--frames", "1", "-o", "out.mp4"],
      stderr: "camfx: error: unknown H.264 profile 'ultra' (expected baseline, main or high)")
  }

  func testMalformedBitrate() throws {
    try assertFails(
      ["record", "--video-bitrate", "abc", "--frames", "1", "-o", "out.mp4"],
      stderr: "camfx: error: invalid bitrate 'abc': expected a number with an optional k or M suffix, e.g. 4M or 800k")
  }

  func testUnknownX264Preset() throws {
    try assertFails(
      ["record", "--x264-preset", "warp", "--frames", "1", "-o", "out.mp4"],
      prefix: "camfx: error: unknown x264 preset 'warp' (expected one of ultrafast, ")
  }

  func testOddSizeIsAnErrorNotASilentRounding() throws {
    try assertFails(
      ["record", "--size", "641x360", "--frames", "1", "-o", "out.mp4"],
      stderr: "camfx: error: frame size 641x360 has an odd side; H.264 in yuv420p needs an even width and height (crop to e.g. 640x360)")
  }

  /// Limits FFmpeg would refuse with its own function names are checked first, and
  /// the message names the value.
  func testSizeAndBitrateLimitsAreCamfxsOwnMessages() throws {
    try assertFails(
      ["record", "--size", "1x1", "--frames", "1", "-o", "out.mp4"],
      stderr: "camfx: error: frame size 1x1 is too small; H.264 in yuv420p needs at least 2x2")
    try assertFails(
      ["record", "--size", "16384x16384", "--frames", "1", "-o", "out.mp4"],
      stderr: "camfx: error: frame size 16384x16384 is too large for the encoder (at most about 260 million pixels; 8192x8192 works)")
    try assertFails(
      ["record", "--size", "64x48", "--video-bitrate", "1", "--frames", "1", "-o", "out.mp4"],
      stderr: "camfx: error: invalid video bitrate 1 bit/s: at least 1k (1000 bit/s)")
  }

  func testOutputInAMissingDirectory() throws {
    try assertFails(
      ["record", "--frames", "1", "-o", "nowhere/out.mp4"],
      stderr: "camfx: error: output directory 'nowhere' does not exist")
  }

  func testExistingOutputWithoutOverwrite() throws {
    try Data("keep me".utf8).write(to: dir.appendingPathComponent("out.mp4"))
    try assertFails(
      ["record", "--frames", "1", "-o", "out.mp4"],
      stderr: "camfx: error: output file 'out.mp4' already exists (use -y or --overwrite to replace it)", keep: ["out.mp4"])
    XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("out.mp4"), encoding: .utf8), "keep me")
  }

  /// The chain is negotiated before the first frame: an impossible crop fails then,
  /// and a crop to an odd size is refused for yuv420p, both before any file exists.
  func testChainGeometryIsCheckedBeforeRecording() throws {
    try assertFails(
      ["record", "--size", "160x120", "--filter", "crop=width=320:height=240", "-o", "out.mp4"],
      stderr: "camfx: error: filter 'crop': rectangle 320x240 at (-80, -60) does not fit inside the 160x120 input frame")
    try assertFails(
      ["record", "--size", "160x120", "--filter", "grayscale", "--filter", "crop=width=81:height=60", "-o", "out.mp4"],
      stderr: "camfx: error: frame size 81x60 has an odd side; H.264 in yuv420p needs an even width and height (crop to e.g. 80x60)")
  }

  func testUnsupportedContainer() throws {
    try assertFails(
      ["record", "--frames", "1", "-o", "out.avi"],
      stderr: "camfx: error: unsupported output file 'out.avi' ('.avi'); use .mp4, .mov or .mkv")
  }

  func testBadAudioDurationAndSizeValues() throws {
    try assertFails(
      ["record", "--audio", "noise", "-o", "out.mp4"],
      stderr: "camfx: error: invalid --audio 'noise' (expected none, sine or sine=FREQ, e.g. sine=440)")
    // Settings for a sound that is not there are refused, not ignored.
    try assertFails(
      ["record", "--sample-rate", "44100", "-o", "out.mp4"],
      stderr: "camfx: error: --sample-rate sets the sound, and this recording has none (add --audio sine, --audio default or --audio hw:CARD,DEV)")
    try assertFails(
      ["record", "--audio", "none", "--channels", "1", "-o", "out.mp4"],
      stderr: "camfx: error: --channels sets the sound, and this recording has none (add --audio sine, --audio default or --audio hw:CARD,DEV)")
    try assertFails(
      ["record", "--audio", "hw:99,0", "--frames", "3", "-o", "out.mp4"],
      stderr: "camfx: error: cannot open sound device 'hw:99,0': Invalid argument")
    try assertFails(
      ["record", "--duration", "abc", "-o", "out.mp4"],
      stderr: "camfx: error: --duration: invalid duration 'abc': expected a positive time such as 10s, 500ms, 90m, 1h30m, 1d or 1:30:00 (at least 1ms)")
    try assertFails(
      ["record", "--duration", "-1s", "-o", "out.mp4"],
      stderr: "camfx: error: --duration: invalid duration '-1s': expected a positive time such as 10s, 500ms, 90m, 1h30m, 1d or 1:30:00 (at least 1ms)")
    try assertFails(
      ["record", "--max-size", "lots", "-o", "out.mp4"],
      stderr: "camfx: error: --max-size: invalid size 'lots': expected a byte count such as 50M, 1.5G, 800k or 64MiB")
    try assertFails(
      ["record", "--max-size", "1", "-o", "out.mp4"],
      stderr: "camfx: error: --max-size 1 is too small for a movie: its header and first keyframe alone take more; give at least 16k")
  }

  /// A time or a size that cannot be used names its option first: several options take
  /// the same kind of value, and the text alone does not say which one was wrong.
  func testBadTimesAndSizesNameTheirOption() throws {
    let expectedTime = "expected a positive time such as 10s, 500ms, 90m, 1h30m, 1d or 1:30:00 (at least 1ms)"
    let expectedSize = "expected a byte count such as 50M, 1.5G, 800k or 64MiB"
    let cases: [([String], String)] = [
      (["--pre-record", "2s", "--post-record", "-1"], "--post-record: invalid duration '-1': \(expectedTime)"),
      (["--pre-record", "2s", "--event-gap", "soon"], "--event-gap: invalid duration 'soon': \(expectedTime)"),
      (["--pre-record", "2s", "--pre-record-max", "0"], "--pre-record-max: invalid size '0': \(expectedSize)"),
      (["--segment", "1s", "--max-total", "0"], "--max-total: invalid size '0': \(expectedSize)"),
      (["--segment", "-1"], "--segment: invalid duration '-1': \(expectedTime)"),
      (["--fragment", "x"], "--fragment: invalid duration 'x': \(expectedTime)"),
      (["--timelapse", "0"], "--timelapse: invalid duration '0': \(expectedTime)"),
    ]
    for (args, message) in cases {
      try assertFails(["record"] + args + ["-o", "out.mp4"], stderr: "camfx: error: " + message)
    }
  }

  /// A negative number is a bad value of its option, not a missing one.
  func testNegativeNumbersAreNamedAsBadValues() throws {
    let cases: [([String], String)] = [
      (["record", "--size", "-640x360"], "--size: invalid size '-640x360': width and height must be at least 1"),
      (["record", "--fps", "-5"], "source 'testsrc': frame rate -5 must be in 1...1000"),
      (["record", "--frames", "-1"], "--frames must be at least 1 (see camfx --help)"),
      (["record", "--crf", "-1"], "invalid crf '-1.0': must be between 0 and 51"),
      (["record", "--gop", "-3"], "invalid gop -3: must be between 1 and 100000 frames"),
      (["record", "--reconnect-timeout", "-1s"],
       "--reconnect-timeout: invalid duration '-1s': expected a positive time such as 10s, 500ms, 90m, 1h30m, 1d or 1:30:00 (at least 1ms)"),
      (["record", "--min-free", "-1"], "--min-free: invalid size '-1': expected a byte count such as 50M, 1.5G, 800k or 64MiB"),
      (["record", "--video-bitrate", "-4M"],
       "invalid bitrate '-4M': expected a number with an optional k or M suffix, e.g. 4M or 800k"),
      (["snapshot", "--frame", "-1"], "--frame must be at least 0 (see camfx --help)"),
      (["record", "--skip", "-1"], "--skip must be at least 0, got -1"),
      (["snapshot", "--skip", "-1"], "--skip must be at least 0, got -1"),
    ]
    for (args, message) in cases {
      let output = args[0] == "snapshot" ? "out.png" : "out.mp4"
      let result = try CLI.run(args + ["-o", output], in: dir)
      XCTAssertNotEqual(result.status, 0, "\(args)")
      XCTAssertEqual(result.stderr.split(separator: "\n").last.map(String.init), "camfx: error: " + message, "\(args)")
      XCTAssertFalse(result.stderr.contains("missing value"), "\(args)")
      XCTAssertEqual(try listing(), [], "\(args) left files")
    }
  }
}

/// `camfx record --input`: a transcode with filters that keeps frames, times and sound.
final class RecordInputTests: CLITestCase {
  /// A 2 s movie made by ffmpeg itself: testsrc2 at 25 fps and a 1 kHz tone at 44.1 kHz.
  private func makeInput(_ name: String, audio: Bool = true) throws {
    var args = ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25"]
    if audio { args += ["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100"] }
    args += ["-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
    if audio { args += ["-c:a", "aac"] }
    _ = try MovieOracle.run("ffmpeg", args + [path(name)])
  }

  func testTranscodeKeepsFramesTimestampsDurationAndSound() throws {
    try makeInput("in.mp4")
    let result = try CLI.run(
      ["record", "--input", "in.mp4", "--filter", "mirror", "--x264-preset", "ultrafast", "-o", "out.mp4"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertTrue(result.stderr.contains("recorded 50 frames (2.00 s)"), result.stderr)
    XCTAssertTrue(result.stderr.contains("0 dropped"), result.stderr)
    XCTAssertTrue(result.stderr.contains("stopped by end-of-input"), result.stderr)
    let before = try MovieOracle.probe(path("in.mp4"))
    let after = try MovieOracle.probe(path("out.mp4"))
    let v0 = try XCTUnwrap(before["video"]), v1 = try XCTUnwrap(after["video"])
    XCTAssertEqual(v1.codec, "h264")
    XCTAssertEqual(v1.frames, v0.frames)
    XCTAssertEqual(v1.frames, 50)
    XCTAssertEqual(v1.frameTimes.count, v0.frameTimes.count)
    for (a, b) in zip(v0.frameTimes, v1.frameTimes) { XCTAssertEqual(a, b, accuracy: 0.001) }
    XCTAssertEqual(v1.duration, v0.duration, accuracy: 1.0 / 25)
    let a1 = try XCTUnwrap(after["audio"], "the sound track must be kept")
    XCTAssertEqual(a1.codec, "aac")
    XCTAssertEqual(a1.duration, try XCTUnwrap(before["audio"]).duration, accuracy: 0.05)
    let samples = try MovieOracle.decodeMono(path("out.mp4"), rate: 44_100)
    XCTAssertEqual(MovieOracle.dominantFrequency(samples[22_050..<44_100], rate: 44_100, range: 500...1500, step: 20), 1000)
    // The mirror ran: the first decoded frame is the input's, flipped.
    let inFrame = try MovieOracle.decodeYUV(path("in.mp4"), width: 320, height: 240, frames: 1)[0]
    let outFrame = try MovieOracle.decodeYUV(path("out.mp4"), width: 320, height: 240, frames: 1)[0]
    var flippedDiff = 0, straightDiff = 0
    for y in 0..<240 {
      for x in 0..<320 {
        flippedDiff += abs(Int(outFrame[y * 320 + x]) - Int(inFrame[y * 320 + 319 - x]))
        straightDiff += abs(Int(outFrame[y * 320 + x]) - Int(inFrame[y * 320 + x]))
      }
    }
    XCTAssertLessThan(Double(flippedDiff) / 76_800, 3)
    XCTAssertGreaterThan(Double(straightDiff) / 76_800, 10)
  }

  func testAudioNoneDropsTheSoundTrack() throws {
    try makeInput("in.mp4")
    let result = try CLI.run(
      ["record", "--input", "in.mp4", "--audio", "none", "--frames", "10", "--x264-preset", "ultrafast", "-o", "out.mkv"],
      in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let streams = try MovieOracle.probe(path("out.mkv"))
    XCTAssertEqual(streams["video"]?.frames, 10)
    XCTAssertNil(streams["audio"])
  }

  func testMissingInput() throws {
    try assertFails(
      ["record", "--input", "missing.mp4", "-o", "out.mp4"],
      stderr: "camfx: error: cannot open 'missing.mp4': No such file or directory")
  }

  func testCorruptInput() throws {
    var junk = [UInt8](repeating: 0, count: 4096)
    for i in junk.indices { junk[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
    try Data(junk).write(to: dir.appendingPathComponent("junk.mp4"))
    try assertFails(
      ["record", "--input", "junk.mp4", "-o", "out.mp4"],
      stderr: "camfx: error: cannot open 'junk.mp4': Invalid data found when processing input",
      keep: ["junk.mp4"])
  }

  func testUnreadableInput() throws {
    try makeInput("in.mp4", audio: false)
    chmod(path("in.mp4"), 0o000)
    chmod(dir.path, 0o777)  // -o's folder is checked first: nobody may write there
    try assertFails(
      ["record", "--input", "in.mp4", "-o", "out.mp4"],
      stderr: "camfx: error: cannot open 'in.mp4': Permission denied", keep: ["in.mp4"],
      unprivileged: true)
  }

  func testInputWithoutVideo() throws {
    _ = try MovieOracle.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine", "-t", "0.5", path("tone.m4a")])
    try assertFails(
      ["record", "--input", "tone.m4a", "-o", "out.mp4"], stderr: "camfx: error: 'tone.m4a' has no video stream", keep: ["tone.m4a"])
    try assertFails(
      ["record", "--input", "tone.m4a", "--video-codec", "copy", "-o", "out.mp4"],
      stderr: "camfx: error: 'tone.m4a' has no video stream to copy", keep: ["tone.m4a"])
  }

  func testToneCannotBeAddedToAnInput() throws {
    try makeInput("in.mp4")
    try assertFails(
      ["record", "--input", "in.mp4", "--audio", "sine", "-o", "out.mp4"],
      stderr: "camfx: error: --audio sine cannot be used with --input, which brings its own sound (--audio none drops it)",
      keep: ["in.mp4"])
  }
}
