import CamfxCore
import CamfxCapture
import CamfxPixelFormats
import Foundation
import XCTest

/// A camera's compressed frames (Motion-JPEG, H.264) decoded to BGRA and straight to yuv420p.
final class CompressedFrameDecoderTests: XCTestCase {
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
    let decoder = try CompressedFrameDecoder()
    let frame = PixelBuffer(width: 64, height: 48)
    XCTAssertEqual(jpeg.withUnsafeBytes { decoder.decode($0, into: frame) }, .decoded)
    XCTAssertLessThanOrEqual(maxDifference(frame[8, 24], BGRA(r: 255, g: 0, b: 0)), 6, "\(frame[8, 24])")
    XCTAssertLessThanOrEqual(maxDifference(frame[56, 24], BGRA(r: 0, g: 0, b: 255)), 6, "\(frame[56, 24])")
  }

  func testCorruptAndWrongSizedFramesAreRejected() throws {
    let jpeg = try makeRedBlueJPEG()
    let decoder = try CompressedFrameDecoder()
    let frame = PixelBuffer(width: 64, height: 48)
    let planes = YUV420Planes(width: 64, height: 48)
    let garbage = [UInt8](repeating: 0x5A, count: 4000)
    XCTAssertEqual(garbage.withUnsafeBytes { decoder.decode($0, into: frame) }, .corrupt)
    XCTAssertEqual(garbage.withUnsafeBytes { decoder.decode($0, into: planes.picture) }, .corrupt)
    let truncated = Array(jpeg.prefix(jpeg.count / 3))
    XCTAssertEqual(truncated.withUnsafeBytes { decoder.decode($0, into: frame) }, .corrupt)
    XCTAssertEqual(truncated.withUnsafeBytes { decoder.decode($0, into: planes.picture) }, .corrupt)
    XCTAssertEqual([UInt8]().withUnsafeBytes { decoder.decode($0, into: planes.picture) }, .corrupt)
    XCTAssertEqual(jpeg.withUnsafeBytes { decoder.decode($0, into: PixelBuffer(width: 32, height: 48)) }, .corrupt)
    XCTAssertEqual(jpeg.withUnsafeBytes { decoder.decode($0, into: YUV420Planes(width: 64, height: 46).picture) }, .corrupt)
    // The decoder recovers: the next good frame decodes.
    XCTAssertEqual(jpeg.withUnsafeBytes { decoder.decode($0, into: frame) }, .decoded)
    XCTAssertEqual(jpeg.withUnsafeBytes { decoder.decode($0, into: planes.picture) }, .decoded)
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
      // libavcodec's decoder, which the ffmpeg tool runs too (libjpeg-turbo's IDCT
      // rounds some samples the other way: the next test).
      let decoder = try CompressedFrameDecoder(turboJPEG: false)
      XCTAssertEqual(jpeg.withUnsafeBytes { decoder.decode($0, into: planes.picture) }, .decoded, format)
      XCTAssertEqual(decoder.framesDecodedByTurboJPEG, 0)

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

  /// libjpeg-turbo decodes 4:2:2 and 4:2:0 JPEGs (ffmpeg's, and TurboJPEG's own as a
  /// camera's chip makes them) to the same yuv420p as libavcodec, within the IDCTs'
  /// rounding, at sizes with and without whole MCUs; grey and 4:4:4 JPEGs, and damaged
  /// ones, go to libavcodec, which decodes the first and rejects the last.
  func testTurboJPEGDecodesCameraJPEGsAsLibavcodecDoes() throws {
    for (width, height) in [(98, 62), (1920, 1080), (640, 480)] {
      for format in ["yuvj422p", "yuvj420p", "yuvj444p", "gray"] {
        let jpeg = try makeJPEG("testsrc2=size=\(width)x\(height)", pixelFormat: format)
        let turbo = try CompressedFrameDecoder(), libavcodec = try CompressedFrameDecoder(turboJPEG: false)
        let a = YUV420Planes(width: width, height: height), b = YUV420Planes(width: width, height: height)
        XCTAssertEqual(jpeg.withUnsafeBytes { turbo.decode($0, into: a.picture) }, .decoded, "\(format) \(width)x\(height)")
        XCTAssertEqual(jpeg.withUnsafeBytes { libavcodec.decode($0, into: b.picture) }, .decoded)
        let byTurbo = format == "yuvj422p" || format == "yuvj420p"
        XCTAssertEqual(turbo.framesDecodedByTurboJPEG, byTurbo ? 1 : 0, "\(format) \(width)x\(height)")
        for index in 0..<3 {
          let p = a.picture.plane(index), q = b.picture.plane(index)
          var worst = 0, total = 0
          for r in 0..<p.height {
            for c in 0..<p.width {
              let d = abs(Int(p.base[r * p.stride + c]) - Int(q.base[r * q.stride + c]))
              worst = max(worst, d)
              total += d
            }
          }
          XCTAssertLessThanOrEqual(worst, 2, "\(format) \(width)x\(height) plane \(index)")
          XCTAssertLessThan(Double(total) / Double(p.width * p.height), 0.1, "\(format) \(width)x\(height) plane \(index)")
        }
        // Cut short, or with its entropy-coded data overwritten: no picture from either.
        if byTurbo {
          let truncated = Array(jpeg.prefix(jpeg.count * 2 / 3))
          XCTAssertEqual(truncated.withUnsafeBytes { turbo.decode($0, into: a.picture) }, .corrupt, "\(format) cut short")
          var damaged = jpeg
          for i in stride(from: jpeg.count / 2, to: jpeg.count / 2 + 64, by: 1) { damaged[i] = 0xFF }
          XCTAssertEqual(damaged.withUnsafeBytes { turbo.decode($0, into: a.picture) }, .corrupt, "\(format) damaged")
          XCTAssertEqual(turbo.framesDecodedByTurboJPEG, 1)
        }
      }
    }
  }

  /// `count` frames of the moving test pattern as H.264 access units, as an H.264
  /// camera sends them: Annex B, SPS and PPS on every keyframe (one every `gop` frames),
  /// no B-frames. The encoder marks each access unit with a delimiter (NAL type 9),
  /// which is where the stream is split here, so the split does not rely on the code
  /// under test.
  func makeH264Frames(count: Int, gop: Int, width: Int = 64, height: Int = 48) throws -> [[UInt8]] {
    let stream = Array(try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=25", "-frames:v", "\(count)",
      "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "0", "-g", "\(gop)", "-keyint_min", "\(gop)", "-sc_threshold", "0",
      "-x264-params", "repeat-headers=1:aud=1", "-f", "h264", "-",
    ]))
    var starts: [Int] = []
    var i = 0
    while i + 4 < stream.count {
      if stream[i] == 0, stream[i + 1] == 0, stream[i + 2] == 0, stream[i + 3] == 1, stream[i + 4] & 0x1F == 9 {
        starts.append(i)
      }
      i += 1
    }
    starts.append(stream.count)
    return (0..<starts.count - 1).map { Array(stream[starts[$0]..<starts[$0 + 1]]) }
  }

  func testH264KeyframesAndParameterSetsAreFound() throws {
    let frames = try makeH264Frames(count: 12, gop: 5)
    XCTAssertEqual(frames.count, 12)
    XCTAssertEqual(frames.indices.filter { i in frames[i].withUnsafeBytes { H264Bitstream.isKeyframe($0) } }, [0, 5, 10])
    for i in [0, 5, 10] {
      let sets = frames[i].withUnsafeBytes { H264Bitstream.parameterSets(in: $0) }
      XCTAssertEqual(Array(sets.prefix(5)), [0, 0, 0, 1, 0x67], "frame \(i) starts its header with an SPS")
      XCTAssertTrue(frames[i].withUnsafeBytes { H264Bitstream.hasParameterSets($0) })
    }
    XCTAssertEqual(frames[3].withUnsafeBytes { H264Bitstream.parameterSets(in: $0) }, [])
    XCTAssertTrue(frames.allSatisfy { f in f.withUnsafeBytes { H264Bitstream.startsWithStartCode($0) } })
    XCTAssertFalse([0xFF, 0xD8, 0xFF].withUnsafeBytes { H264Bitstream.startsWithStartCode($0) })
  }

  /// A stream joined at frame 2 (as a camera's first buffer usually is) waits for the
  /// keyframe at 5; the pictures are the ffmpeg tool's, exactly; a damaged frame, and
  /// the frames that refer to it, are rejected until the next keyframe.
  func testH264IsDecodedFromAKeyframeAndRejectedAfterDamageUntilTheNext() throws {
    let (width, height) = (64, 48)
    let frames = try makeH264Frames(count: 12, gop: 5, width: width, height: height)
    let decoder = try CompressedFrameDecoder(codec: .h264)
    let planes = YUV420Planes(width: width, height: height)
    var outcomes: [CompressedFrameDecoder.Outcome] = []
    var picture6: [UInt8] = []
    for i in 2..<12 {
      var bytes = frames[i]
      if i == 7 {
        // Damage the slice data (past the delimiter and the slice header).
        for j in bytes.count / 2..<bytes.count { bytes[j] ^= 0x5A }
      }
      outcomes.append(bytes.withUnsafeBytes { decoder.decode($0, into: planes.picture) })
      if i == 6 {
        for index in 0..<3 {
          let p = planes.picture.plane(index)
          for r in 0..<p.height { picture6 += UnsafeBufferPointer(start: p.base + r * p.stride, count: p.width) }
        }
      }
    }
    XCTAssertEqual(outcomes, [
      .waitingForKeyframe, .waitingForKeyframe, .waitingForKeyframe,  // 2, 3, 4
      .decoded, .decoded,  // 5, 6
      .corrupt, .corrupt, .corrupt,  // 7 (damaged), 8 and 9 (refer to it)
      .decoded, .decoded,  // 10 (keyframe), 11
    ])
    let tool = try runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=25", "-frames:v", "12",
      "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "0", "-g", "5", "-keyint_min", "5", "-sc_threshold", "0",
      "-x264-params", "repeat-headers=1:aud=1", "-f", "h264", "-",
    ])
    let path = NSTemporaryDirectory() + "camfx-h264-\(UUID().uuidString).h264"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try tool.write(to: URL(fileURLWithPath: path))
    let decoded = Array(try runTool("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]))
    let frameBytes = width * height * 3 / 2
    XCTAssertEqual(decoded.count, 12 * frameBytes)
    XCTAssertEqual(picture6, Array(decoded[6 * frameBytes..<7 * frameBytes]), "frame 6 is the ffmpeg tool's picture")

    // BGRA too, from a fresh decoder: the first keyframe is the first picture.
    let bgraDecoder = try CompressedFrameDecoder(codec: .h264)
    let frame = PixelBuffer(width: width, height: height)
    XCTAssertEqual(frames[3].withUnsafeBytes { bgraDecoder.decode($0, into: frame) }, .waitingForKeyframe)
    XCTAssertEqual(frames[5].withUnsafeBytes { bgraDecoder.decode($0, into: frame) }, .decoded)
    XCTAssertEqual(frames[6].withUnsafeBytes { bgraDecoder.decode($0, into: PixelBuffer(width: 32, height: 48)) }, .corrupt)

    // A frame the driver lost (a gap in its sequence): the next frames refer to it, so
    // they wait for the keyframe too.
    let gapDecoder = try CompressedFrameDecoder(codec: .h264)
    XCTAssertEqual(frames[0].withUnsafeBytes { gapDecoder.decode($0, width: width, height: height) }, .decoded)
    XCTAssertEqual(frames[1].withUnsafeBytes { gapDecoder.decode($0, width: width, height: height) }, .decoded)
    gapDecoder.framesWereLost()
    XCTAssertEqual(frames[3].withUnsafeBytes { gapDecoder.decode($0, width: width, height: height) }, .corrupt)
    XCTAssertFalse(gapDecoder.copyPicture(into: planes.picture), "no picture after a rejected frame")
    XCTAssertEqual(frames[5].withUnsafeBytes { gapDecoder.decode($0, width: width, height: height) }, .decoded)
    XCTAssertTrue(gapDecoder.copyPicture(into: planes.picture))
  }

  private func maxDifference(_ a: BGRA, _ b: BGRA) -> Int {
    max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
  }
}
