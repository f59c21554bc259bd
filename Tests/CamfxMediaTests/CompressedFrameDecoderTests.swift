import CamfxCore
import CamfxMedia
import CamfxPixelFormats
import Foundation
import XCTest

/// Motion-JPEG frames (an MJPEG camera's) decoded to BGRA and straight to yuv420p.
final class MJPEGDecoderTests: XCTestCase {
  /// A JPEG made by the ffmpeg tool of `source` (a lavfi graph), in `pixelFormat`.
  func makeJPEG(_ source: String, pixelFormat: String = "yuvj422p") throws -> [UInt8] {
    Array(try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", source, "-frames:v", "1", "-q:v", "2", "-pix_fmt", pixelFormat,
      "-f", "mjpeg", "-",
    ]))
  }

  /// Left half red, right half blue, 64x48.
  func makeRedBlueJPEG() throws -> [UInt8] {
    try makeJPEG("color=red:s=32x48[a];color=blue:s=32x48[b];[a][b]hstack")
  }

  func testDecodesAJPEGFrameToBGRA() throws {
    let jpeg = try makeRedBlueJPEG()
    let decoder = try MJPEGDecoder()
    let frame = PixelBuffer(width: 64, height: 48)
    XCTAssertTrue(jpeg.withUnsafeBytes { decoder.decode($0, into: frame) })
    XCTAssertLessThanOrEqual(maxDifference(frame[8, 24], BGRA(r: 255, g: 0, b: 0)), 6, "\(frame[8, 24])")
    XCTAssertLessThanOrEqual(maxDifference(frame[56, 24], BGRA(r: 0, g: 0, b: 255)), 6, "\(frame[56, 24])")
  }

  func testCorruptAndWrongSizedFramesAreRejected() throws {
    let jpeg = try makeRedBlueJPEG()
    let decoder = try MJPEGDecoder()
    let frame = PixelBuffer(width: 64, height: 48)
    let planes = YUV420Planes(width: 64, height: 48)
    let garbage = [UInt8](repeating: 0x5A, count: 4000)
    XCTAssertFalse(garbage.withUnsafeBytes { decoder.decode($0, into: frame) })
    XCTAssertFalse(garbage.withUnsafeBytes { decoder.decode($0, into: planes.picture) })
    let truncated = Array(jpeg.prefix(jpeg.count / 3))
    XCTAssertFalse(truncated.withUnsafeBytes { decoder.decode($0, into: frame) })
    XCTAssertFalse(truncated.withUnsafeBytes { decoder.decode($0, into: planes.picture) })
    XCTAssertFalse([UInt8]().withUnsafeBytes { decoder.decode($0, into: planes.picture) })
    XCTAssertFalse(jpeg.withUnsafeBytes { decoder.decode($0, into: PixelBuffer(width: 32, height: 48)) })
    XCTAssertFalse(jpeg.withUnsafeBytes { decoder.decode($0, into: YUV420Planes(width: 64, height: 46).picture) })
    // The decoder recovers: the next good frame decodes.
    XCTAssertTrue(jpeg.withUnsafeBytes { decoder.decode($0, into: frame) })
    XCTAssertTrue(jpeg.withUnsafeBytes { decoder.decode($0, into: planes.picture) })
  }

  /// The JPEG range mapping, for every 8-bit value, against its formula in exact
  /// rational arithmetic: Y' = 16 + round(Y·219/255), C' = 128 + round((C−128)·224/255).
  /// A 512-wide picture puts 0...255 twice in each luma row and once in each chroma
  /// row, so the vector steps and the per-sample tail both see every value.
  func testRangeMappingIsExactForEveryValue() {
    func rounded(_ numerator: Int, _ denominator: Int) -> Int {  // halves up, for any sign
      Int((Double(numerator) / Double(denominator) + 0.5).rounded(.down))
    }
    func luma(_ y: Int) -> UInt8 { UInt8(16 + rounded(y * 219, 255)) }
    func chroma(_ c: Int) -> UInt8 { UInt8(128 + rounded((c - 128) * 224, 255)) }
    for width in [512, 511] {
      let height = 4, chromaWidth = (width + 1) / 2
      var y = [UInt8](repeating: 0, count: width * height)
      var cb = [UInt8](repeating: 0, count: chromaWidth * height), cr = cb
      for r in 0..<height {
        for x in 0..<width { y[r * width + x] = UInt8(x % 256) }
        for x in 0..<chromaWidth {
          cb[r * chromaWidth + x] = UInt8((x + r) % 256)
          cr[r * chromaWidth + x] = UInt8(255 - (x + 3 * r) % 256)
        }
      }
      for chromaRows in [FullRangeYUVLayout.ChromaRows.half, .full] {
        let out = YUV420Planes(width: width, height: height)
        y.withUnsafeBytes { yb in
          cb.withUnsafeBytes { cbb in
            cr.withUnsafeBytes { crb in
              FullRangeYUVLayout(
                luma: yb.baseAddress!, lumaBytesPerRow: width, cb: cbb.baseAddress!, cr: crb.baseAddress!,
                chromaBytesPerRow: chromaWidth, chromaRows: chromaRows
              ).convert(to: out.picture)
            }
          }
        }
        for r in 0..<height {
          for x in 0..<width { XCTAssertEqual(out.y[r * out.yStride + x], luma(Int(y[r * width + x])), "Y \(x),\(r)") }
        }
        for r in 0..<out.picture.chromaHeight {
          for x in 0..<chromaWidth {
            // 4:2:0 takes chroma row r; 4:2:2 the rounded-up mean of rows 2r and 2r + 1.
            func source(_ plane: [UInt8]) -> Int {
              chromaRows == .half
                ? Int(plane[r * chromaWidth + x])
                : (Int(plane[2 * r * chromaWidth + x]) + Int(plane[(2 * r + 1) * chromaWidth + x]) + 1) / 2
            }
            XCTAssertEqual(out.u[r * out.uStride + x], chroma(source(cb)), "Cb \(x),\(r) \(chromaRows)")
            XCTAssertEqual(out.v[r * out.vStride + x], chroma(source(cr)), "Cr \(x),\(r) \(chromaRows)")
          }
        }
      }
    }
  }

  /// A JPEG of the moving test pattern, 4:2:2 and 4:2:0, at a size that is no multiple
  /// of 16 and has odd chroma widths and heights (the tool makes JPEGs of even sizes): camfx's
  /// yuv420p is the range mapping of the planes the ffmpeg tool decodes (exact), and
  /// within rounding and chroma filtering of the tool's own conversion to yuv420p.
  func testDecodesToYUV420pLikeTheFFmpegTool() throws {
    let (width, height) = (98, 62)
    let (chromaWidth, chromaHeight) = ((width + 1) / 2, (height + 1) / 2)
    for format in ["yuvj422p", "yuvj420p"] {
      let jpegPath = NSTemporaryDirectory() + "camfx-mjpeg-\(UUID().uuidString).jpg"
      defer { try? FileManager.default.removeItem(atPath: jpegPath) }
      let jpeg = try makeJPEG("testsrc2=size=\(width)x\(height)", pixelFormat: format)
      try Data(jpeg).write(to: URL(fileURLWithPath: jpegPath))
      let decoded = try runTool("ffmpeg", ["-v", "error", "-i", jpegPath, "-f", "rawvideo", "-pix_fmt", format, "-"])
      let toolYUV420 = try runTool("ffmpeg", ["-v", "error", "-i", jpegPath, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
      let planes = YUV420Planes(width: width, height: height)
      let decoder = try MJPEGDecoder()
      XCTAssertTrue(jpeg.withUnsafeBytes { decoder.decode($0, into: planes.picture) }, format)

      let chromaRowsDecoded = format == "yuvj422p" ? height : chromaHeight
      let expected = YUV420Planes(width: width, height: height)
      decoded.withUnsafeBytes { d in
        let base = d.baseAddress!
        FullRangeYUVLayout(
          luma: base, lumaBytesPerRow: width, cb: base + width * height,
          cr: base + width * height + chromaWidth * chromaRowsDecoded, chromaBytesPerRow: chromaWidth,
          chromaRows: format == "yuvj422p" ? .full : .half
        ).convert(to: expected.picture)
      }
      for index in 0..<3 {
        let a = planes.picture.plane(index), b = expected.picture.plane(index)
        var mismatches = 0
        for r in 0..<a.height {
          for c in 0..<a.width where a.base[r * a.stride + c] != b.base[r * b.stride + c] {
            if mismatches == 0 { XCTFail("\(format) plane \(index) at \(c),\(r): \(a.base[r * a.stride + c]) != \(b.base[r * b.stride + c])") }
            mismatches += 1
          }
        }
        XCTAssertEqual(mismatches, 0, "\(format) plane \(index)")
      }
      // Against libswscale's conversion: luma differs by rounding only; chroma by its
      // vertical filter on 4:2:2 (the pattern's sharp edges), small on average.
      var offset = 0
      for index in 0..<3 {
        let a = planes.picture.plane(index)
        var worst = 0, total = 0
        for r in 0..<a.height {
          for c in 0..<a.width {
            let d = abs(Int(a.base[r * a.stride + c]) - Int(toolYUV420[offset + r * a.width + c]))
            worst = max(worst, d)
            total += d
          }
        }
        offset += a.width * a.height
        if index == 0 {
          XCTAssertLessThanOrEqual(worst, 1, "\(format) luma against ffmpeg")
        } else {
          XCTAssertLessThan(Double(total) / Double(a.width * a.height), format == "yuvj420p" ? 0.6 : 2.0, "\(format) plane \(index)")
        }
      }
    }
  }

  private func maxDifference(_ a: BGRA, _ b: BGRA) -> Int {
    max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
  }
}
