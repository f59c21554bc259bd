import Foundation
import XCTest

/// `camfx compose`, checked by decoding what it wrote; the clips are made by ffmpeg.
final class ComposeTests: CLITestCase {
  /// A clip made by ffmpeg's lavfi: `video` (e.g. `testsrc=size=640x360:rate=25`) for
  /// `seconds`, with a sine tone of `tone` Hz, H.264 + AAC.
  private func clip(_ name: String, _ video: String, seconds: Double, tone: Int? = 1000) throws {
    var args = ["-v", "error", "-f", "lavfi", "-i", "\(video):duration=\(seconds)"]
    if let tone { args += ["-f", "lavfi", "-i", "sine=f=\(tone):duration=\(seconds)", "-c:a", "aac"] }
    args += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest", path(name)]
    _ = try MovieOracle.run("ffmpeg", args)
  }

  private func compose(_ args: [String], line: UInt = #line) throws -> CLI.Result {
    let result = try CLI.run(["compose"] + args, in: dir)
    XCTAssertEqual(result.status, 0, "\(result)", line: line)
    return result
  }

  /// The Y plane (limited range, as coded) of every frame of `movie`.
  private func luma(_ movie: String, width: Int, height: Int) throws -> [[UInt8]] {
    try MovieOracle.decodeYUV(path(movie), width: width, height: height).map { Array($0.prefix(width * height)) }
  }

  private func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double { MovieOracle.meanDifference(a, b) }

  /// Mean of the Y plane over columns `x` of every row.
  private func meanLuma(_ plane: [UInt8], width: Int, columns x: Range<Int>) -> Double {
    let height = plane.count / width
    var sum = 0
    for row in 0..<height { for col in x { sum += Int(plane[row * width + col]) } }
    return Double(sum) / Double(height * x.count)
  }

