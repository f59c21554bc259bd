import Camfx
import Foundation
import XCTest

/// frei0r plugins: Debian's (`frei0r-plugins`) and the example in
/// `examples/frei0r-plugin`, built here with cc and found through `FREI0R_PATH`.
final class Frei0rTests: XCTestCase {
  func chain(_ spec: String, _ size: FrameGeometry) throws -> FilterChain {
    var chain = try FilterRegistry.builtin.makeChain([spec])
    try chain.configure(input: size)
    return chain
  }

  /// invert0r gives 255 − input on R, G and B, on frames with padded rows (copied
  /// through a packed frame) and on packed ones (handed over as they are).
  func testInvert0rInvertsRGB() throws {
    for size in [FrameGeometry(width: 72, height: 48), FrameGeometry(width: 16, height: 8)] {
      let chain = try chain("frei0r=name=invert0r", size)
      let padded = TestFrame(width: size.width, height: size.height, seed: 21)
      let packed = PixelBuffer(width: size.width, height: size.height)
      XCTAssertEqual(packed.bytesPerRow == size.width * 4, size.width == 16)
      packed.copyPixels(from: padded.frame)
      for source in [padded.frame, packed] {
        let out = try XCTUnwrap(chain.process(source, using: chain.makeBuffers(capacity: 1)))
        for y in 0..<size.height {
          for x in 0..<size.width {
            let p = padded.pixels[y][x], q = out[x, y]
            XCTAssertEqual([q.r, q.g, q.b], [255 - p.r, 255 - p.g, 255 - p.b], "\(size) at (\(x), \(y))")
          }
        }
      }
      padded.assertOutsideUntouched()
    }
  }

  /// pixeliz0r takes its block sizes: bigger blocks, fewer distinct pixels in a row.
  func testPixeliz0rTakesItsParameters() throws {
    let size = FrameGeometry(width: 64, height: 32)
    let source = TestFrame(width: size.width, height: size.height, seed: 22)
    func distinctInRow(_ spec: String) throws -> Int {
      let chain = try chain(spec, size)
      let out = try XCTUnwrap(chain.process(source.frame, using: chain.makeBuffers(capacity: 1)))
      return Set((0..<size.width).map { out[$0, 0].packed }).count
    }
    let untouched = Set((0..<size.width).map { source.frame[$0, 0].packed }).count
    let small = try distinctInRow("frei0r=name=pixeliz0r:block_width=0.125:block_height=0.25")
    let large = try distinctInRow("frei0r=name=pixeliz0r:block_width=0.5:block_height=0.5")
    XCTAssertGreaterThan(untouched, 50, "a row of random pixels")
    XCTAssertLessThan(small, untouched / 3, "blocks of a few pixels")
    XCTAssertLessThanOrEqual(large, 4, "blocks of a quarter of the width or more")
  }

  func testErrorsNameThePluginAndKey() {
    XCTAssertEqual(
      errorMessage { _ = try FilterRegistry.builtin.makeChain(["frei0r"]) }, "filter 'frei0r', key 'name': required key missing")
    XCTAssertTrue(
      errorMessage { _ = try FilterRegistry.builtin.makeChain(["frei0r=name=nosuchplugin"]) }?.hasPrefix(
        "filter 'frei0r', key 'name', value 'nosuchplugin': no such frei0r plugin in ") ?? false)
    XCTAssertEqual(
      errorMessage { _ = try FilterRegistry.builtin.makeChain(["frei0r=name=pixeliz0r:size=3"]) },
      "filter 'frei0r', key 'size': unknown key (known: name, block_width, block_height)")
    XCTAssertEqual(
      errorMessage { _ = try FilterRegistry.builtin.makeChain(["frei0r=name=pixeliz0r:block_width=2"]) },
      "filter 'frei0r', key 'block_width', value '2': must be in 0.0...1.0")
    XCTAssertEqual(
      errorMessage { _ = try FilterRegistry.builtin.makeChain(["frei0r=name=onecol0r"]) },
      "filter 'frei0r', key 'name', value 'onecol0r': is a frei0r source, not a filter")
    XCTAssertEqual(
      errorMessage { _ = try self.chain("frei0r=name=invert0r", FrameGeometry(width: 30, height: 16)) },
      "filter 'frei0r', key 'name', value 'invert0r': frei0r plugins need a width and height that are multiples of 8, got 30x16 (scale, crop or pad first)")
  }

  /// The example plugin, built from `examples/frei0r-plugin/red_level.c`, runs through
  /// `camfx snapshot` and `camfx filters` lists it: an RGBA8888 plugin, so red and blue
  /// must be swapped on the way in and back on the way out.
  func testTheExamplePluginBuildsAndRuns() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples/frei0r-plugin/red_level.c").standardized.path
    try runTool("cc", ["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", dir.appendingPathComponent("red_level.so").path, example])
    setenv("FREI0R_PATH", dir.path, 1)
    defer { unsetenv("FREI0R_PATH") }
    let size = FrameGeometry(width: 24, height: 16)
    let chain = try chain("frei0r=name=red_level:level=0.5", size)
    let source = TestFrame(width: size.width, height: size.height, seed: 23)
    let out = try XCTUnwrap(chain.process(source.frame, using: chain.makeBuffers(capacity: 1)))
    for y in 0..<size.height {
      for x in 0..<size.width {
        let p = source.pixels[y][x], q = out[x, y]
        XCTAssertEqual(q, BGRA(b: p.b, g: p.g, r: 128, a: p.a), "(\(x), \(y))")
      }
    }
    XCTAssertTrue(FilterRegistry.builtin.catalog.contains("    red_level: Sets red to a level; keeps green, blue and alpha\n"))
  }

  /// The same standard from Swift: `examples/frei0r-plugin/swift_invert.swift`, built
  /// with swiftc as a shared library (against camfx's CFrei0r module map), inverts R,
  /// G and B and keeps alpha.
  func testASwiftPluginBuildsAndRuns() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
    try runTool("swiftc", [
      "-emit-library", "-O", "-I", root.appendingPathComponent("Sources/CFrei0r").path, "-module-name", "SwiftInvert",
      root.appendingPathComponent("examples/frei0r-plugin/swift_invert.swift").path,
      "-o", dir.appendingPathComponent("swift_invert.so").path,
    ])
    setenv("FREI0R_PATH", dir.path, 1)
    defer { unsetenv("FREI0R_PATH") }
    let size = FrameGeometry(width: 24, height: 16)
    let chain = try chain("frei0r=name=swift_invert", size)
    let source = TestFrame(width: size.width, height: size.height, seed: 24)
    let out = try XCTUnwrap(chain.process(source.frame, using: chain.makeBuffers(capacity: 1)))
    for y in 0..<size.height {
      for x in 0..<size.width {
        let p = source.pixels[y][x]
        XCTAssertEqual(out[x, y], BGRA(b: 255 - p.b, g: 255 - p.g, r: 255 - p.r, a: p.a), "(\(x), \(y))")
      }
    }
  }
}
