import Camfx
import CamfxCore
import CamfxMedia
import Foundation
import XCTest

/// A transcode with a row-local chain runs in row bands on the decoded pictures
/// (`RowBandPass`); the movie it writes must be the very movie the three whole-frame
/// passes write (the encoder is deterministic, so equal pictures give equal output).
final class RowBandPassTests: TranscodeTestCase {
  /// The summary, whether the transcode ran in row bands, and its decoded pictures.
  func transcode(_ input: String, _ specs: [String], rowBands: Bool) throws -> (RecordingSummary, Bool, Data) {
    let (summary, path, output) = try transcode(input, specs, yuv420Filters: false, rowBands: rowBands)
    return (summary, path == .rowBands, try decodedPictures(output))
  }

  func testBandsWriteTheSameMovieAsWholeFrames() throws {
    // 102 rows: six 16-row bands and a last one of 6; the mark straddles band edges.
    let input = try makeInput(width: 176, height: 102, frames: 20)
    let specs = ["mirror", "watermark=position=center:opacity=0.6"]
    let (banded, usedBands, bandedPictures) = try transcode(input, specs, rowBands: true)
    let (whole, usedWhole, wholePictures) = try transcode(input, specs, rowBands: false)
    XCTAssertTrue(usedBands)
    XCTAssertFalse(usedWhole)
    XCTAssertNil(banded.error)
    XCTAssertNil(whole.error)
    XCTAssertEqual(banded.framesOut, 20)
    XCTAssertGreaterThan(banded.audioChunks, 0)
    XCTAssertEqual(bandedPictures.count, 20 * 176 * 102 * 3 / 2)
    XCTAssertTrue(bandedPictures == wholePictures, "the banded transcode's pictures differ from the whole-frame one's")
  }

  func testChainsThatAreNotRowLocalUseWholeFrames() throws {
    let input = try makeInput(width: 64, height: 48, frames: 3)
    for specs in [["mirror=axis=vertical"], ["crop=width=32:height=32"]] {
      let (summary, inBands, _) = try transcode(input, specs, rowBands: true)
      XCTAssertFalse(inBands, "\(specs)")
      XCTAssertEqual(summary.framesOut, 3, "\(specs)")
    }
  }
}
