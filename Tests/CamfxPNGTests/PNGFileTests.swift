import CamfxCore
import CamfxPNG
import Foundation
import XCTest

final class PNGFileTests: XCTestCase {
  private var dir: URL!

  override func setUpWithError() throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-png-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: dir)
  }

  private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

  private func save(_ bytes: [UInt8], _ name: String) throws -> String {
    let p = path(name)
    try Data(bytes).write(to: URL(fileURLWithPath: p))
    return p
  }

  /// A frame whose every pixel differs from its neighbours, including alpha.
  private func pattern(width: Int, height: Int, bytesPerRow: Int? = nil) -> PixelBuffer {
    let frame = PixelBuffer(width: width, height: height, bytesPerRow: bytesPerRow)
    for y in 0..<height {
      for x in 0..<width {
        frame[x, y] = BGRA(
          b: UInt8((x * 37 + y * 11) & 0xFF), g: UInt8((x * 5 + y * 91 + 3) & 0xFF),
          r: UInt8((x * 201 + y * 7 + 9) & 0xFF), a: UInt8((x * 13 + y * 29 + 1) & 0xFF))
      }
    }
    return frame
  }

  private func assertPixels(
    _ frame: PixelBuffer, _ expected: [[BGRA]], tolerance: Int = 0, file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(frame.height, expected.count, file: file, line: line)
    XCTAssertEqual(frame.width, expected.first?.count ?? 0, file: file, line: line)
    guard frame.height == expected.count, frame.width == expected.first?.count else { return }
    for y in 0..<frame.height {
      for x in 0..<frame.width {
        let got = frame[x, y], want = expected[y][x]
        let worst = max(
          abs(Int(got.b) - Int(want.b)), abs(Int(got.g) - Int(want.g)),
          abs(Int(got.r) - Int(want.r)), abs(Int(got.a) - Int(want.a)))
        if worst > tolerance {
          XCTFail("pixel (\(x), \(y)): got \(got), expected \(want)", file: file, line: line)
          return
        }
      }
    }
  }

  // MARK: round trips

  func testRGBARoundTripIsExactWithPaddedRowsAndOddSize() throws {
    let frame = pattern(width: 7, height: 5, bytesPerRow: 7 * 4 + 36)
    try PNGFile.write(frame, to: path("a.png"), alpha: true)
    let back = try PNGFile.read(path: path("a.png"))
    XCTAssertEqual(back.geometry, FrameGeometry(width: 7, height: 5))
    XCTAssertTrue(back.hasSamePixels(as: frame))
  }

  func testRGBRoundTripKeepsColoursAndMakesAlphaOpaque() throws {
    let frame = pattern(width: 9, height: 3)
    try PNGFile.write(frame, to: path("rgb.png"), alpha: false)
    let back = try PNGFile.read(path: path("rgb.png"))
    let expected = (0..<3).map { y in
      (0..<9).map { x -> BGRA in var p = frame[x, y]; p.a = 255; return p }
    }
    assertPixels(back, expected)
    // colour type 2 (RGB) in IHDR: byte 25 of the file
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path("rgb.png"))))
    XCTAssertEqual(bytes[25], PNGBytes.ColorType.rgb.rawValue)
  }

  func testOnePixelRoundTrip() throws {
    let frame = PixelBuffer(width: 1, height: 1)
    frame[0, 0] = BGRA(r: 1, g: 2, b: 3, a: 4)
    try PNGFile.write(frame, to: path("one.png"), alpha: true)
    assertPixels(try PNGFile.read(path: path("one.png")), [[BGRA(r: 1, g: 2, b: 3, a: 4)]])
  }

  func testWritingACropViewWritesOnlyTheView() throws {
    var frame = pattern(width: 10, height: 8)
    let original = frame
    frame.crop(x: 3, y: 2, width: 5, height: 4)
    try PNGFile.write(frame, to: path("crop.png"), alpha: true)
    let back = try PNGFile.read(path: path("crop.png"))
    let expected = (0..<4).map { y in (0..<5).map { x in original[x + 3, y + 2] } }
    assertPixels(back, expected)
  }

  /// Another decoder (ffmpeg) sees exactly the colours camfx wrote.
  func testFFmpegDecodesWrittenPNGToTheSameBytes() throws {
    let frame = pattern(width: 6, height: 4)
    try PNGFile.write(frame, to: path("x.png"), alpha: true)
    let raw = path("x.rgba")
    let ffmpeg = Process()
    ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    ffmpeg.arguments = ["ffmpeg", "-v", "error", "-y", "-i", path("x.png"), "-f", "rawvideo", "-pix_fmt", "rgba", raw]
    try ffmpeg.run()
    ffmpeg.waitUntilExit()
    XCTAssertEqual(ffmpeg.terminationStatus, 0)
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: raw)))
    var expected: [UInt8] = []
    for y in 0..<4 { for x in 0..<6 { let p = frame[x, y]; expected += [p.r, p.g, p.b, p.a] } }
    XCTAssertEqual(bytes, expected)
  }

  // MARK: reading every colour type and depth

  func testGrayAtEveryBitDepth() throws {
    // 1, 2 and 4 bits: samples scale to 0...255 by replication (v * 255 / max).
    let cases: [(depth: UInt8, row: [UInt8], values: [UInt8])] = [
      (1, [0b1010_0000], [255, 0, 255, 0]),
      (2, [0b0001_1011], [0, 85, 170, 255]),
      (4, [0x0F, 0x7A], [0, 255, 119, 170]),
      (8, [0, 17, 128, 255], [0, 17, 128, 255]),
    ]
    for c in cases {
      let p = try save(PNGBytes.make(width: 4, height: 1, bitDepth: c.depth, colorType: .gray, rows: [c.row]), "g\(c.depth).png")
      assertPixels(try PNGFile.read(path: p), [c.values.map { BGRA(r: $0, g: $0, b: $0) }])
    }
  }

  func testGray16AndRGB16ScaleToEightBits() throws {
    let g = try save(
      PNGBytes.make(width: 3, height: 1, bitDepth: 16, colorType: .gray, rows: [[0, 0, 0x80, 0x80, 0xFF, 0xFF]]), "g16.png")
    assertPixels(try PNGFile.read(path: g), [[BGRA(r: 0, g: 0, b: 0), BGRA(r: 128, g: 128, b: 128), BGRA(r: 255, g: 255, b: 255)]], tolerance: 1)
    let rgb = try save(
      PNGBytes.make(width: 1, height: 1, bitDepth: 16, colorType: .rgb, rows: [[0x33, 0x33, 0x66, 0x66, 0x99, 0x99]]), "rgb16.png")
    assertPixels(try PNGFile.read(path: rgb), [[BGRA(r: 0x33, g: 0x66, b: 0x99)]], tolerance: 1)
    let rgba = try save(
      PNGBytes.make(
        width: 1, height: 1, bitDepth: 16, colorType: .rgba, rows: [[0x33, 0x33, 0x66, 0x66, 0x99, 0x99, 0xFF, 0xFF]]),
      "rgba16.png")
    assertPixels(try PNGFile.read(path: rgba), [[BGRA(r: 0x33, g: 0x66, b: 0x99, a: 255)]], tolerance: 1)
  }

  func testGrayAlphaRGBAndRGBAEightBitAreExact() throws {
    let ga = try save(PNGBytes.make(width: 2, height: 1, bitDepth: 8, colorType: .grayAlpha, rows: [[10, 255, 200, 128]]), "ga.png")
    assertPixels(try PNGFile.read(path: ga), [[BGRA(r: 10, g: 10, b: 10, a: 255), BGRA(r: 200, g: 200, b: 200, a: 128)]])
    let rgb = try save(PNGBytes.make(width: 2, height: 1, bitDepth: 8, colorType: .rgb, rows: [[1, 2, 3, 250, 251, 252]]), "rgb.png")
    assertPixels(try PNGFile.read(path: rgb), [[BGRA(r: 1, g: 2, b: 3), BGRA(r: 250, g: 251, b: 252)]])
    let rgba = try save(
      PNGBytes.make(width: 2, height: 1, bitDepth: 8, colorType: .rgba, rows: [[1, 2, 3, 255, 90, 80, 70, 60]]), "rgba.png")
    assertPixels(try PNGFile.read(path: rgba), [[BGRA(r: 1, g: 2, b: 3, a: 255), BGRA(r: 90, g: 80, b: 70, a: 60)]])
  }

  func testPaletteWithTransparencyAtEightAndTwoBits() throws {
    let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (12, 34, 56)]
    let alphas: [UInt8] = [255, 0, 100]  // entry 3 has no tRNS entry: opaque
    let expected = [BGRA(r: 255, g: 0, b: 0), BGRA(r: 0, g: 255, b: 0, a: 0), BGRA(r: 0, g: 0, b: 255, a: 100), BGRA(r: 12, g: 34, b: 56)]
    let p8 = try save(
      PNGBytes.make(width: 4, height: 1, bitDepth: 8, colorType: .palette, rows: [[0, 1, 2, 3]], palette: palette, transparency: alphas),
      "p8.png")
    let p2 = try save(
      PNGBytes.make(width: 4, height: 1, bitDepth: 2, colorType: .palette, rows: [[0b00_01_10_11]], palette: palette, transparency: alphas),
      "p2.png")
    for p in [p8, p2] {
      let frame = try PNGFile.read(path: p)
      // Fully transparent pixels' colour is not meaningful; compare alpha only there.
      XCTAssertEqual(frame[1, 0].a, 0)
      assertPixels(frame, [[expected[0], frame[1, 0], expected[2], expected[3]]])
    }
  }

  func testGrayWithTransparentValue() throws {
    let p = try save(
      PNGBytes.make(width: 2, height: 1, bitDepth: 8, colorType: .gray, rows: [[7, 8]], transparency: [0, 7]), "gt.png")
    let frame = try PNGFile.read(path: p)
    XCTAssertEqual(frame[0, 0].a, 0)
    XCTAssertEqual(frame[1, 0], BGRA(r: 8, g: 8, b: 8, a: 255))
  }

  func testMultiRowImageKeepsRowOrder() throws {
    let rows: [[UInt8]] = (0..<5).map { (y: Int) -> [UInt8] in
      (0..<3).flatMap { (x: Int) -> [UInt8] in [UInt8(y * 40 + x), UInt8(x), UInt8(y)] }
    }
    let p = try save(PNGBytes.make(width: 3, height: 5, bitDepth: 8, colorType: .rgb, rows: rows), "rows.png")
    let expected = (0..<5).map { y in (0..<3).map { x in BGRA(r: UInt8(y * 40 + x), g: UInt8(x), b: UInt8(y)) } }
    assertPixels(try PNGFile.read(path: p), expected)
  }

  // MARK: bad files

  private func readError(_ p: String, file: StaticString = #filePath, line: UInt = #line) -> PNGError? {
    do {
      _ = try PNGFile.read(path: p)
      XCTFail("reading \(p) should fail", file: file, line: line)
      return nil
    } catch let error as PNGError {
      XCTAssertEqual(error.operation, .read, file: file, line: line)
      XCTAssertEqual(error.path, p, file: file, line: line)
      XCTAssertFalse(error.description.contains("\n"), "one line", file: file, line: line)
      return error
    } catch {
      XCTFail("unexpected error \(error)", file: file, line: line)
      return nil
    }
  }

  func testMissingFile() {
    let p = path("nope.png")
    let error = readError(p)
    XCTAssertEqual(error?.description, "cannot read PNG '\(p)': No such file or directory")
  }

  func testNotAPNG() throws {
    let p = try save(Array("hello, this is text and not an image\n".utf8), "text.png")
    let error = readError(p)
    XCTAssertEqual(error?.description, "cannot read PNG '\(p)': Not a PNG file")
  }

  func testEmptyFile() throws {
    let p = try save([], "empty.png")
    XCTAssertNotNil(readError(p))
  }

  func testTruncatedFile() throws {
    let rows: [[UInt8]] = (0..<32).map { (y: Int) -> [UInt8] in
      (0..<96).map { (i: Int) -> UInt8 in UInt8(truncatingIfNeeded: i * 7 + y * 13) }
    }
    let whole = PNGBytes.make(width: 32, height: 32, bitDepth: 8, colorType: .rgb, rows: rows)
    let p = try save(Array(whole[..<(whole.count / 2)]), "half.png")
    let error = readError(p)
    XCTAssertEqual(error?.reason, .libpng("Read Error"))
    XCTAssertEqual(error?.description, "cannot read PNG '\(p)': file is truncated (libpng: Read Error)")
  }

  func testDirectory() throws {
    let p = path("dir.png")
    try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: false)
    XCTAssertEqual(readError(p)?.description, "cannot read PNG '\(p)': Is a directory")
  }

  func testCorruptChecksum() throws {
    var bytes = PNGBytes.make(width: 2, height: 1, bitDepth: 8, colorType: .rgb, rows: [[1, 2, 3, 4, 5, 6]])
    bytes[8 + 8 + 13] ^= 0xFF  // IHDR's CRC
    let p = try save(bytes, "crc.png")
    XCTAssertNotNil(readError(p))
  }

  func testAbsurdDimensionsAreRejectedBeforeAllocating() throws {
    // A header and a stub IDAT: 20000x20000 RGBA would be 1.6 GB if the reader allocated it.
    let stub = PNGBytes.chunk("IDAT", PNGBytes.zlibStored([0, 0, 0, 0, 0])) + PNGBytes.chunk("IEND", [])
    let p = try save(PNGBytes.signature + PNGBytes.ihdr(width: 20000, height: 20000, bitDepth: 8, colorType: .rgba) + stub, "huge.png")
    let error = readError(p)
    XCTAssertEqual(error?.reason, .tooLarge(width: 20000, height: 20000))
    XCTAssertEqual(error?.description, "cannot read PNG '\(p)': image is 20000x20000, larger than the maximum 16384 per side")
    let wide = try save(PNGBytes.signature + PNGBytes.ihdr(width: 16385, height: 1, bitDepth: 8, colorType: .gray) + stub, "wide.png")
    XCTAssertEqual(readError(wide)?.reason, .tooLarge(width: 16385, height: 1))
  }

  func testWriteIntoMissingDirectoryFails() {
    let p = path("no/such/dir/out.png")
    XCTAssertThrowsError(try PNGFile.write(PixelBuffer(width: 2, height: 2), to: p, alpha: true)) { error in
      guard let error = error as? PNGError else { return XCTFail("expected PNGError, got \(error)") }
      XCTAssertEqual(error.operation, .write)
      XCTAssertEqual(error.description, "cannot write PNG '\(p)': No such file or directory")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: p))
  }

  /// A 16-bit Adam7-interlaced PNG reads like the same picture without interlacing
  /// (libpng's 16-to-8-bit path got every other row wrong), and each value is the
  /// nearest 8-bit one to the 16-bit value ffmpeg decodes (`rgb48be`).
  func testSixteenBitInterlacedPNGReadsExactly() throws {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    let interlaced = try PNGFile.read(path: fixtures.appendingPathComponent("rgb48-adam7.png").path)
    let progressive = try PNGFile.read(path: fixtures.appendingPathComponent("rgb48.png").path)
    XCTAssertEqual([interlaced.width, interlaced.height], [37, 23])
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = [
      "-v", "error", "-i", fixtures.appendingPathComponent("rgb48-adam7.png").path, "-f", "rawvideo", "-pix_fmt", "rgb48be", "-",
    ]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let wide = [UInt8](out.fileHandleForReading.readDataToEndOfFile())
    process.waitUntilExit()
    XCTAssertEqual(wide.count, 37 * 23 * 6)
    var mismatches = 0
    for y in 0..<23 {
      for x in 0..<37 {
        let p = interlaced[x, y]
        XCTAssertEqual(p, progressive[x, y], "(\(x), \(y))")
        let i = (y * 37 + x) * 6
        let expected = (0..<3).map { c -> UInt8 in
          let v = UInt32(wide[i + 2 * c]) << 8 | UInt32(wide[i + 2 * c + 1])
          return UInt8((v * 255 + 32767) / 65535)
        }
        if [p.r, p.g, p.b] != expected || p.a != 255 { mismatches += 1 }
      }
    }
    XCTAssertEqual(mismatches, 0)
  }
}
