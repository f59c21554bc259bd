import Camfx
import CamfxCapture
import CamfxCore
import CamfxMedia
import Foundation
import XCTest

/// A movie input hands yuv420p frames to camfx's own SIMD converter instead of
/// libswscale: bit-exact with the converter applied to the decoded planes, and close to
/// what libswscale makes of the same frames.
final class MovieReaderYUV420ConverterTests: XCTestCase {
  func testMovieInputFramesAreTheI420ConverterOfTheDecodedPlanes() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("in.mp4")
    let (w, h, frames) = (320, 240, 5)
    _ = try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(w)x\(h):rate=25", "-frames:v", "\(frames)",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path,
    ])
    // The decoded planes, as the ffmpeg tool decodes them.
    let raw = try runTool("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
    let (lumaBytes, chromaBytes) = (w * h, (w / 2) * (h / 2))
    XCTAssertEqual(raw.count, frames * (lumaBytes + 2 * chromaBytes))

    let input = MovieReaderInput(try MovieReader(path: path))
    let plain = try MovieReader(path: path)  // no converter given: libswscale
    var worstAgainstSwscale = 0, totalAgainstSwscale = 0
    for n in 0..<frames {
      let fast = try XCTUnwrap(input.reader.nextFrame(), "frame \(n)")
      let swscaled = try XCTUnwrap(plain.nextFrame(), "frame \(n)")
      let expected = PixelBuffer(width: w, height: h)
      raw.withUnsafeBytes { bytes in
        let y = bytes.baseAddress! + n * (lumaBytes + 2 * chromaBytes)
        PixelConverter.convertI420(
          luma: y, lumaBytesPerRow: w, cb: y + lumaBytes, cr: y + lumaBytes + chromaBytes, chromaBytesPerRow: w / 2,
          to: expected)
      }
      XCTAssertTrue(fast.hasSamePixels(as: expected), "frame \(n) is not the I420 converter's output")
      for yy in 0..<h {
        for xx in 0..<w {
          let a = fast[xx, yy], b = swscaled[xx, yy]
          for d in [abs(Int(a.b) - Int(b.b)), abs(Int(a.g) - Int(b.g)), abs(Int(a.r) - Int(b.r))] {
            worstAgainstSwscale = max(worstAgainstSwscale, d)
            totalAgainstSwscale += d
          }
        }
      }
    }
    XCTAssertNil(try input.reader.nextFrame())
    // Same matrix and range as libswscale; only rounding and chroma siting differ.
    XCTAssertLessThan(Double(totalAgainstSwscale) / Double(frames * w * h * 3), 2.0, "worst \(worstAgainstSwscale)")
  }
}
