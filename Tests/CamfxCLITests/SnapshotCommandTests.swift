import Camfx
import CamfxPNG
import Foundation
import XCTest

final class SnapshotCommandTests: CLITestCase {
  /// The test-pattern frame the snapshot should contain, as opaque BGRA.
  private func testPattern(_ geometry: FrameGeometry, frame n: Int64 = 0) -> PixelBuffer {
    let source = TestPatternSource(geometry: geometry, poolCapacity: 1)
    let frame = PixelBuffer(width: geometry.width, height: geometry.height)
    source.render(frameNumber: n, into: frame)
    return frame
  }

  private func snapshot(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> PixelBuffer {
    let result = try CLI.run(["snapshot"] + args + ["-o", "out.png"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)", file: file, line: line)
    XCTAssertEqual(result.stderr, "", file: file, line: line)
    XCTAssertEqual(try listing(), ["out.png"], "only the PNG, no temporary file", file: file, line: line)
    return try PNGFile.read(path: path("out.png"))
  }

  /// Byte 25 of a PNG is IHDR's colour type: 2 = RGB, 6 = RGBA.
  private func colorType(_ name: String) throws -> UInt8 {
    try [UInt8](Data(contentsOf: URL(fileURLWithPath: path(name))))[25]
  }

  func testDefaultSnapshotIsTestPatternFrameZeroAt640x480AsRGB() throws {
    let image = try snapshot([])
    XCTAssertEqual(image.geometry, FrameGeometry(width: 640, height: 480))
    XCTAssertTrue(image.hasSamePixels(as: testPattern(image.geometry)))
    XCTAssertEqual(try colorType("out.png"), 2)
  }

  func testSizeAndFrameChooseTheTestPatternFrame() throws {
    let geometry = FrameGeometry(width: 33, height: 21)
    let image = try snapshot(["--source", "testsrc", "--size", "33x21", "--frame", "77"])
    XCTAssertTrue(image.hasSamePixels(as: testPattern(geometry, frame: 77)))
    XCTAssertFalse(image.hasSamePixels(as: testPattern(geometry, frame: 0)))
  }

  func testOnePixelSnapshot() throws {
    let image = try snapshot(["--size", "1x1"])
    XCTAssertEqual(image.geometry, FrameGeometry(width: 1, height: 1))
    XCTAssertEqual(image[0, 0], TestPatternSource.barColors[0])
  }

  /// A .jpg name gets JPEG data (not a PNG under a JPEG name): ffmpeg decodes it as
  /// JPEG, to the same picture as the PNG within JPEG's loss.
  func testAJPEGNameWritesAJPEG() throws {
    for name in ["shot.jpg", "shot.JPEG"] {
      let result = try CLI.run(["snapshot", "--size", "96x64", "--frame", "5", "-o", name], in: dir)
      XCTAssertEqual(result.status, 0, "\(result)")
      XCTAssertEqual(result.stderr, "")
      let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name))))
      XCTAssertEqual(Array(bytes.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG's SOI marker")
      let probed = try MovieOracle.probe(path(name))
      XCTAssertEqual(probed["video"]?.codec, "mjpeg")
      XCTAssertEqual(probed["video"]?.width, 96)
      XCTAssertEqual(probed["video"]?.height, 64)
    }
    XCTAssertEqual(try CLI.run(["snapshot", "--size", "96x64", "--frame", "5", "-o", "shot.png"], in: dir).status, 0)
    let jpeg = try XCTUnwrap(MovieOracle.lumaFrames(path("shot.jpg"), width: 96, height: 64).first)
    let png = try XCTUnwrap(MovieOracle.lumaFrames(path("shot.png"), width: 96, height: 64).first)
    XCTAssertLessThan(MovieOracle.meanDifference(jpeg, png), 4, "the same picture")
    XCTAssertEqual(try listing(), ["shot.JPEG", "shot.jpg", "shot.png"])
  }

  func testOtherPictureNamesAreRefusedBeforeTheSnapshot() throws {
    try assertFails(
      ["snapshot", "-o", "shot.bmp"],
      stderr: "camfx: error: -o 'shot.bmp': a snapshot is a PNG (.png) or a JPEG (.jpg, .jpeg); give a name with one of those extensions")
    try assertFails(
      ["snapshot", "--alpha", "-o", "shot.jpg"],
      stderr: "camfx: error: --alpha keeps transparency, which a JPEG cannot hold: give a .png name")
    // record's stills are PNGs too, and their names say so.
    try assertFails(
      ["record", "--frames", "3", "--still", "still.jpg", "-o", "a.mp4"],
      stderr: "camfx: error: --still 'still.jpg': stills are written as PNG; give a .png name")
  }

