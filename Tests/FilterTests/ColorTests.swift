import Camfx
import CamfxCapture
import CamfxMedia
import Foundation
import XCTest
import CamfxPixelFormats

/// `color` is ffmpeg's `eq`: on yuv420p planes sample for sample, and on BGRA the same
/// tables through BT.601 limited range.
final class ColorTests: XCTestCase {
  func testYUV420EqualsFFmpegsEq() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (width, height) = (48, 34)
    let raw = dir.appendingPathComponent("in.yuv").path
    try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=1", "-frames:v", "1",
      "-pix_fmt", "yuv420p", "-f", "rawvideo", raw])
    let source = YUV420Planes(width: width, height: height)
    try loadRaw(raw, into: source.picture)
    for settings in ["brightness=0.1:contrast=1.3:saturation=1.5", "gamma=2.2", "contrast=-0.5:brightness=-0.2:saturation=0",
      "saturation=3:gamma=0.4"]
    {
      let expectedPath = dir.appendingPathComponent("out.yuv").path
      try runTool("ffmpeg", ["-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-i", raw,
        "-vf", "eq=\(settings)", "-f", "rawvideo", expectedPath])
      var chain = try FilterRegistry.builtin.makeChain(["color=\(settings)"])
      try chain.configure(input: source.picture.geometry)
      XCTAssertTrue(chain.acceptsYUV420)
      let out = YUV420Planes(width: width, height: height)
      chain.process(yuv420: source.picture, into: out.picture, using: [])
      XCTAssertEqual(rawBytes(out.picture), try Data(contentsOf: URL(fileURLWithPath: expectedPath)), settings)
    }
  }

  func testBGRAMeansTheSame() throws {
    let source = blockPicture(FrameGeometry(width: 40, height: 20), seed: 31)
    // Settings that keep these colours inside RGB: outside it, the BGRA path clamps
    // where the planes do not. A steep table (gamma) magnifies the round trip's ±1.
    for settings in ["brightness=0.05:contrast=0.9:saturation=0.8", "gamma=1.3:saturation=0.5", "saturation=0"] {
      let (planar, viaBGRA) = try runBothPaths(["color=\(settings)"], on: source)
      for index in 0..<3 {
        XCTAssertLessThanOrEqual(maxDifference(planar, viaBGRA, plane: index), 3, "\(settings) plane \(index)")
      }
    }
  }

  func testDefaultsChangeNothing() throws {
    var chain = try FilterRegistry.builtin.makeChain(["color"])
    let t = TestFrame(width: 9, height: 5, seed: 32)
    try chain.configure(input: t.frame.geometry)
    var frame = t.frame
    chain.process(&frame)
    XCTAssertEqual(frame.allPixels, t.pixels)
  }
}

extension ColorTests {
  /// The BGRA path against the type's documented arithmetic, written out here per pixel:
  /// BT.601 limited-range Y, Cb, Cr, the fixed-point `lut`, and back. Exact, on a row
  /// long enough for the 16-pixel steps and a rest, in a padded frame.
  func testBGRAIsTheDocumentedArithmetic() throws {
    func lut(_ contrast: Double, _ brightness: Double) -> (Int) -> Int {
      let (c, br) = (Double(Float(contrast)), Double(Float(brightness)))
      if c == 1 && br == 0 { return { $0 } }
      let ci = Int(c * 4096), b = Int(100 * br + 100) * 511 / 200 - 128 - ci / 32
      return { x in min(max((x * ci) >> 12 + b, 0), 255) }
    }
    func clamp(_ v: Int) -> UInt8 { UInt8(min(max(v, 0), 255)) }
    for (contrast, brightness, saturation) in [(0.9, 0.05, 0.8), (-0.5, -0.2, 2.5), (1.0, 0.0, 0.0), (2.0, 0.3, 1.0)] {
      let settings = "color=contrast=\(contrast):brightness=\(brightness):saturation=\(saturation)"
      var chain = try FilterRegistry.builtin.makeChain([settings])
      var t = TestFrame(width: 37, height: 3, seed: 33)
      try chain.configure(input: t.frame.geometry)
      chain.process(&t.frame)
      let luma = lut(contrast, brightness), chroma = lut(saturation, 0)
      for y in 0..<t.height {
        for x in 0..<t.width {
          let p = t.pixels[y][x], (r, g, b) = (Int(p.r), Int(p.g), Int(p.b))
          let yy = luma((66 * r + 129 * g + 25 * b + 128) >> 8 + 16)
          let cb = chroma((-38 * r - 74 * g + 112 * b + 128) >> 8 + 128) - 128
          let cr = chroma((112 * r - 94 * g - 18 * b + 128) >> 8 + 128) - 128
          let c = 298 * (yy - 16)
          let want = BGRA(
            r: clamp((c + 409 * cr + 128) >> 8), g: clamp((c - 100 * cb - 208 * cr + 128) >> 8),
            b: clamp((c + 516 * cb + 128) >> 8), a: p.a)
          XCTAssertEqual(t.frame[x, y], want, "\(settings) at \(x), \(y)")
        }
      }
      t.assertOutsideUntouched()
    }
  }
}
