import Camfx
import CamfxPNG
import Foundation
import XCTest

/// `camfx record --source A --source B`: each camera into its own -o, or all in one
/// picture with --layout; each written file decoded and its pictures checked.
final class SeveralCamerasTests: CLITestCase {
  private func writeColour(_ name: String, _ colour: BGRA, width: Int = 320, height: Int = 240) throws {
    let picture = PixelBuffer(width: width, height: height)
    picture.fill(colour)
    try PNGFile.write(picture, to: path(name), alpha: false)
  }

  /// The mean of each channel of `frame` (rgb24, `width` wide) over `columns`.
  private func mean(_ frame: ArraySlice<UInt8>, width: Int, columns: Range<Int>) -> [Double] {
    var sums = [0.0, 0.0, 0.0]
    var n = 0.0
    let base = frame.startIndex
    for row in 0..<(frame.count / (width * 3)) {
      for x in columns {
        for c in 0..<3 { sums[c] += Double(frame[base + (row * width + x) * 3 + c]) }
        n += 1
      }
    }
    return sums.map { $0 / n }
  }

  /// The frames a closing line says were recorded and dropped.
  private func counts(_ line: String) throws -> (recorded: Int, dropped: Int) {
    let words = line.split(separator: " ")
    let recorded = try XCTUnwrap(words.firstIndex(of: "recorded").flatMap { Int(words[$0 + 1]) }, line)
    let dropped = try XCTUnwrap(words.firstIndex(of: "dropped").flatMap { Int(words[$0 - 1]) }, line)
    return (recorded, dropped)
  }

