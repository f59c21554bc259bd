import Camfx
import XCTest

/// A row-local chain run band by band (as the transcode's fused pass runs it) leaves
/// exactly the pixels the whole-frame run leaves, whatever the band height and wherever
/// the watermark's rows fall across band edges.
final class RowLocalBandTests: XCTestCase {
  let rowLocalChains: [[String]] = [
    ["mirror"], ["grayscale"], ["grayscale=matrix=bt709"],
    ["watermark"], ["watermark=position=top-left:margin=3"], ["watermark=position=center:opacity=0.5"],
    ["watermark=x=-20:y=-9"], ["watermark=x=40:y=50"],  // partly outside: clipped at the top / the bottom
    ["mirror", "grayscale", "watermark"], ["watermark", "mirror"], [],
  ]

  func testBandsGiveTheWholeFramePixels() throws {
    for (width, height) in [(97, 61), (320, 180), (257, 63)] {
      for specs in rowLocalChains {
        var chain = try FilterRegistry.builtin.makeChain(specs)
        try chain.configure(input: FrameGeometry(width: width, height: height))
        XCTAssertTrue(chain.isRowLocal, "\(specs)")
        var whole = TestFrame(width: width, height: height, seed: 7).frame
        chain.process(&whole)
        for bandHeight in [1, 2, 7, 16, height] {
          let banded = TestFrame(width: width, height: height, seed: 7)
          var firstRow = 0
          while firstRow < height {
            var band = banded.frame
            band.crop(x: 0, y: firstRow, width: width, height: min(bandHeight, height - firstRow))
            chain.process(band: &band, firstRow: firstRow)
            firstRow += bandHeight
          }
          XCTAssertTrue(banded.frame.hasSamePixels(as: whole), "\(specs) \(width)x\(height) in bands of \(bandHeight)")
          banded.assertOutsideUntouched()
        }
      }
    }
  }

  func testChainsThatMoveRowsOrResizeAreNotRowLocal() throws {
    for specs in [["mirror=axis=vertical"], ["mirror=axis=both"], ["crop=width=8:height=8"], ["grayscale", "crop=width=8:height=8"]] {
      var chain = try FilterRegistry.builtin.makeChain(specs)
      try chain.configure(input: FrameGeometry(width: 64, height: 48))
      XCTAssertFalse(chain.isRowLocal, "\(specs)")
    }
    // Not configured yet: unknown.
    XCTAssertFalse(try FilterRegistry.builtin.makeChain(["grayscale"]).isRowLocal)
  }
}
