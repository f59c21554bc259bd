import Camfx
import XCTest

/// The one-line messages a user sees for bad `--filter` arguments, compared whole.
final class FilterSpecErrorTests: XCTestCase {
  func message(_ specs: String...) -> String? {
    errorMessage { _ = try FilterRegistry.builtin.makeChain(specs) }
  }

  func testRegistryListsTheBuiltinsInOrder() {
    XCTAssertEqual(FilterRegistry.builtin.filters.map { $0.name }, ["watermark", "grayscale", "crop", "mirror", "scale", "fit", "pad", "rotate", "color", "text", "timestamp", "frei0r"])
    for type in FilterRegistry.builtin.filters {
      XCTAssertTrue(type.example.hasPrefix("camfx snapshot ") && type.example.hasSuffix(".png"), type.example)
      XCTAssertTrue(type.example.contains("--filter \(type.name)"), type.example)
      XCTAssertFalse(type.summary.isEmpty)
    }
  }

  func testEveryExampleSpecParses() throws {
    for type in FilterRegistry.builtin.filters {
      let words = type.example.split(separator: " ").map(String.init)
      let spec = try XCTUnwrap(words.firstIndex(of: "--filter").map { words[$0 + 1] })
      XCTAssertNoThrow(try FilterRegistry.builtin.makeChain([spec]), type.example)
    }
  }

  func testUnknownFilter() {
    XCTAssertEqual(message("blur"), "filter 'blur': unknown filter (known: watermark, grayscale, crop, mirror, scale, fit, pad, rotate, color, text, timestamp, frei0r)")
  }

  func testUnknownKeys() {
    XCTAssertEqual(message("grayscale=mode=bt601"), "filter 'grayscale', key 'mode': unknown key (known: matrix)")
    XCTAssertEqual(message("mirror=direction=vertical"), "filter 'mirror', key 'direction': unknown key (known: axis)")
    XCTAssertEqual(message("crop=w=10:height=10"), "filter 'crop', key 'w': unknown key (known: x, y, width, height)")
    XCTAssertEqual(
      message("watermark=alpha=0.5"),
      "filter 'watermark', key 'alpha': unknown key (known: image, position, margin, x, y, opacity)")
  }

  func testBadValues() {
    XCTAssertEqual(message("grayscale=matrix=bt2020"), "filter 'grayscale', key 'matrix', value 'bt2020': expected one of bt601, bt709")
    XCTAssertEqual(message("mirror=axis=diagonal"), "filter 'mirror', key 'axis', value 'diagonal': expected one of horizontal, vertical, both")
    XCTAssertEqual(message("crop=width=abc:height=10"), "filter 'crop', key 'width', value 'abc': expected an integer")
    XCTAssertEqual(message("crop=width=0:height=10"), "filter 'crop', key 'width', value '0': must be in 1...16384")
    XCTAssertEqual(message("crop=width=10:height=0"), "filter 'crop', key 'height', value '0': must be in 1...16384")
    XCTAssertEqual(message("crop=x=-1:width=10:height=10"), "filter 'crop', key 'x', value '-1': must be in 0...16384")
    XCTAssertEqual(message("watermark=opacity=1.5"), "filter 'watermark', key 'opacity', value '1.5': must be in 0.0...1.0")
    XCTAssertEqual(message("watermark=opacity=half"), "filter 'watermark', key 'opacity', value 'half': expected a number")
    XCTAssertEqual(message("watermark=margin=-3"), "filter 'watermark', key 'margin', value '-3': must be in 0...16384")
    XCTAssertEqual(
      message("watermark=position=middle"),
      "filter 'watermark', key 'position', value 'middle': expected one of top-left, top-right, bottom-left, bottom-right, center")
  }

  func testMissingRequiredKeysAndMalformedSpecs() {
    XCTAssertEqual(message("crop=width=10"), "filter 'crop', key 'height': required key missing")
    XCTAssertEqual(message("crop"), "filter 'crop', key 'width': required key missing")
    XCTAssertEqual(message("crop=width"), "filter 'crop', key 'width': expected KEY=VALUE, got 'width'")
    XCTAssertEqual(message("=x"), "filter '=x': missing filter name (expected NAME or NAME=KEY=VALUE:...)")
  }

  func testChainOfAllFourRunsInOrder() throws {
    var t = TestFrame(width: 330, height: 170)
    try runChain(["crop=x=10:y=20:width=300:height=140,mirror=axis=vertical", "watermark=opacity=0", "grayscale"], on: &t.frame)
    XCTAssertEqual(t.frame.geometry, FrameGeometry(width: 300, height: 140))
    let k = Grayscale.Matrix.bt601.weights
    for (x, y) in [(0, 0), (299, 139), (150, 3), (7, 77)] {
      let p = t.pixels[20 + 139 - y][10 + x]
      let luma = k.r * Double(p.r) + k.g * Double(p.g) + k.b * Double(p.b)
      XCTAssertLessThanOrEqual(abs(Double(t.frame[x, y].g) - luma.rounded()), 1)
      XCTAssertEqual(t.frame[x, y].a, p.a)
    }
    t.assertOutsideUntouched()
  }
}
