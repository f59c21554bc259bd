import Camfx
import CamfxCore
import CamfxMedia
import Foundation
import XCTest

/// A transcode whose every filter works on yuv420p runs the chain on the decoded
/// pictures themselves (`YUV420FilterPass`). Those filters do what ffmpeg's do to the
/// same planes, so with the same encoder settings the movie camfx writes must decode to
/// exactly the pictures of the movie `ffmpeg -vf …` writes (x264 is deterministic).
final class YUV420FilterPassTests: TranscodeTestCase {
  func testChainsWriteWhatTheSameFFmpegFiltersWrite() throws {
    let input = try makeInput(width: 176, height: 102, frames: 20)
    let cases: [([String], String, Int)] = [
      (["mirror"], "hflip", 176 * 102),
      (["mirror=axis=both"], "hflip,vflip", 176 * 102),
      (["grayscale"], "hue=s=0", 176 * 102),
      (["crop=x=16:y=8:width=96:height=64"], "crop=96:64:16:8", 96 * 64),
      (["mirror", "crop=x=16:y=8:width=96:height=64", "mirror=axis=vertical"], "hflip,crop=96:64:16:8,vflip", 96 * 64),
    ]
    for (specs, vf, pixels) in cases {
      let (summary, path, output) = try transcode(input, specs)
      XCTAssertEqual(path, .yuv420, "\(specs)")
      XCTAssertNil(summary.error, "\(specs)")
      XCTAssertEqual(summary.framesOut, 20, "\(specs)")
      XCTAssertGreaterThan(summary.audioChunks, 0, "\(specs)")
      let reference = directory.appendingPathComponent("ffmpeg.mp4").path
      _ = try runTool("ffmpeg", [
        "-v", "error", "-y", "-i", input, "-vf", vf, "-c:v", "libx264", "-preset", "ultrafast", "-crf", "23",
        "-g", "60", "-bf", "0", "-an", reference,
      ])
      let ours = try decodedPictures(output), theirs = try decodedPictures(reference)
      XCTAssertEqual(ours.count, 20 * pixels * 3 / 2, "\(specs)")
      XCTAssertTrue(ours == theirs, "\(specs): camfx's pictures differ from ffmpeg -vf \(vf)'s")
    }
  }

  func testEachChainTakesTheCheapestPathItCan() throws {
    let input = try makeInput(width: 64, height: 48, frames: 3)
    let cases: [([String], FilterStagePath)] = [
      (["mirror", "grayscale", "crop=width=32:height=32"], .yuv420),
      (["mirror", "watermark=x=3:y=5:opacity=0.5", "grayscale"], .yuv420),
      ([], .yuv420),
      (["grayscale=matrix=bt709"], .rowBands),  // BT.709 grey is not the picture's Y
      (["mirror", "grayscale=matrix=bt709"], .rowBands),
      (["crop=x=1:y=0:width=32:height=32"], .wholeFrames),  // odd corner: chroma would not line up
    ]
    for (specs, expected) in cases {
      let (summary, path, _) = try transcode(input, specs)
      XCTAssertEqual(path, expected, "\(specs)")
      XCTAssertEqual(summary.framesOut, 3, "\(specs)")
    }
  }
}