  private func lastFrameRGB(_ movie: String, width: Int, height: Int) throws -> ArraySlice<UInt8> {
    let bytes = [UInt8](try MovieOracle.run("ffmpeg", ["-v", "error", "-i", path(movie), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdout)
    let size = width * height * 3
    XCTAssertGreaterThanOrEqual(bytes.count, size)
    return bytes[(bytes.count / size - 1) * size..<(bytes.count / size) * size]
  }

  func testTwoCamerasSideBySideEachInItsOwnHalf() throws {
    try writeColour("red.png", BGRA(r: 220, g: 20, b: 20))
    try writeColour("blue.png", BGRA(r: 20, g: 20, b: 220))
    let result = try CLI.run(
      ["record", "--source", "red.png", "--source", "blue.png", "--layout", "hstack", "--duration", "2s", "-o", "both.mp4"],
      in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    // The picture is live: a machine too busy for it drops frames, and says so. Every
    // frame of the 2 s is written or counted as dropped, and the file holds what it says.
    let (recorded, dropped) = try counts(result.stderr)
    XCTAssertEqual(recorded + dropped, 60, result.stderr)
    XCTAssertTrue(result.stderr.contains("(2.00 s) to both.mp4"), result.stderr)
    let video = try XCTUnwrap(try MovieOracle.probe(path("both.mp4"))["video"])
    XCTAssertEqual([video.width, video.height, video.frames], [640, 240, recorded])
    let last = try lastFrameRGB("both.mp4", width: 640, height: 240)
    let left = mean(last, width: 640, columns: 0..<320)
    let right = mean(last, width: 640, columns: 320..<640)
    XCTAssertGreaterThan(left[0], 180, "left: \(left)")
    XCTAssertLessThan(left[2], 60, "left: \(left)")
    XCTAssertGreaterThan(right[2], 180, "right: \(right)")
    XCTAssertLessThan(right[0], 60, "right: \(right)")
  }

  func testPictureInPictureAtItsCornerAndSize() throws {
    try writeColour("red.png", BGRA(r: 220, g: 20, b: 20))
    try writeColour("blue.png", BGRA(r: 20, g: 20, b: 220))
    let result = try CLI.run(
      ["record", "--source", "red.png", "--source", "blue.png", "--layout", "pip=blue:corner=br:size=25%",
       "--frames", "20", "-o", "pip.mp4"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let video = try XCTUnwrap(try MovieOracle.probe(path("pip.mp4"))["video"])
    XCTAssertEqual([video.width, video.height, video.frames], [320, 240, 20], "--frames counts the frames written")
    let last = try lastFrameRGB("pip.mp4", width: 320, height: 240)
    // The small one is in the bottom right corner; the top left is the big one.
    let rows = { (range: Range<Int>) in last[last.startIndex + range.lowerBound * 320 * 3..<last.startIndex + range.upperBound * 320 * 3] }
    XCTAssertGreaterThan(mean(rows(0..<100), width: 320, columns: 0..<160)[0], 180)
    XCTAssertGreaterThan(mean(rows(200..<220), width: 320, columns: 260..<300)[2], 180)
  }

  func testOnePreviewServesEveryCameraAndThePicture() throws {
    try writeColour("red.png", BGRA(r: 220, g: 20, b: 20))
    try writeColour("blue.png", BGRA(r: 20, g: 20, b: 220))
    let port = try LocalServer.freePort()
    let camfx = try CLI.start(
      ["record", "--source", "red.png", "--source", "blue.png", "--layout", "vstack", "--duration", "4s", "--quiet",
       "--preview", "\(port)", "-o", "both.mp4"], in: dir, stderr: "err.txt")
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline && camfx.isRunning && !LocalServer.isListening(tcp: port) { usleep(20_000) }
    usleep(1_000_000)
    let cameras = try HTTPProbe.get(port: port, path: "/cameras")
    XCTAssertEqual(
      String(decoding: cameras.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
      #"{"cameras":["red","blue","mosaic"]}"#)
    // Each at its own path: the picture is the two of them one above the other.
    let mosaic = try HTTPProbe.get(port: port, path: "/cameras/mosaic/snapshot.png")
    XCTAssertEqual(mosaic.status, 200)
    try Data(mosaic.body).write(to: URL(fileURLWithPath: path("mosaic.png")))
    let picture = try PNGFile.read(path: path("mosaic.png"))
    XCTAssertEqual(picture.geometry, FrameGeometry(width: 320, height: 480))
    XCTAssertGreaterThan(picture[160, 100].r, 180)
    XCTAssertGreaterThan(picture[160, 380].b, 180)
    let red = try HTTPProbe.get(port: port, path: "/cameras/red/snapshot.png")
    try Data(red.body).write(to: URL(fileURLWithPath: path("red-served.png")))
    XCTAssertEqual(try PNGFile.read(path: path("red-served.png")).geometry, FrameGeometry(width: 320, height: 240))
    camfx.waitUntilExit()
    XCTAssertEqual(camfx.terminationStatus, 0, (try? String(contentsOfFile: path("err.txt"), encoding: .utf8)) ?? "")
  }

  func testEachCameraIntoItsOwnFile() throws {
    try writeColour("small.png", BGRA(r: 20, g: 200, b: 20), width: 160, height: 120)
    let result = try CLI.run(
      // As fast as they are encoded (no frame dropped on a busy machine): the same options for both.
      ["record", "--source", "testsrc", "--source", "small.png", "--size", "320x240", "--duration", "1s", "--no-realtime",
       "-o", "pattern.mp4", "-o", "small.mp4"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let lines = result.stderr.split(separator: "\n")
    XCTAssertEqual(lines.count, 2, result.stderr)
    XCTAssertTrue(lines.first?.hasPrefix("testsrc: recorded 30 frames (1.00 s) to pattern.mp4") == true, result.stderr)
    XCTAssertTrue(lines.last?.hasPrefix("small: recorded 30 frames (1.00 s) to small.mp4") == true, result.stderr)
    let pattern = try XCTUnwrap(try MovieOracle.probe(path("pattern.mp4"))["video"])
    XCTAssertEqual([pattern.width, pattern.height, pattern.frames], [320, 240, 30])
    let small = try XCTUnwrap(try MovieOracle.probe(path("small.mp4"))["video"])
    XCTAssertEqual([small.width, small.height, small.frames], [160, 120, 30])
    XCTAssertGreaterThan(mean(try lastFrameRGB("small.mp4", width: 160, height: 120), width: 160, columns: 0..<160)[1], 170)
  }

  func testAMoviePlaysLikeACameraAtItsOwnRateAndSize() throws {
    _ = try MovieOracle.run("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=192x108:rate=25:duration=3", "-pix_fmt", "yuyv422", "-c:v", "rawvideo",
      path("cam.nut"),
    ])
    let result = try CLI.run(["record", "--source", "cam.nut", "--duration", "2s", "--no-realtime", "-o", "replay.mp4"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let video = try XCTUnwrap(try MovieOracle.probe(path("replay.mp4"))["video"])
    XCTAssertEqual([video.width, video.height, video.frames], [192, 108, 50])
    XCTAssertEqual(video.frameTimes.last ?? 0, 49.0 / 25, accuracy: 0.002)
    let sized = try CLI.run(["record", "--source", "cam.nut", "--size", "640x360", "--duration", "1s", "-o", "sized.mp4"], in: dir)
    XCTAssertEqual(sized.status, 1)
    XCTAssertEqual(
      sized.stderr,
      "camfx: error: source 'cam.nut': --size 640x360 does not match the movie's size 192x108 (a movie --source is not scaled; omit --size)\n")
  }

  func testWhatDoesNotGoTogetherIsSaidInOneLine() throws {
    try writeColour("red.png", BGRA(r: 220, g: 20, b: 20))
    // Options that do not go together are usage errors (64); the rest fail as any recording (1).
    let cases: [([String], Int32, String)] = [
      (["--source", "testsrc", "--source", "red.png", "-o", "a.mp4"],
       64, "camfx: error: with 2 --source and no --layout, give one -o per --source (in the same order), or --layout to record them in one picture (see camfx --help)"),
      (["--source", "testsrc", "--layout", "hstack", "-o", "a.mp4"],
       64, "camfx: error: --layout puts several cameras in one picture: give --source twice or more (see camfx --help)"),
      (["--source", "testsrc", "--source", "red.png", "--layout", "pip=blue", "-o", "a.mp4"],
       1, "camfx: error: layout 'pip=blue', camera 'blue': no such camera (cameras: testsrc, red)"),
      (["--source", "/dev/video0", "--source", "/dev/video0", "--layout", "hstack", "-o", "a.mp4"],
       1, "camfx: error: --source /dev/video0 is given twice"),
      (["--source", "testsrc", "--source", "red.png", "--motion", "-o", "a.mp4", "-o", "b.mp4"],
       64, "camfx: error: --motion with several --source needs --layout (it then applies to the picture of them all); for each camera its own, describe them in a file for camfx run (see camfx --help)"),
      (["--source", "testsrc", "--mosaic-size", "640x240", "-o", "a.mp4"],
       64, "camfx: error: --mosaic-size is the size of a --layout picture: add --layout (see camfx --help)"),
    ]
    for (arguments, status, message) in cases {
      let result = try CLI.run(["record", "--duration", "1s"] + arguments, in: dir)
      XCTAssertEqual(result.status, status, "\(arguments): \(result)")
      XCTAssertEqual(result.stderr.split(separator: "\n").last.map(String.init), message, "\(arguments)")
      XCTAssertFalse(FileManager.default.fileExists(atPath: path("a.mp4")), "\(arguments)")
    }
  }
}
