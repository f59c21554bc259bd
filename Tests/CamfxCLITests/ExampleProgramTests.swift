import Foundation
import XCTest

/// The programs in `examples/`, built with the package, run as a user runs them.
final class ExampleProgramTests: XCTestCase {
  /// `examples/OwnOutput`: a keyframe counter of its own on the packet bus, beside a
  /// movie file from the same encode. What it counted is what the file holds.
  func testTheOwnOutputExampleCountsWhatTheFileHolds() throws {
    let camfx = try CLI.executable
    let program = camfx.deletingLastPathComponent().appendingPathComponent("OwnOutputExample")
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-example-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let movie = dir.appendingPathComponent("out.mp4").path

    let process = Process()
    process.executableURL = program
    process.arguments = [movie]
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let complaints = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, complaints)
    XCTAssertEqual(complaints, "")

    let flags = String(
      decoding: try MovieOracle.run(
        "ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", movie]).stdout,
      as: UTF8.self
    ).split(separator: "\n")
    XCTAssertEqual(flags.count, 90, "3 s at 30 fps")
    let keyframes = flags.filter { $0.hasPrefix("K") }.count
    XCTAssertEqual(keyframes, 3, "a keyframe every 30 frames")
    let lines = printed.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 2, printed)
    XCTAssertTrue(lines[0].hasPrefix("counted 90 frames, 3 keyframes, "), printed)
    XCTAssertEqual(lines[1], "recorded 90 frames")
  }
}
