import Camfx
import CamfxCapture
import CamfxCore
import CamfxMedia
import Foundation
import XCTest
import CamfxPixelFormats

/// A movie's yuv420p frames go through camfx's own SIMD converter instead of
/// libswscale: bit-exact with the converter applied to the decoded planes, and close to
/// what libswscale makes of the same frames (the ffmpeg tool's conversion to bgra).
final class MovieReaderYUV420ConverterTests: XCTestCase {
  /// An H.264 yuv420p clip of the moving test pattern made by the ffmpeg tool, and its
  /// decoded planes as the tool decodes them (an oracle independent of camfx's reader).
  func makeClip(in dir: TemporaryDirectory, width w: Int, height h: Int, frames: Int) throws -> (String, Data) {
    let path = dir.file("in.mp4")
    _ = try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(w)x\(h):rate=25", "-frames:v", "\(frames)",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path,
    ])
    let raw = try runTool("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
    XCTAssertEqual(raw.count, frames * (w * h + 2 * (w / 2) * (h / 2)))
    return (path, raw)
  }

  func testMovieInputFramesAreTheI420ConverterOfTheDecodedPlanes() throws {
    let dir = try TemporaryDirectory()
    let (w, h, frames) = (320, 240, 5)
    let (path, raw) = try makeClip(in: dir, width: w, height: h, frames: frames)
    let (lumaBytes, chromaBytes) = (w * h, (w / 2) * (h / 2))

    let input = try MovieReader(path: path)
    let swscaled = try runTool("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "bgra", "-"])
    XCTAssertEqual(swscaled.count, frames * w * h * 4)
    var worstAgainstSwscale = 0, totalAgainstSwscale = 0
    for n in 0..<frames {
      let fast = try XCTUnwrap(input.nextFrame(), "frame \(n)")
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
          let a = fast[xx, yy], at = (n * h * w + yy * w + xx) * 4
          let b = BGRA(b: swscaled[at], g: swscaled[at + 1], r: swscaled[at + 2])
          for d in [abs(Int(a.b) - Int(b.b)), abs(Int(a.g) - Int(b.g)), abs(Int(a.r) - Int(b.r))] {
            worstAgainstSwscale = max(worstAgainstSwscale, d)
            totalAgainstSwscale += d
          }
        }
      }
    }
    XCTAssertNil(try input.nextFrame())
    // Same matrix and range as libswscale; only rounding and chroma siting differ.
    XCTAssertLessThan(Double(totalAgainstSwscale) / Double(frames * w * h * 3), 2.0, "worst \(worstAgainstSwscale)")
  }

  /// Asked for yuv420p frames, the reader hands on the decoded planes themselves, with
  /// the same timestamps; `nextFrame()` still gives BGRA frames.
  func testReaderHandsOnDecodedPlanesWhenAsked() throws {
    let dir = try TemporaryDirectory()
    let (w, h, frames) = (96, 64, 4)
    let (path, raw) = try makeClip(in: dir, width: w, height: h, frames: frames)
    let (lumaBytes, chromaBytes) = (w * h, (w / 2) * (h / 2))

    let input = try MovieReader(path: path)
    input.deliverYUV420Frames()
    var times: [MediaTime] = []
    var held: [YUV420Frame] = []  // all kept at once: the pool must not reuse a held frame
    while let sample = try input.nextSample() {
      guard case .video(.yuv420(let picture)) = sample else { return XCTFail("expected a yuv420p frame, got \(sample)") }
      XCTAssertEqual(picture.geometry, FrameGeometry(width: w, height: h))
      times.append(picture.presentationTime)
      held.append(picture)
    }
    XCTAssertEqual(times, (0..<frames).map { MediaTime(value: Int64($0), timescale: 25) })
    for (n, picture) in held.enumerated() {
      let expected = raw[(n * (lumaBytes + 2 * chromaBytes))...]
      var planes = Data()
      for row in 0..<h { planes.append(picture.y + row * picture.yStride, count: w) }
      for row in 0..<h / 2 { planes.append(picture.u + row * picture.uStride, count: w / 2) }
      for row in 0..<h / 2 { planes.append(picture.v + row * picture.vStride, count: w / 2) }
      XCTAssertTrue(planes == expected.prefix(lumaBytes + 2 * chromaBytes), "frame \(n) is not the decoded picture")
    }

    let again = try MovieReader(path: path)
    again.deliverYUV420Frames()
    let bgra = try XCTUnwrap(again.nextFrame())
    let expected = PixelBuffer(width: w, height: h)
    raw.withUnsafeBytes { bytes in
      PixelConverter.convertI420(
        luma: bytes.baseAddress!, lumaBytesPerRow: w, cb: bytes.baseAddress! + lumaBytes,
        cr: bytes.baseAddress! + lumaBytes + chromaBytes, chromaBytesPerRow: w / 2, to: expected)
    }
    XCTAssertTrue(bgra.hasSamePixels(as: expected))
  }
}
