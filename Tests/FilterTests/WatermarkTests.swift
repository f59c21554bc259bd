import Camfx
import CamfxPNG
import Foundation
import XCTest

final class WatermarkTests: XCTestCase {
  /// A straight-alpha mark with every kind of alpha: 0, 255 and values between.
  func makeMark(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
    var rng = SplitMix64(seed: seed)
    let mark = PixelBuffer(width: width, height: height, bytesPerRow: width * 4 + 12)
    for y in 0..<height {
      for x in 0..<width {
        let v = rng.next()
        let alphas: [UInt8] = [0, 255, UInt8(truncatingIfNeeded: v >> 32)]
        mark[x, y] = BGRA(
          b: UInt8(truncatingIfNeeded: v), g: UInt8(truncatingIfNeeded: v >> 8), r: UInt8(truncatingIfNeeded: v >> 16),
          a: alphas[Int((v >> 40) % 3)])
      }
    }
    return mark
  }

  /// Source-over in Double: c·a·o/255 + d·(1 - a·o/255), for colour and alpha alike.
  func reference(mark m: BGRA, dst d: BGRA, opacity: Double) -> SIMD4<Double> {
    let a = Double(m.a) / 255 * opacity
    return SIMD4(Double(m.b), Double(m.g), Double(m.r), 255) * a + SIMD4(Double(d.b), Double(d.g), Double(d.r), Double(d.a)) * (1 - a)
  }

  /// The largest channel difference between `out` and the rounded `expected`.
  func error(_ out: BGRA, _ expected: SIMD4<Double>) -> Double {
    let diff = SIMD4(Double(out.b), Double(out.g), Double(out.r), Double(out.a)) - expected.rounded(.toNearestOrAwayFromZero)
    return max(max(abs(diff.x), abs(diff.y)), max(abs(diff.z), abs(diff.w)))
  }

  /// Checks every pixel of `t` against the reference with the mark's top-left at
  /// (left, top), and that nothing outside the covered rectangle changed.
  func check(
    _ t: TestFrame, mark: PixelBuffer, left: Int, top: Int, opacity: Double,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    var worst = 0.0
    for y in 0..<t.height {
      for x in 0..<t.width {
        let mx = x - left, my = y - top
        let out = t.frame[x, y], before = t.pixels[y][x]
        if mx >= 0, my >= 0, mx < mark.width, my < mark.height {
          let expected = reference(mark: mark[mx, my], dst: before, opacity: opacity)
          worst = max(worst, error(out, expected))
        } else {
          XCTAssertEqual(out, before, "pixel (\(x), \(y)) outside the mark changed", file: file, line: line)
        }
      }
    }
    XCTAssertLessThanOrEqual(worst, 1, "differs from the rounded Double reference by \(worst)", file: file, line: line)
    let region = coveredRegion(left: left, top: top, mark: mark, frame: t.frame)
    t.assertOutsideUntouched(region: region, file: file, line: line)
  }

  func testBlendWithinOneOfReferenceOnOddSizesAndPaddedRows() throws {
    for opacity in [1.0, 0.5, 0.3] {
      for (w, h) in testSizes {
        let mark = makeMark(width: max(1, w - 2), height: max(1, h - 1), seed: UInt64(w + h))
        var filter = Watermark(image: mark, x: w > 2 ? 1 : 0, y: 0, opacity: opacity)
        var t = TestFrame(width: w, height: h, seed: UInt64(w * h))
        _ = try filter.configure(input: t.frame.geometry)
        filter.process(&t.frame)
        check(t, mark: mark, left: w > 2 ? 1 : 0, top: 0, opacity: opacity)
      }
    }
  }

  /// Opaque mark pixels replace the frame's exactly; transparent ones leave it exactly.
  func testOpaqueAndTransparentPixelsAreExact() throws {
    let mark = makeMark(width: 37, height: 5, seed: 3)
    var filter = Watermark(image: mark, x: 0, y: 0)
    var t = TestFrame(width: 40, height: 6)
    _ = try filter.configure(input: t.frame.geometry)
    filter.process(&t.frame)
    var opaque = 0, transparent = 0
    for y in 0..<5 {
      for x in 0..<37 {
        let m = mark[x, y]
        if m.a == 255 {
          XCTAssertEqual(t.frame[x, y], m, "(\(x), \(y))")
          opaque += 1
        } else if m.a == 0 {
          XCTAssertEqual(t.frame[x, y], t.pixels[y][x], "(\(x), \(y))")
          transparent += 1
        }
      }
    }
    XCTAssertGreaterThan(opaque, 10)
    XCTAssertGreaterThan(transparent, 10)
  }