  private func streamDuration(_ movie: String, _ stream: String) throws -> Double {
    let text = String(decoding: try MovieOracle.run("ffprobe", [
      "-v", "error", "-select_streams", stream, "-show_entries", "stream=duration", "-of", "csv=p=0", path(movie),
    ]).stdout, as: UTF8.self)
    return try XCTUnwrap(Double(text.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  func testTwoClipsOfOtherSizesAndRatesFitOneSizeAndRate() throws {
    try clip("a.mp4", "testsrc=size=640x360:rate=25", seconds: 2, tone: 1000)
    try clip("b.mp4", "testsrc2=size=320x240:rate=30", seconds: 2, tone: 440)
    let result = try compose(["a.mp4", "b.mp4", "--size", "640x360", "--fps", "30", "-o", "out.mp4"])
    XCTAssertTrue(result.stderr.contains("composed 2 item(s), 4.000 s at 640x360 and 30.000 fps"), result.stderr)
    let streams = try MovieOracle.probe(path("out.mp4"))
    XCTAssertEqual(streams["video"]?.frames, 120)
    XCTAssertEqual(try streamDuration("out.mp4", "v"), 4.0, accuracy: 0.0005)
    XCTAssertEqual(try streamDuration("out.mp4", "a"), 4.0, accuracy: 0.0005, "sound as long as the picture")
    let frames = try luma("out.mp4", width: 640, height: 360)
    XCTAssertEqual(frames.count, 120)
    // The first clip fills the frame; the second (4:3) is pillarboxed: 480 wide, 80 black each side.
    XCTAssertGreaterThan(meanLuma(frames[30], width: 640, columns: 0..<60), 25, "not the background")
    XCTAssertEqual(meanLuma(frames[90], width: 640, columns: 0..<76), 16, accuracy: 2)
    XCTAssertEqual(meanLuma(frames[90], width: 640, columns: 564..<640), 16, accuracy: 2)
    XCTAssertGreaterThan(meanLuma(frames[90], width: 640, columns: 84..<556), 40)
    // Each clip's tone where it belongs.
    let sound = try MovieOracle.decodeMono(path("out.mp4"))
    XCTAssertEqual(MovieOracle.dominantFrequency(sound[9_600..<86_400], rate: 48_000), 1000)
    XCTAssertEqual(MovieOracle.dominantFrequency(sound[105_600..<182_400], rate: 48_000), 440)
  }

  func testATrimIsExactToTheFrameAndTheSample() throws {
    // testsrc draws its frame counter: every frame differs.
    try clip("n.mp4", "testsrc=size=320x240:rate=25", seconds: 4)
    _ = try compose(["n.mp4@1s..2.5s", "-o", "trim.mp4"])
    XCTAssertEqual(try streamDuration("trim.mp4", "v"), 1.5, accuracy: 0.0005)
    XCTAssertEqual(try streamDuration("trim.mp4", "a"), 1.5, accuracy: 0.0005)
    XCTAssertEqual(try MovieOracle.probe(path("trim.mp4"))["video"]?.frames, 38)
    // The first frame is source frame 25 (t = 1 s): ffmpeg's accurate seek decodes it.
    let first = try luma("trim.mp4", width: 320, height: 240)[0]
    let source = try luma("n.mp4", width: 320, height: 240)
    let differences = (23...27).map { meanDifference(first, source[$0]) }
    XCTAssertEqual(differences.firstIndex(of: differences.min()!), 2, "closest to frame 25: \(differences)")
    _ = try MovieOracle.run("ffmpeg", ["-v", "error", "-ss", "1", "-i", path("n.mp4"), "-frames:v", "1", path("f25.png")])
    _ = try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path("f25.png"), "-pix_fmt", "yuv420p", "-f", "rawvideo", path("f25.yuv")])
    let seeked = Array(try Data(contentsOf: dir.appendingPathComponent("f25.yuv")).prefix(320 * 240))
    XCTAssertLessThan(meanDifference(first, seeked), 2.5)
  }

  func testAStillBetweenTwoClipsIsHeldForItsDuration() throws {
    try clip("a.mp4", "testsrc=size=640x360:rate=30", seconds: 2)
    try clip("b.mp4", "testsrc2=size=640x360:rate=30", seconds: 2)
    _ = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "smptebars=size=640x360", "-frames:v", "1", path("bars.png"),
    ])
    _ = try compose(["a.mp4@..1s", "bars.png@2s", "b.mp4@..1s", "-o", "still.mp4"])
    XCTAssertEqual(try MovieOracle.probe(path("still.mp4"))["video"]?.frames, 120)
    let frames = try luma("still.mp4", width: 640, height: 360)
    _ = try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path("bars.png"), "-pix_fmt", "yuv420p", "-f", "rawvideo", path("bars.yuv")])
    let bars = Array(try Data(contentsOf: dir.appendingPathComponent("bars.yuv")).prefix(640 * 360))
    for k in [30, 45, 60, 89] { XCTAssertLessThan(meanDifference(frames[k], bars), 2.5, "frame \(k) shows the still") }
    for k in [29, 90] { XCTAssertGreaterThan(meanDifference(frames[k], bars), 10, "frame \(k) is a clip's") }
  }

  func testACrossFadeMixesPictureAndSoundEvenly() throws {
    try clip("red.mp4", "color=c=red:size=320x240:rate=30", seconds: 2, tone: 1000)
    try clip("blue.mp4", "color=c=blue:size=320x240:rate=30", seconds: 2, tone: 440)
    let result = try compose(["red.mp4", "blue.mp4", "--transition", "fade=1s", "-o", "fade.mp4"])
    XCTAssertTrue(result.stderr.contains("composed 2 item(s), 3.000 s"), result.stderr)
    let probed = try MovieOracle.probe(path("fade.mp4"))
    XCTAssertEqual(probed["video"]?.frames, 90)
    // The middle of the fade (t = 1.5 s, frame 45) is the mean of the two.
    let planes = try MovieOracle.decodeYUV(path("fade.mp4"), width: 320, height: 240)
    let red = planes[10], blue = planes[80], middle = planes[45]
    for (name, offset) in [("Y", 1000), ("U", 320 * 240 + 500), ("V", 320 * 240 * 5 / 4 + 500)] {
      let mean = (Double(red[offset]) + Double(blue[offset])) / 2
      XCTAssertEqual(Double(middle[offset]), mean, accuracy: 3, "\(name): red \(red[offset]), blue \(blue[offset])")
    }
    // Equal power: the loudness holds through the fade (1 s to 2 s).
    let sound = try MovieOracle.decodeMono(path("fade.mp4"))
    let window = 2_400
    let levels = stride(from: 14_400, to: 129_600, by: window).map { start -> Double in
      let part = sound[start..<(start + window)]
      return (part.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(window)).squareRoot()
    }
    let median = levels.sorted()[levels.count / 2]
    for (i, level) in levels.enumerated() {
      XCTAssertEqual(level / median, 1, accuracy: 0.1, "window \(i): \(level) against \(median)")
    }
  }

  func testAFadeOutEndsOnBlackAndSilence() throws {
    try clip("a.mp4", "testsrc=size=320x240:rate=30", seconds: 2)
    _ = try compose(["a.mp4", "--fade-in", "0.5s", "--fade-out", "1s", "-o", "out.mp4"])
    let frames = try luma("out.mp4", width: 320, height: 240)
    XCTAssertEqual(frames.count, 60)
    for k in [0, 59] {
      XCTAssertEqual(meanLuma(frames[k], width: 320, columns: 0..<320), 16, accuracy: 1.5, "frame \(k) is black")
    }
    XCTAssertGreaterThan(meanLuma(frames[30], width: 320, columns: 0..<320), 60)
    let sound = try MovieOracle.decodeMono(path("out.mp4"))
    XCTAssertLessThan(sound.suffix(48).map { abs(Int($0)) }.max() ?? 0, 300, "the last samples are silent")
    XCTAssertGreaterThan(sound[48_000..<48_480].map { abs(Int($0)) }.max() ?? 0, 3000)
  }

  /// Goertzel power of `frequency` in `samples`.
  private func power(_ samples: ArraySlice<Int16>, _ frequency: Double) -> Double {
    let c = 2 * cos(2 * Double.pi * frequency / 48_000)
    var s1 = 0.0, s2 = 0.0
    for x in samples {
      let s = Double(x) + c * s1 - s2
      s2 = s1
      s1 = s
    }
    return (s1 * s1 + s2 * s2 - c * s1 * s2) / Double(samples.count * samples.count)
  }

  func testMusicLoopsUnderTheMovieOrReplacesItsSound() throws {
    try clip("a.mp4", "testsrc=size=320x240:rate=30", seconds: 4, tone: 1000)
    // 1.3 s of 2 kHz: the movie needs it three times and a bit.
    _ = try MovieOracle.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=2000:duration=1.3", path("song.wav")])
    _ = try compose(["a.mp4", "--music", "song.wav", "--music-mode", "replace", "--fade-out", "0.5s", "-o", "replaced.mp4"])
    let replaced = try MovieOracle.decodeMono(path("replaced.mp4"))
    XCTAssertEqual(try streamDuration("replaced.mp4", "a"), 4.0, accuracy: 0.0005)
    for second in [0.5, 1.9, 3.2] {
      let at = Int(second * 48_000)
      XCTAssertEqual(MovieOracle.dominantFrequency(replaced[at..<(at + 4_800)], rate: 48_000), 2000, "music at \(second) s")
    }
    XCTAssertLessThan(power(replaced[24_000..<28_800], 1000), power(replaced[24_000..<28_800], 2000) / 1000, "no 1 kHz left")
    XCTAssertLessThan(replaced.suffix(48).map { abs(Int($0)) }.max() ?? 0, 300, "faded out with the movie")
    // Mixed at 0.3 under the movie's own sound: power (0.3)² of the tone's.
    _ = try compose(["a.mp4", "--music", "song.wav@0.2s..1s", "-o", "mixed.mp4"])
    let mixed = try MovieOracle.decodeMono(path("mixed.mp4"))
    let part = mixed[96_000..<100_800]
    XCTAssertEqual(power(part, 2000) / power(part, 1000), 0.09, accuracy: 0.03)
  }

  private func packetHashes(_ file: String) throws -> [String] { try MovieOracle.videoPacketHashes(path(file)) }

  func testPassthroughCopiesPacketsAndCutsOnKeyframes() throws {
    for name in ["p1.mp4", "p2.mp4"] {
      // The same settings: a keyframe every second, no B-frames.
      _ = try MovieOracle.run("ffmpeg", [
        "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=4", "-f", "lavfi", "-i",
        "sine=f=1000:duration=4", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-bf", "0", "-c:a", "aac",
        "-shortest", path(name),
      ])
    }
    let result = try compose(["p1.mp4@1.2s..2.5s", "p2.mp4", "--preset", "passthrough", "-o", "joined.mp4"])
    XCTAssertTrue(
      result.stderr.contains("passthrough cuts on keyframes: p1.mp4@1.2s..2.5s copied from 1.000 s to 3.000 s"), result.stderr)
    let first = try packetHashes("p1.mp4"), second = try packetHashes("p2.mp4")
    XCTAssertEqual(try packetHashes("joined.mp4"), Array(first[25..<75]) + second, "the video packets' bytes, unchanged")
    XCTAssertEqual(try streamDuration("joined.mp4", "v"), 6.0, accuracy: 0.0005)
    XCTAssertEqual(try MovieOracle.probe(path("joined.mp4"))["video"]?.frames, 150)
    // Clips that differ cannot pass through, and say why.
    try clip("small.mp4", "testsrc=size=160x120:rate=25", seconds: 1)
    try assertFails(
      ["compose", "p1.mp4", "small.mp4", "--preset", "passthrough", "-o", "no.mp4"],
      stderr: "camfx: error: --preset passthrough: small.mp4 differs from p1.mp4 (160x120 against 320x240); use a preset that encodes, e.g. --preset 1080p",
      keep: ["joined.mp4", "p1.mp4", "p2.mp4", "small.mp4"])
    try assertFails(
      ["compose", "p1.mp4", "p2.mp4", "--preset", "passthrough", "--transition", "fade=1s", "-o", "no.mp4"],
      stderr: "camfx: error: --preset passthrough cannot fade: fades change pictures, which needs encoding",
      keep: ["joined.mp4", "p1.mp4", "p2.mp4", "small.mp4"])
  }

  /// A movie frame that shows on several output frames is filtered once for each: a
  /// 10 fps NV12 movie (whose pictures the reader converts into frames of its own) made
  /// 30 fps through a mirror is mirrored on every frame, not undone on the repeats.
  func testAFrameShownAgainIsFilteredOnceEachTime() throws {
    _ = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10:duration=2", "-pix_fmt", "nv12",
      "-c:v", "rawvideo", path("slow.nut"),
    ])
    _ = try compose(["slow.nut", "--fps", "30", "--filter", "mirror", "-o", "out.mp4"])
    let source = try luma("slow.nut", width: 320, height: 240)
    let frames = try luma("out.mp4", width: 320, height: 240)
    XCTAssertEqual(source.count, 20)
    XCTAssertEqual(frames.count, 57, "the NUT file says 1.9 s (its last frame's time)")
    for (k, frame) in frames.enumerated() {
      let shown = source[min(k / 3, source.count - 1)]
      var mirrored = shown
      for row in 0..<240 { mirrored[row * 320..<(row + 1) * 320].reverse() }
      XCTAssertLessThan(meanDifference(frame, mirrored), 3, "frame \(k) is the source frame mirrored once")
    }
  }

  func testAPhoneVideoIsTurnedUprightAndFittedBesideAWideOne() throws {
    try clip("wide.mp4", "testsrc=size=320x180:rate=30", seconds: 1)
    // Stored sideways with a 90° display matrix, as phones do.
    _ = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-i", path("wide.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", path("phone.mp4"),
    ])
    _ = try compose(["phone.mp4", "wide.mp4", "-o", "both.mp4"])
    let video = try XCTUnwrap(MovieOracle.probe(path("both.mp4"))["video"])
    XCTAssertEqual([video.width, video.height, video.frames], [180, 320, 60], "the first movie's upright size")
    let frames = try luma("both.mp4", width: 180, height: 320)
    // ffmpeg's own autorotate of the phone file is the reference for the first second.
    let reference = Array(try MovieOracle.run("ffmpeg", [
      "-v", "error", "-i", path("phone.mp4"), "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-",
    ]).stdout.prefix(180 * 320))
    XCTAssertLessThan(meanDifference(frames[0], reference), 2.5, "upright, as ffmpeg turns it")
    // The wide clip is letterboxed in the tall frame: black above and below.
    XCTAssertEqual(meanLuma(Array(frames[45].prefix(180 * 100)), width: 180, columns: 0..<180), 16, accuracy: 2)
  }

  func testBadItemsAreRefusedBeforeAnythingIsWritten() throws {
    try clip("a.mp4", "testsrc=size=320x240:rate=30", seconds: 2)
    try "not an image".write(to: dir.appendingPathComponent("photo.jpg"), atomically: true, encoding: .utf8)
    try "not a png".write(to: dir.appendingPathComponent("fake.png"), atomically: true, encoding: .utf8)
    let keep = ["a.mp4", "fake.png", "photo.jpg"]
    try assertFails(["compose", "missing.mp4", "-o", "o.mp4"], stderr: "camfx: error: cannot read 'missing.mp4': No such file or directory", keep: keep)
    try assertFails(
      ["compose", "photo.jpg", "-o", "o.mp4"],
      stderr: "camfx: error: item 'photo.jpg': stills must be PNG images (convert it, e.g. ffmpeg -i photo.jpg still.png)", keep: keep)
    try assertFails(["compose", "fake.png", "-o", "o.mp4"], prefix: "camfx: error: cannot read PNG 'fake.png'", keep: keep)
    try assertFails(
      ["compose", "a.mp4@2s..1s", "-o", "o.mp4"],
      stderr: "camfx: error: item 'a.mp4@2s..1s': START (2s) must come before END (1s)", keep: keep)
    try assertFails(
      ["compose", "a.mp4@1s..5s", "-o", "o.mp4"],
      stderr: "camfx: error: item 'a.mp4@1s..5s': END 5.0 s is past the end of a.mp4 (2.0 s)", keep: keep)
    try assertFails(
      ["compose", "a.mp4@3s..", "-o", "o.mp4"],
      stderr: "camfx: error: item 'a.mp4@3s..': START 3.0 s is past the end of a.mp4 (2.0 s)", keep: keep)
    try assertFails(
      ["compose", "a.mp4", "--preset", "999p", "-o", "o.mp4"],
      stderr: "camfx: error: unknown --preset '999p' (expected 480p, 540p, 720p, 1080p, 2160p, hevc-1080p, hevc-2160p, passthrough)",
      keep: keep)
    try assertFails(
      ["compose", "a.mp4@..1s", "a.mp4@..1s", "--transition", "fade=2s", "-o", "o.mp4"],
      stderr: "camfx: error: item 'a.mp4@..1s' lasts 1.0 s, shorter than its transitions (2.0 s)", keep: keep)
    try assertFails(["compose", "a.mp4"], stderr: "camfx: error: compose needs -o, e.g. -o out.mp4", keep: keep)
    try assertFails(
      ["compose", "a.mp4", "--music", "none.wav", "-o", "o.mp4"], stderr: "camfx: error: cannot read 'none.wav': No such file or directory",
      keep: keep)
    try assertFails(
      ["compose", "a.mp4", "--music-volume", "0.5", "-o", "o.mp4"],
      stderr: "camfx: error: --music-volume and --music-mode go with --music FILE", keep: keep)
    // The output may be neither an item nor the music, by any spelling; both stay as they were.
    try clip("m.mp4", "testsrc=size=320x240:rate=30", seconds: 1)
    let music = try Data(contentsOf: dir.appendingPathComponent("m.mp4"))
    try assertFails(
      ["compose", "a.mp4", "--music", "m.mp4", "-y", "-o", "./m.mp4"],
      stderr: "camfx: error: output './m.mp4' is the same file as --music; choose another output name", keep: keep + ["m.mp4"])
    XCTAssertEqual(try Data(contentsOf: dir.appendingPathComponent("m.mp4")), music)
    try assertFails(
      ["compose", "a.mp4", "-y", "-o", "a.mp4"],
      stderr: "camfx: error: output 'a.mp4' is the same file as the item 'a.mp4'; choose another output name", keep: keep + ["m.mp4"])
    try assertFails(
      ["compose", "a.mp4", "-o", "o.mp4", "-o", "./o.mp4"],
      stderr: "camfx: error: -o o.mp4 and -o ./o.mp4 are the same file", keep: keep + ["m.mp4"])
  }

  /// Ctrl-C while composing: the movie written so far plays, and the exit status says
  /// it is partial.
  func testAnInterruptedCompositionExitsNonZero() throws {
    try clip("long.mp4", "testsrc=size=1280x720:rate=30", seconds: 20)
    let process = try CLI.start(["compose", "long.mp4", "--x264-preset", "veryslow", "-o", "part.mp4"], in: dir, stderr: "err.txt")
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline, ((try? FileManager.default.attributesOfItem(atPath: path("part.mp4"))[.size] as? Int) ?? 0) == 0 {
      usleep(20_000)
    }
    usleep(1_000_000)
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("err.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 1, stderr)
    XCTAssertTrue(stderr.contains("camfx: error: interrupted: 'part.mp4' holds "), stderr)
    XCTAssertTrue(stderr.hasSuffix(" of the 20.0 s composition; it plays, but is partial\n"), stderr)
    let video = try XCTUnwrap(MovieOracle.probe(path("part.mp4"))["video"])
    XCTAssertGreaterThan(video.frames, 0)
    XCTAssertLessThan(video.frames, 600)
  }

  func testAPresetCapsTheSizeAndNeverScalesUp() throws {
    try clip("a.mp4", "testsrc=size=1280x720:rate=30", seconds: 1)
    _ = try compose(["a.mp4", "--preset", "480p", "-o", "small.mp4"])
    let small = try XCTUnwrap(MovieOracle.probe(path("small.mp4"))["video"])
    XCTAssertEqual([small.width, small.height], [854, 480])
    _ = try compose(["a.mp4", "--preset", "1080p", "-o", "same.mp4"])
    let same = try XCTUnwrap(MovieOracle.probe(path("same.mp4"))["video"])
    XCTAssertEqual([same.width, same.height], [1280, 720])
  }
}
