import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Stills on SIGUSR1 while recording, and timelapses: compared, pixel by pixel, with
/// the frames of the movie and of the test pattern they come from.
final class StillAndTimelapseTests: CLITestCase {
  /// The luma plane of an image or of every frame of a movie.
  private func luma(_ file: String, width: Int, height: Int) throws -> [[UInt8]] {
    try MovieOracle.lumaFrames(path(file), width: width, height: height)
  }

  private func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double { MovieOracle.meanDifference(a, b) }

  func testSIGUSR1WritesTheCurrentFilteredFrameWithoutDisturbingTheRecording() throws {
    let args = [
      "--size", "640x360", "--duration", "4s", "--filter", "mirror", "--quiet", "--stats-json", "s.json",
      "--still", "shot-%H%M%S.png", "-o", "rec.mp4",
    ]
    let process = try CLI.start(args, in: dir, stderr: "err.txt")
    waitForFile("rec.mp4")
    usleep(1_200_000)
    kill(process.processIdentifier, SIGUSR1)
    usleep(1_200_000)
    kill(process.processIdentifier, SIGUSR1)
    process.waitUntilExit()
    let stderr = try String(contentsOfFile: path("err.txt"), encoding: .utf8)
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    let stills = try listing().filter { $0.hasPrefix("shot-") }
    XCTAssertEqual(stills.count, 2, "\(stills) \(stderr)")
    XCTAssertEqual(stderr.components(separatedBy: "still saved to shot-").count, 3, stderr)
    // Not disturbed: every frame of the 4 s is in the movie.
    let stats = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("s.json")))) as? [String: Any])
    XCTAssertEqual(stats["frames_out"] as? Int, 120)
    XCTAssertEqual((stats["dropped"] as? [String: Int])?.values.reduce(0, +), 0)
    // Each still is a filtered frame of the recording, within coding error.
    let frames = try luma("rec.mp4", width: 640, height: 360)
    XCTAssertEqual(frames.count, 120)
    for still in stills {
      let picture = try luma(still, width: 640, height: 360).first ?? []
      XCTAssertEqual(picture.count, 640 * 360)
      let best = frames.enumerated().min { meanDifference($0.1, picture) < meanDifference($1.1, picture) }!
      XCTAssertLessThan(meanDifference(best.element, picture), 2.5, "\(still) against frame \(best.offset)")
      XCTAssertTrue((30...110).contains(best.offset), "\(still) is frame \(best.offset)")
    }
  }

  func testATimelapseFrameRateOutOfRangeIsAnError() throws {
    // The rate a timelapse plays at was not checked (a crash at --fps 0).
    for fps in ["0", "1001", "9999999999"] {
      try assertFails(
        ["record", "--source", "testsrc", "--timelapse", "1s", "--fps", fps, "-o", "t.mp4"],
        stderr: "camfx: error: the timelapse's frame rate \(fps) must be in 1...1000")
    }
  }

  func testTimelapseKeepsOneFrameASecondAndPlaysThemAtTheFrameRate() throws {
    let result = try CLI.run(
      ["--size", "320x240", "--duration", "6s", "--timelapse", "1s", "--quiet", "-o", "lapse.mp4"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertTrue(result.stderr.contains("stopped by duration"), result.stderr)
    let video = try XCTUnwrap(try MovieOracle.probe(path("lapse.mp4"))["video"])
    XCTAssertEqual(video.frames, 6)
    XCTAssertEqual(video.frameTimes, [0, 1, 2, 3, 4, 5].map { Double($0) / 30 }, accuracy: 0.001)
    XCTAssertNil(try MovieOracle.probe(path("lapse.mp4"))["audio"])
    // Frame k is the test pattern's frame 30k: one per second of the source.
    let frames = try luma("lapse.mp4", width: 320, height: 240)
    for k in [1, 3, 5] {
      let snapshot = try CLI.run(["snapshot", "--size", "320x240", "--frame", "\(30 * k)", "-o", "p\(k).png"], in: dir)
      XCTAssertEqual(snapshot.status, 0, "\(snapshot)")
      let pattern = try luma("p\(k).png", width: 320, height: 240)[0]
      XCTAssertLessThan(meanDifference(frames[k], pattern), 3, "timelapse frame \(k)")
      XCTAssertGreaterThan(meanDifference(frames[k - 1], pattern), meanDifference(frames[k], pattern))
    }
  }

  /// An interval shorter than the source's frames was taken, and --duration then ran
  /// long (10ms with --duration 2s took 6.9 s; 1ms with --duration 1s ran for 25 s).
  func testATimelapseShorterThanTheFrameIntervalIsRefused() throws {
    try assertFails(
      ["--source", "testsrc", "--timelapse", "10ms", "--duration", "2s", "-o", "t.mp4"],
      stderr: "camfx: error: --timelapse 10.0 ms is shorter than the source's frame interval, 33.3 ms (30.00 fps): "
        + "a timelapse keeps at most every frame; give --timelapse 34ms or longer")
    try assertFails(
      ["--source", "testsrc", "--timelapse", "1ms", "--duration", "1s", "-o", "t.mp4"],
      stderr: "camfx: error: --timelapse 1.0 ms is shorter than the source's frame interval, 33.3 ms (30.00 fps): "
        + "a timelapse keeps at most every frame; give --timelapse 34ms or longer")
    // One frame interval keeps every frame, and --duration holds.
    let started = Date()
    let result = try CLI.run(
      ["--source", "testsrc", "--size", "160x120", "--timelapse", "34ms", "--duration", "2s", "--quiet", "-o", "t.mp4"],
      in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertLessThan(Date().timeIntervalSince(started), 6, "\(result)")
    XCTAssertEqual(try MovieOracle.probe(path("t.mp4"))["video"]?.frames ?? 0, 59, accuracy: 1)
  }

  func testTimelapseOptionsThatCannotWork() throws {
    try assertFails(
      ["--timelapse", "1s", "--audio", "sine", "-o", "a.mp4"],
      stderr: "camfx: error: --timelapse makes a silent movie; drop --audio sine")
    try assertFails(
      ["--timelapse", "0s", "-o", "a.mp4"], prefix: "camfx: error: ")
  }
}

/// `XCTAssertEqual` for arrays of doubles, element by element.
func XCTAssertEqual(
  _ a: [Double], _ b: [Double], accuracy: Double, file: StaticString = #filePath, line: UInt = #line
) {
  XCTAssertEqual(a.count, b.count, "\(a) vs \(b)", file: file, line: line)
  for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, "\(a) vs \(b)", file: file, line: line) }
}