  /// Every alpha 0...255 against a grid of mark colours and frame colours, at two
  /// opacities: the result is within ±1 of the rounded Double blend.
  func testEveryAlphaWithinOneOfReference() throws {
    let mark = PixelBuffer(width: 256, height: 52)
    for y in 0..<52 {
      for x in 0..<256 { mark[x, y] = BGRA(b: UInt8(5 * y), g: UInt8(255 - 5 * y), r: UInt8((y * 97) % 256), a: UInt8(x)) }
    }
    let markPixels = mark.allPixels
    for opacity in [1.0, 0.37] {
      var filter = Watermark(image: mark, x: 0, y: 0, opacity: opacity)
      _ = try filter.configure(input: mark.geometry)
      var worst = 0.0
      for dst in stride(from: 0, through: 255, by: 15) {
        let d = UInt8(dst)
        var frame = PixelBuffer(width: 256, height: 52)
        frame.fill(BGRA(b: d, g: 255 - d, r: d / 2, a: 255 - d / 3))
        let background = frame[0, 0]
        filter.process(&frame)
        for y in 0..<52 {
          for x in 0..<256 {
            let out = frame[x, y]
            let expected = reference(mark: markPixels[y][x], dst: background, opacity: opacity)
            worst = max(worst, error(out, expected))
          }
        }
      }
      XCTAssertLessThanOrEqual(worst, 1, "opacity \(opacity)")
    }
  }

  func testPositionsAndMargin() throws {
    let mark = makeMark(width: 5, height: 3, seed: 9)
    let places: [(Watermark.Position, Int, Int)] = [
      (.topLeft, 2, 2), (.topRight, 33 - 5 - 2, 2), (.bottomLeft, 2, 17 - 3 - 2),
      (.bottomRight, 33 - 5 - 2, 17 - 3 - 2), (.center, 14, 7),
    ]
    for (position, left, top) in places {
      var filter = Watermark(image: mark, position: position, margin: 2)
      var t = TestFrame(width: 33, height: 17)
      _ = try filter.configure(input: t.frame.geometry)
      filter.process(&t.frame)
      check(t, mark: mark, left: left, top: top, opacity: 1)
    }
  }

  func testPartlyOutsideIsClipped() throws {
    let mark = makeMark(width: 9, height: 6, seed: 11)
    for (x, y) in [(-4, -3), (30, 14), (-8, 16), (28, -5)] {
      var filter = Watermark(image: mark, x: x, y: y, opacity: 0.75)
      var t = TestFrame(width: 33, height: 17)
      _ = try filter.configure(input: t.frame.geometry)
      filter.process(&t.frame)
      check(t, mark: mark, left: x, top: y, opacity: 0.75)
    }
  }

  func testMarkLargerThanFrameOnOnePixelFrame() throws {
    let mark = makeMark(width: 4, height: 4, seed: 5)
    var filter = Watermark(image: mark, x: -2, y: -1)
    var t = TestFrame(width: 1, height: 1)
    _ = try filter.configure(input: t.frame.geometry)
    filter.process(&t.frame)
    check(t, mark: mark, left: -2, top: -1, opacity: 1)
  }

  func testOpacityZeroChangesNothing() throws {
    var t = TestFrame(width: 200, height: 60)
    try runChain(["watermark=opacity=0"], on: &t.frame)
    XCTAssertEqual(t.frame.allPixels, t.pixels)
  }

  func testBuiltinMarkBareSpec() throws {
    let mark = Watermark.builtinMark()
    XCTAssertEqual(mark.geometry, FrameGeometry(width: 120, height: 40))
    // Translucent box, transparent corners, opaque white letters.
    XCTAssertEqual(mark[0, 0].a, 0)
    XCTAssertEqual(mark[60, 2].a, 150)
    XCTAssertTrue(mark.allPixels.joined().contains(BGRA(b: 255, g: 255, r: 255, a: 255)))

    var t = TestFrame(width: 320, height: 240)
    try runChain(["watermark"], on: &t.frame)
    check(t, mark: mark, left: 320 - 120 - 16, top: 240 - 40 - 16, opacity: 1)
  }

  func testMarkEntirelyOutsideIsAConfigureError() throws {
    func configureError(_ spec: String) -> String? {
      errorMessage {
        var chain = try FilterRegistry.builtin.makeChain([spec])
        try chain.configure(input: FrameGeometry(width: 320, height: 240))
      }
    }
    XCTAssertEqual(
      configureError("watermark=x=320"),
      "filter 'watermark': mark 120x40 at (320, 184) lies entirely outside the 320x240 input frame")
    XCTAssertEqual(
      configureError("watermark=x=-120:y=0"),
      "filter 'watermark': mark 120x40 at (-120, 0) lies entirely outside the 320x240 input frame")
    XCTAssertEqual(
      configureError("watermark=position=top-left:margin=240"),
      "filter 'watermark': mark 120x40 at (240, 240) lies entirely outside the 320x240 input frame")
    // One pixel inside is enough.
    var chain = try FilterRegistry.builtin.makeChain(["watermark=x=-119:y=-39"])
    XCTAssertNoThrow(try chain.configure(input: FrameGeometry(width: 320, height: 240)))
  }