  func testAlphaFlagWritesRGBA() throws {
    let image = try snapshot(["--size", "8x8", "--alpha"])
    XCTAssertEqual(try colorType("out.png"), 6)
    XCTAssertTrue(image.hasSamePixels(as: testPattern(FrameGeometry(width: 8, height: 8))))
  }

  func testPNGSourceKeepsTransparencyAndPixels() throws {
    let input = PixelBuffer(width: 5, height: 3)
    for y in 0..<3 { for x in 0..<5 { input[x, y] = BGRA(r: UInt8(x * 50), g: UInt8(y * 90), b: 7, a: UInt8(255 - x * 40)) } }
    try PNGFile.write(input, to: path("in.png"), alpha: true)
    let result = try CLI.run(["snapshot", "--source", "in.png", "-o", "out.png"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertEqual(try colorType("out.png"), 6)
    XCTAssertTrue(try PNGFile.read(path: path("out.png")).hasSamePixels(as: input))
  }

  func testPNGSourceAcceptsItsOwnSize() throws {
    let input = PixelBuffer(width: 4, height: 2)
    input.fill(BGRA(r: 9, g: 8, b: 7))
    try PNGFile.write(input, to: path("in.png"), alpha: false)
    let result = try CLI.run(["snapshot", "--source", "in.png", "--size", "4x2", "-o", "out.png"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertTrue(try PNGFile.read(path: path("out.png")).hasSamePixels(as: input))
  }

  func testMirrorThroughTheChainMirrorsTheUnfilteredSnapshot() throws {
    let plain = testPattern(FrameGeometry(width: 37, height: 23), frame: 5)
    let image = try snapshot(["--size", "37x23", "--frame", "5", "--filter", "mirror"])
    for y in 0..<23 {
      for x in 0..<37 where image[x, y] != plain[36 - x, y] {
        return XCTFail("pixel (\(x), \(y)) is \(image[x, y]), expected \(plain[36 - x, y])")
      }
    }
  }

  func testChainRunsInCommandLineOrder() throws {
    // crop the left 10 columns, then mirror them: column 0 of the result is column 9.
    let plain = testPattern(FrameGeometry(width: 40, height: 30))
    let image = try snapshot(["--size", "40x30", "--filter", "crop=x=0:y=0:width=10:height=30", "--filter", "mirror"])
    XCTAssertEqual(image.geometry, FrameGeometry(width: 10, height: 30))
    for y in 0..<30 { for x in 0..<10 { XCTAssertEqual(image[x, y], plain[9 - x, y]) } }
  }

  // MARK: overwriting

  func testExistingOutputIsKeptWithoutOverwrite() throws {
    let original = Data("precious".utf8)
    try original.write(to: URL(fileURLWithPath: path("out.png")))
    try assertFails(
      ["snapshot", "-o", "out.png"],
      stderr: "camfx: error: output file 'out.png' already exists (use -y or --overwrite to replace it)", keep: ["out.png"])
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("out.png"))), original)
  }

  func testOverwriteReplacesExistingOutput() throws {
    for flag in ["-y", "--overwrite"] {
      try Data("old".utf8).write(to: URL(fileURLWithPath: path("out.png")))
      let result = try CLI.run(["snapshot", "--size", "6x4", flag, "-o", "out.png"], in: dir)
      XCTAssertEqual(result.status, 0, "\(result)")
      XCTAssertTrue(try PNGFile.read(path: path("out.png")).hasSamePixels(as: testPattern(FrameGeometry(width: 6, height: 4))))
      XCTAssertEqual(try listing(), ["out.png"])
    }
  }

  func testOutputInSubdirectoryAndAbsolutePath() throws {
    try FileManager.default.createDirectory(atPath: path("sub"), withIntermediateDirectories: false)
    let result = try CLI.run(["snapshot", "--size", "3x3", "-o", path("sub/x.png")], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertEqual(try listing("sub"), ["x.png"])
    XCTAssertTrue(try PNGFile.read(path: path("sub/x.png")).hasSamePixels(as: testPattern(FrameGeometry(width: 3, height: 3))))
  }

  /// Ctrl-C while the PNG is being written leaves neither the PNG nor the hidden
  /// temporary file, and says so.
  func testSIGINTWhileWritingLeavesNoFile() throws {
    // A large frame, so that writing it takes long enough to be interrupted.
    let run = try signalWhileWriting(["snapshot", "--size", "4096x4096", "-o", "big.png"], signal: SIGINT)
    XCTAssertEqual(run.reason, .exit, run.stderr)
    XCTAssertNotEqual(run.status, 0, run.stderr)
    XCTAssertTrue(run.stderr.contains("interrupted; no snapshot written"), run.stderr)
    XCTAssertEqual(try listing(), ["stderr.txt"])
  }
}
