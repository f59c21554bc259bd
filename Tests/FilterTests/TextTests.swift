import Camfx
import CamfxCapture
import CamfxMedia
import CamfxPNG
@testable import TextFilter
import Foundation
import XCTest
import CamfxPixelFormats

/// The text and timestamp filters: what they draw is read back with OCR (tesseract),
/// their fields expand as documented, the yuv420p path agrees with the BGRA path, and
/// bad fonts, fields and sizes are errors before the first frame.
final class TextTests: XCTestCase {
  func makeFilter(_ spec: String) throws -> any VideoFilter {
    try FilterRegistry.builtin.makeFilter(try XCTUnwrap(FilterSpec.parseChain(spec).first))
  }

  /// Runs `specs` on `frames` white frames, the last at `time`, and returns the last.
  func draw(
    _ specs: [String], size: FrameGeometry = FrameGeometry(width: 640, height: 120), time: MediaTime = .zero, frames: Int = 1
  ) throws -> PixelBuffer {
    var chain = try FilterRegistry.builtin.makeChain(specs)
    try chain.configure(input: size)
    var frame = PixelBuffer(width: size.width, height: size.height)
    for i in 0..<frames {
      frame = PixelBuffer(width: size.width, height: size.height, presentationTime: time - MediaTime(value: Int64(frames - 1 - i), timescale: 30))
      frame.fill(BGRA(r: 255, g: 255, b: 255))
      chain.process(&frame)
    }
    return frame
  }

  /// What tesseract reads in `frame`, one line, trimmed.
  func ocr(_ frame: PixelBuffer) throws -> String {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let png = dir.appendingPathComponent("text.png").path
    try PNGFile.write(frame, to: png, alpha: false)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/tesseract")
    process.arguments = [png, "stdout", "--psm", "7"]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "tesseract failed")
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  func testOCRReadsWhatTextDraws() throws {
    let frame = try draw(["text=text=CAMFX TEXT 42:size=48:color=black"])
    XCTAssertEqual(try ocr(frame), "CAMFX TEXT 42")
    // Ink where the text goes (16 px from the top left), and none below it.
    let white = BGRA(r: 255, g: 255, b: 255)
    XCTAssertTrue((16..<80).contains { x in (16..<70).contains { y in frame[x, y] != white } }, "no ink at the top left")
    XCTAssertTrue((0..<640).allSatisfy { x in (80..<120).allSatisfy { y in frame[x, y] == white } }, "ink below the text")
  }

  func testFieldsExpand() throws {
    let frame = try draw(
      ["text=text=F%{frame} %{pts}:size=40:color=black"], time: MediaTime(value: 3_723_456, timescale: 1000), frames: 3)
    XCTAssertEqual(try ocr(frame), "F2 01:02:03.456")
    // strftime fields: the first frame's capture time is the wall clock, so the year shows.
    let year = Calendar.current.component(.year, from: Date())
    let stamped = try draw(["timestamp=text=%Y:size=48:color=black"])
    XCTAssertEqual(try ocr(stamped), "\(year)")
  }

  func testTemplateExpansion() throws {
    var buffer = [UInt8](repeating: 0, count: 64)
    func expand(_ text: String, seconds: Double = 0, frame: Int = 0, pts: Double = 0, fps: Double = 0) throws -> String {
      let template = try TextTemplate(text)
      let n = buffer.withUnsafeMutableBufferPointer {
        template.expand(into: $0.baseAddress!, capacity: $0.count, seconds: seconds, frame: frame, pts: pts, fps: fps)
      }
      return String(decoding: buffer[..<n], as: UTF8.self)
    }
    XCTAssertEqual(try expand("n=%{frame} t=%{pts} r=%{fps}", frame: 1234, pts: 3661.5, fps: 29.97), "n=1234 t=01:01:01.500 r=30.0")
    XCTAssertEqual(try expand("100%% %{frame}", frame: 7), "100% 7")
    XCTAssertEqual(try expand("plain"), "plain")
    XCTAssertTrue(try TextTemplate("plain").isConstant)
    XCTAssertFalse(try TextTemplate("%H").isConstant)
    // Longer than the buffer: cut, never past it.
    XCTAssertEqual(try expand(String(repeating: "x", count: 100)).count, 63)
  }

  func testErrorsBeforeTheFirstFrame() throws {
    XCTAssertEqual(errorMessage { _ = try self.makeFilter("text=text=%{frames}") },
      "filter 'text', key 'text', value '%{frames}': unknown field %{frames} (known: %{frame}, %{pts}, %{fps})")
    XCTAssertEqual(errorMessage { _ = try self.makeFilter("text") }, "filter 'text', key 'text': required key missing")
    XCTAssertEqual(errorMessage { _ = try self.makeFilter("text=text=a:font=/nonexistent.ttf") },
      "filter 'text', key 'font', value '/nonexistent.ttf': cannot open the file")
    XCTAssertEqual(errorMessage { _ = try self.makeFilter("timestamp=font=/etc/hostname") },
      "filter 'timestamp', key 'font', value '/etc/hostname': not a font file FreeType knows")
    XCTAssertEqual(errorMessage {
      var chain = try FilterRegistry.builtin.makeChain(["timestamp=size=64"])
      try chain.configure(input: FrameGeometry(width: 320, height: 240))
    }, "filter 'timestamp', key 'text', value '%Y-%m-%d %H:%M:%S': is 684x76 px at size 64, larger than the 320x240 frame")
  }

  /// Drawn into yuv420p planes, the text gives the samples the BGRA path gives after
  /// its conversion, give or take rounding.
  func testYUV420MatchesTheBGRAPath() throws {
    let size = FrameGeometry(width: 320, height: 96)
    let background = PixelBuffer(width: size.width, height: size.height)
    background.fill(BGRA(r: 40, g: 160, b: 90))
    let source = YUV420Planes(width: size.width, height: size.height)
    BGRAToYUV420.convert(background, into: source)
    for spec in ["text=text=Hello 123:size=40:color=red@0.8:box=navy@0.5:border=2:x=11:y=7", "timestamp=size=24:position=bottom-right"] {
      let (planar, viaBGRA) = try runBothPaths([spec], on: source)
      for index in 0..<3 {
        XCTAssertLessThanOrEqual(maxDifference(planar, viaBGRA, plane: index), 3, "\(spec) plane \(index)")
      }
      XCTAssertGreaterThan((0..<3).map { maxDifference(planar, source, plane: $0) }.max() ?? 0, 100, "\(spec) drew nothing")
    }
  }
}