  // MARK: image=

  func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-watermark-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
  }

  func testImageFromPNGMatchesTheSameImageInMemory() throws {
    let dir = try temporaryDirectory()
    let mark = makeMark(width: 13, height: 7, seed: 21)
    let path = dir.appendingPathComponent("mark.png").path
    try PNGFile.write(mark, to: path, alpha: true)

    var fromFile = TestFrame(width: 33, height: 17)
    try runChain(["watermark=image=\(path):position=top-left:margin=3:opacity=0.6"], on: &fromFile.frame)
    check(fromFile, mark: mark, left: 3, top: 3, opacity: 0.6)
  }

  func imageError(_ path: String) -> String? {
    errorMessage { _ = try FilterRegistry.builtin.makeChain(["watermark=image=\(path)"]) }
  }

  func testMissingImage() throws {
    let path = try temporaryDirectory().appendingPathComponent("absent.png").path
    XCTAssertEqual(imageError(path), "filter 'watermark', key 'image', value '\(path)': No such file or directory")
  }

  func testImageThatIsNotAPNG() throws {
    let path = try temporaryDirectory().appendingPathComponent("text.png").path
    try Data("hello, this is not a PNG file at all".utf8).write(to: URL(fileURLWithPath: path))
    let message = try XCTUnwrap(imageError(path))
    XCTAssertTrue(message.hasPrefix("filter 'watermark', key 'image', value '\(path)': "), message)
    XCTAssertTrue(message.lowercased().contains("png"), message)
  }

  func testTruncatedImage() throws {
    let dir = try temporaryDirectory()
    let whole = dir.appendingPathComponent("whole.png").path
    try PNGFile.write(makeMark(width: 64, height: 64, seed: 2), to: whole, alpha: true)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let path = dir.appendingPathComponent("cut.png").path
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
    let message = try XCTUnwrap(imageError(path))
    XCTAssertTrue(message.hasPrefix("filter 'watermark', key 'image', value '\(path)': "), message)
  }

  func testUnreadableImage() throws {
    let path = try temporaryDirectory().path  // a directory, not a file
    let message = try XCTUnwrap(imageError(path))
    XCTAssertTrue(message.hasPrefix("filter 'watermark', key 'image', value '\(path)': "), message)
  }

  func testHugeImageIsRejected() throws {
    let path = try temporaryDirectory().appendingPathComponent("huge.png").path
    try PNGHeader.bytes(width: 20000, height: 10).write(to: URL(fileURLWithPath: path))
    XCTAssertEqual(
      imageError(path),
      "filter 'watermark', key 'image', value '\(path)': image is 20000x10, larger than the maximum 16384 per side")
  }
}

/// The rectangle of `frame` a mark at (left, top) covers (for the untouched-bytes check).
func coveredRegion(left: Int, top: Int, mark: PixelBuffer, frame: PixelBuffer) -> (x: Int, y: Int, width: Int, height: Int) {
  let x0 = max(0, left), y0 = max(0, top)
  let x1 = min(frame.width, left + mark.width), y1 = min(frame.height, top + mark.height)
  return (x0, y0, max(0, x1 - x0), max(0, y1 - y0))
}

/// The start of a PNG file: signature and a valid IHDR chunk (8-bit RGBA) claiming
/// any size, enough for a reader to reject absurd dimensions before reading pixels.
enum PNGHeader {
  static func bytes(width: UInt32, height: UInt32) -> Data {
    var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    var chunk = Data("IHDR".utf8)
    for v in [width, height] { chunk.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) }) }
    chunk.append(contentsOf: [8, 6, 0, 0, 0])  // depth 8, RGBA, deflate, no filter, no interlace
    append(chunk, to: &data)
    append(Data("IDAT".utf8) + Data([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]), to: &data)
    append(Data("IEND".utf8), to: &data)
    return data
  }

  /// Appends length, `typeAndData` and its CRC.
  static func append(_ typeAndData: Data, to data: inout Data) {
    let length = UInt32(typeAndData.count - 4), crc = crc32(typeAndData)
    data.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) })
    data.append(typeAndData)
    data.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
  }

  static func crc32(_ bytes: Data) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}
