import Foundation
import XCTest

/// `camfx devices` and `camfx controls` on the test machine, which has no camera and
/// no sound card (the qemu guest tests cover real drivers).
final class DevicesCommandTests: CLITestCase {
  func testDevicesWithoutHardwareSaysSo() throws {
    try XCTSkipIf(FileManager.default.fileExists(atPath: "/dev/video0"), "this machine has a camera")
    let result = try CLI.run(["devices"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertTrue(result.stdout.hasPrefix("No cameras found.\n"), result.stdout)
    XCTAssertEqual(result.stderr, "")
  }

  func testDevicesJSONIsValid() throws {
    try XCTSkipIf(FileManager.default.fileExists(atPath: "/dev/video0"), "this machine has a camera")
    let result = try CLI.run(["devices", "--json"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    XCTAssertEqual((object?["cameras"] as? [Any])?.count, 0)
    XCTAssertNotNil(object?["microphones"] as? [Any])
  }

  func testControlsOfAMissingCamera() throws {
    let result = try CLI.run(["controls", "--source", "/dev/video-camfx-missing"], in: dir)
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.stderr, "camfx: error: camera /dev/video-camfx-missing: no such device\n")
    XCTAssertEqual(result.stdout, "")
  }

  func testControlsOfSomethingThatIsNotACamera() throws {
    let result = try CLI.run(["controls", "--source", "/dev/null"], in: dir)
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(result.stderr, "camfx: error: /dev/null is not a video capture device: it does not answer V4L2 queries\n")
  }

  func testBadCameraOptionsAreOneLineErrors() throws {
    let cases: [([String], String)] = [
      (["--input-format", "h265"], "camfx: error: unknown input format 'h265'; expected one of: yuyv, nv12, yu12, yv12, mjpeg, jpeg, rgb24, bgr24, h264\n"),
      (["--preset", "4k"], "camfx: error: unknown preset '4k'; expected one of: vga, 720p, 1080p, high, medium, low\n"),
      (["--control", "brightness"], "camfx: error: invalid control 'brightness': expected name=value, e.g. brightness=140\n"),
      (["--skip=-1"], "camfx: error: --skip must be at least 0, got -1\n"),
    ]
    for (args, message) in cases {
      let result = try CLI.run(["snapshot"] + args + ["-o", "out.png"], in: dir)
      XCTAssertEqual(result.status, 1, "\(args)")
      XCTAssertEqual(result.stderr, message, "\(args)")
      XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.png").path))
    }
  }
}
