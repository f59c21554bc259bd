import Camfx
import CamfxCapture
import CamfxPNG
import Foundation
import XCTest

final class SourceTests: CLITestCase {
  func testParsingSourceNames() throws {
    XCTAssertEqual(try SourceSpec(parsing: "testsrc"), .testPattern)
    XCTAssertEqual(try SourceSpec(parsing: "a.png"), .image(path: "a.png"))
    XCTAssertEqual(try SourceSpec(parsing: "/dev/video2"), .camera(device: "/dev/video2"))
    XCTAssertEqual(try SourceSpec(parsing: "old/take.MKV"), .movie(path: "old/take.MKV"))
    XCTAssertEqual(try SourceSpec(parsing: "cam.nut"), .movie(path: "cam.nut"))
    XCTAssertEqual(try SourceSpec(parsing: "/dev/shm/cam.nut"), .movie(path: "/dev/shm/cam.nut"))
    XCTAssertEqual(try SourceSpec(parsing: "/dev/shm/card.png"), .image(path: "/dev/shm/card.png"))
    XCTAssertThrowsError(try SourceSpec(parsing: ""))
  }

  func testTestPatternDefaultsTo640x480() throws {
    let source = try SourceSpec.testPattern.open()
    XCTAssertEqual(source.geometry, FrameGeometry(width: 640, height: 480))
    XCTAssertTrue(source is TestPatternSource)
  }

  func testAMissingCameraIsNoSuchDevice() {
    XCTAssertThrowsError(try SourceSpec.camera(device: "/dev/video-camfx-missing").open()) { error in
      XCTAssertEqual("\(error)", "camera /dev/video-camfx-missing: no such device")
    }
  }

  func testPNGSourceRepeatsTheImageWithAdvancingTimes() throws {
    let image = PixelBuffer(width: 3, height: 2)
    for y in 0..<2 { for x in 0..<3 { image[x, y] = BGRA(r: UInt8(x * 80), g: UInt8(y * 200), b: 1, a: 128) } }
    try PNGFile.write(image, to: path("a.png"), alpha: true)
    let source = try PNGImageSource(path: path("a.png"), frameRate: 10, frameCount: 3, poolCapacity: 2)
    XCTAssertEqual(source.geometry, image.geometry)
    var count: Int64 = 0
    while let frame = try source.nextFrame() {
      XCTAssertTrue(frame.hasSamePixels(as: image))
      XCTAssertEqual(frame.presentationTime, MediaTime(value: count, timescale: 10))
      frame.fill(BGRA(r: 0, g: 0, b: 0))  // a filter scribbling on a frame must not change the next one
      count += 1
    }
    XCTAssertEqual(count, 3)
  }

  func testPNGSourceRejectsAnotherSize() throws {
    try PNGFile.write(PixelBuffer(width: 3, height: 2), to: path("a.png"), alpha: false)
    XCTAssertThrowsError(try SourceSpec.image(path: path("a.png")).open(size: FrameGeometry(width: 2, height: 2)))
    XCTAssertEqual(try SourceSpec.image(path: path("a.png")).open(size: FrameGeometry(width: 3, height: 2)).geometry.width, 3)
  }

  /// Without --source: the test pattern only when there is no camera at all; a camera
  /// node that exists but cannot be opened is that camera's error.
  func testDefaultSourceFallsBackOnlyWithoutACamera() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-dev-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let none = try SourceSpec.defaultSource(in: dir)
    XCTAssertTrue(none.isFallback)
    XCTAssertEqual(none.spec, .testPattern)
    // A video node that cannot be opened (here: a directory, EISDIR).
    try FileManager.default.createDirectory(atPath: dir + "/video0", withIntermediateDirectories: false)
    XCTAssertThrowsError(try SourceSpec.defaultSource(in: dir)) { error in
      XCTAssertTrue("\(error)".contains("\(dir)/video0"), "\(error)")
    }
  }

  /// On a machine without a camera the first line says the test pattern is used.
  func testTheFallbackToTheTestPatternIsSaid() throws {
    guard CameraDevice.videoNodes().isEmpty else { throw XCTSkip("this machine has video nodes") }
    let result = try CLI.run(["snapshot", "--size", "64x48", "-o", "x.png"], in: dir, defaultSource: true)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertEqual(result.stderr, "camfx: no camera found; using the test pattern (--source testsrc)\n")
  }
}
