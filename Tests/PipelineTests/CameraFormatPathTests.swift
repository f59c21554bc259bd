import Camfx
import CamfxCore
import CamfxMedia
import CamfxPixelFormats
import Foundation
import XCTest

/// Camera formats (YUYV, NV12, and MJPEG's full-range 4:2:2 and 4:2:0) recorded as
/// movies and played back like a camera's frames: with a chain that works on yuv420p they go straight to yuv420p and never
/// become BGRA, and the pictures are today's BGRA path's within ±2.
final class CameraFormatPathTests: TranscodeTestCase {
  /// A movie of a camera's frames: rawvideo in `format`, or Motion JPEG for the
  /// full-range `yuvj…` formats an MJPEG camera's JPEGs decode to.
  func makeRawInput(_ format: String, width: Int = 160, height: Int = 90, frames: Int = 12) throws -> String {
    let path = directory.appendingPathComponent("cam-\(format).nut").path
    _ = try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "gradients=size=\(width)x\(height):rate=30:speed=0.05", "-frames:v", "\(frames)",
      "-pix_fmt", format, "-c:v", format.hasPrefix("yuvj") ? "mjpeg" : "rawvideo", "-q:v", "2", path,
    ])
    return path
  }

  /// A camera frame converted straight to yuv420p against the same frame converted to
  /// BGRA (as the camera's BGRA path does) and then by the encoder's BGRA → yuv420p
  /// converter. Smooth gradients, so that no sample falls outside RGB (the BGRA path
  /// clamps those; the planes keep them).
  func testPicturesMatchTheBGRAPath() throws {
    let (width, height) = (162, 90)
    for format in ["yuyv422", "nv12"] {
      let raw = try runTool("ffmpeg", [
        "-v", "error", "-f", "lavfi", "-i", "gradients=size=\(width)x\(height):rate=30:speed=0.05", "-frames:v", "1",
        "-pix_fmt", format, "-f", "rawvideo", "-",
      ])
      try raw.withUnsafeBytes { bytes in
        let base = try XCTUnwrap(bytes.baseAddress)
        let layout: YUVSourceLayout = format == "yuyv422"
          ? .yuyv(base, bytesPerRow: width * 2)
          : .nv12(luma: base, lumaBytesPerRow: width, chroma: base + width * height, chromaBytesPerRow: width)
        let direct = YUV420Planes(width: width, height: height)
        layout.convert(to: direct.picture)
        let bgra = PixelBuffer(width: width, height: height)
        layout.convert(to: bgra)
        let viaBGRA = YUV420Planes(width: width, height: height)
        BGRAToYUV420.convert(bgra, into: viaBGRA)
        for index in 0..<3 {
          let a = direct.picture.plane(index), b = viaBGRA.picture.plane(index)
          var worst = 0
          for r in 0..<a.height {
            for c in 0..<a.width { worst = max(worst, abs(Int(a.base[r * a.stride + c]) - Int(b.base[r * b.stride + c]))) }
          }
          XCTAssertLessThanOrEqual(worst, 2, "\(format) plane \(index)")
        }
        // NV12's planes are copied as they are: exact.
        if format == "nv12" {
          XCTAssertEqual(Array(UnsafeBufferPointer(start: direct.y, count: width)), Array(raw.prefix(width)))
        }
      }
    }
  }

  /// Through a recording with mirror: the yuv420p path, no frame in BGRA, and the same
  /// movie as the BGRA path's within coding noise.
  func testMirrorTakesTheYUV420PathAndMakesNoBGRA() throws {
    for format in ["yuyv422", "nv12", "yuvj422p", "yuvj420p"] {
      let input = try makeRawInput(format)
      let fast = try transcode(input, ["mirror"])
      XCTAssertEqual(fast.path, .yuv420, format)
      XCTAssertEqual(fast.summary.videoPath, "\(format) → yuv420p → mirror → encoder")
      XCTAssertEqual(fast.summary.bgraFrames, 0, format)
      XCTAssertEqual(fast.summary.framesOut, 12, format)
      let slow = try transcode(input, ["mirror"], yuv420Filters: false, rowBands: false)
      XCTAssertEqual(slow.path, .wholeFrames, format)
      XCTAssertEqual(slow.summary.videoPath, "\(format) → bgra → mirror → yuv420p → encoder")
      XCTAssertEqual(slow.summary.bgraFrames, 12, format)
      let a = try decodedPictures(fast.output), b = try decodedPictures(slow.output)
      XCTAssertEqual(a.count, b.count)
      let mean = Double(zip(a, b).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(a.count)
      // The BGRA path converts a movie's YUYV and NV12 with libswscale (its own chroma
      // filter), then both are encoded: close, not equal.
      XCTAssertLessThan(mean, 1.5, format)
    }
  }

  /// Row-local filters at the head of the chain run in the source's conversion, band
  /// by band, and the rest on the filter stage: the same pixels, to the byte, as
  /// converting whole pictures and running the chain on them after. Text is not
  /// row-local (it follows the frame count) and stays on the filter stage with what
  /// comes after it;
  /// decoded MJPEG pictures are not converted by camfx, so their chain runs as before.
  func testRowLocalFiltersRunInTheSourcesConversionWithTheSamePixels() throws {
    let specs = ["mirror", "color=brightness=0.1", "text=text=%{frame}:size=12:margin=2", "mirror"]
    for format in ["yuyv422", "nv12", "yuv420p", "yuvj422p"] {
      let input = try makeRawInput(format, width: 96, height: 70, frames: 6)
      var inSource: [String] = []
      let banded = try transcode(input, specs) { inSource = $0 }
      XCTAssertEqual(inSource, ["mirror", "color"], format)
      let whole = try transcode(input, specs, sourceBands: false) { XCTAssertEqual($0, [], format) }
      XCTAssertEqual(banded.summary.framesOut, 6, format)
      XCTAssertEqual(banded.summary.videoPath, whole.summary.videoPath, format)
      XCTAssertEqual(try decodedPictures(banded.output), try decodedPictures(whole.output), format)
    }
  }

  /// A movie whose pictures camfx does not convert itself (4:4:4 here) takes the BGRA
  /// path, and its path and counts say so, rather than naming a yuv420p path it does not take.
  func testAPictureFormatWithoutADirectPathSaysItGoesThroughBGRA() throws {
    let input = try makeRawInput("yuv444p")
    let result = try transcode(input, ["mirror"])
    XCTAssertEqual(result.path, .wholeFrames)
    XCTAssertEqual(result.summary.videoPath, "yuv444p → bgra → mirror → yuv420p → encoder")
    XCTAssertEqual(result.summary.bgraFrames, 12)
    XCTAssertEqual(result.summary.framesOut, 12)
  }
}
