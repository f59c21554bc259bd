import CFFmpeg
import CamfxCapture
import CamfxCore
import XCTest
import CamfxPixelFormats

/// A small deterministic generator so failures reproduce.
struct SplitMix64 {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
  mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in byte() } }
}

/// BT.601 limited range in floating point: the formula the converters approximate.
func referenceBGRA(y: UInt8, cb: UInt8, cr: UInt8) -> BGRA {
  let yy = 1.164383 * (Double(y) - 16), u = Double(cb) - 128, v = Double(cr) - 128
  func c(_ x: Double) -> UInt8 { UInt8(min(max(x.rounded(), 0), 255)) }
  return BGRA(
    r: c(yy + 1.596027 * v), g: c(yy - 0.391762 * u - 0.812968 * v), b: c(yy + 2.017232 * u))
}

/// `PixelConverter.convertNV12` on planes held in byte arrays, as the tests hold them.
func convertNV12(luma: [UInt8], lumaStride: Int, chroma: [UInt8], chromaStride: Int, to dst: PixelBuffer) {
  luma.withUnsafeBytes { l in
    chroma.withUnsafeBytes { c in
      PixelConverter.convertNV12(
        luma: l.baseAddress!, lumaBytesPerRow: lumaStride, chroma: c.baseAddress!, chromaBytesPerRow: chromaStride,
        to: dst)
    }
  }
}

/// `PixelConverter.convertI420` on planes held in byte arrays.
func convertI420(luma: [UInt8], lumaStride: Int, cb: [UInt8], cr: [UInt8], chromaStride: Int, to dst: PixelBuffer) {
  luma.withUnsafeBytes { l in
    cb.withUnsafeBytes { u in
      cr.withUnsafeBytes { v in
        PixelConverter.convertI420(
          luma: l.baseAddress!, lumaBytesPerRow: lumaStride, cb: u.baseAddress!, cr: v.baseAddress!,
          chromaBytesPerRow: chromaStride, to: dst)
      }
    }
  }
}

func maxChannelDifference(_ a: BGRA, _ b: BGRA) -> Int {
  max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)), abs(Int(a.a) - Int(b.a)))
}

/// Sizes covering the SIMD body, the scalar tail, odd sides and a single pixel.
let converterSizes: [(Int, Int)] = [(1, 1), (2, 2), (3, 3), (15, 2), (16, 4), (17, 5), (33, 7), (64, 3), (101, 9)]

final class PixelConverterTests: XCTestCase {
  func testYUYVMatchesFloatReferenceOnOddAndPaddedSizes() {
    var rng = SplitMix64(state: 1)
    for (w, h) in converterSizes {
      let pairs = (w + 1) / 2
      let stride = pairs * 4 + 12  // padded source rows
      let src = rng.bytes(stride * h)
      let dst = PixelBuffer(width: w, height: h, bytesPerRow: w * 4 + 36)  // padded destination rows
      src.withUnsafeBytes { PixelConverter.convertYUYV(source: $0.baseAddress!, sourceBytesPerRow: stride, to: dst) }
      var worst = 0
      for y in 0..<h {
        for x in 0..<w {
          let p = y * stride + (x / 2) * 4
          let want = referenceBGRA(y: src[p + (x % 2) * 2], cb: src[p + 1], cr: src[p + 3])
          worst = max(worst, maxChannelDifference(dst[x, y], want))
        }
      }
      XCTAssertLessThanOrEqual(worst, 1, "YUYV \(w)x\(h)")
    }
  }

  func testNV12MatchesFloatReferenceOnOddAndPaddedSizes() {
    var rng = SplitMix64(state: 2)
    for (w, h) in converterSizes {
      let lumaStride = w + 5, chromaStride = (w + 1) / 2 * 2 + 3
      let luma = rng.bytes(lumaStride * h)
      let chroma = rng.bytes(chromaStride * ((h + 1) / 2))
      let dst = PixelBuffer(width: w, height: h)
      convertNV12(luma: luma, lumaStride: lumaStride, chroma: chroma, chromaStride: chromaStride, to: dst)
      var worst = 0
      for y in 0..<h {
        for x in 0..<w {
          let c = (y / 2) * chromaStride + (x / 2) * 2
          let want = referenceBGRA(y: luma[y * lumaStride + x], cb: chroma[c], cr: chroma[c + 1])
          worst = max(worst, maxChannelDifference(dst[x, y], want))
        }
      }
      XCTAssertLessThanOrEqual(worst, 1, "NV12 \(w)x\(h)")
    }
  }

  func testI420MatchesFloatReference() {
    var rng = SplitMix64(state: 3)
    for (w, h) in converterSizes {
      let cw = (w + 1) / 2, ch = (h + 1) / 2
      let luma = rng.bytes(w * h), cb = rng.bytes(cw * ch), cr = rng.bytes(cw * ch)
      let dst = PixelBuffer(width: w, height: h)
      convertI420(luma: luma, lumaStride: w, cb: cb, cr: cr, chromaStride: cw, to: dst)
      var worst = 0
      for y in 0..<h {
        for x in 0..<w {
          let c = (y / 2) * cw + x / 2
          worst = max(worst, maxChannelDifference(dst[x, y], referenceBGRA(y: luma[y * w + x], cb: cb[c], cr: cr[c])))
        }
      }
      XCTAssertLessThanOrEqual(worst, 1, "I420 \(w)x\(h)")
    }
  }

  func testKnownColoursOfLimitedRange() {
    // White, black and the 75% bars vivid and test cards send, as YUYV pairs.
    let cases: [(y: UInt8, cb: UInt8, cr: UInt8, want: BGRA)] = [
      (235, 128, 128, BGRA(r: 255, g: 255, b: 255)),
      (16, 128, 128, BGRA(r: 0, g: 0, b: 0)),
      (162, 44, 142, BGRA(r: 191, g: 191, b: 0)),  // 75% yellow
      (65, 100, 212, BGRA(r: 191, g: 0, b: 0)),  // 75% red
      (35, 212, 114, BGRA(r: 0, g: 0, b: 191)),  // 75% blue
    ]
    for c in cases {
      let src: [UInt8] = [c.y, c.cb, c.y, c.cr]
      let dst = PixelBuffer(width: 2, height: 1)
      src.withUnsafeBytes { PixelConverter.convertYUYV(source: $0.baseAddress!, sourceBytesPerRow: 4, to: dst) }
      XCTAssertLessThanOrEqual(maxChannelDifference(dst[0, 0], c.want), 1, "\(c) -> \(dst[0, 0])")
      XCTAssertEqual(dst[0, 0], dst[1, 0])
    }
  }

  func testRGB24AndBGR24AreExact() {
    var rng = SplitMix64(state: 4)
    for (w, h) in converterSizes {
      let stride = w * 3 + 7
      let src = rng.bytes(stride * h)
      let rgb = PixelBuffer(width: w, height: h), bgr = PixelBuffer(width: w, height: h)
      src.withUnsafeBytes {
        PixelConverter.convertRGB24(source: $0.baseAddress!, sourceBytesPerRow: stride, to: rgb)
        PixelConverter.convertBGR24(source: $0.baseAddress!, sourceBytesPerRow: stride, to: bgr)
      }
      for y in 0..<h {
        for x in 0..<w {
          let p = y * stride + x * 3
          XCTAssertEqual(rgb[x, y], BGRA(r: src[p], g: src[p + 1], b: src[p + 2]))
          XCTAssertEqual(bgr[x, y], BGRA(r: src[p + 2], g: src[p + 1], b: src[p]))
        }
      }
    }
  }

  // MARK: Against libswscale

  /// Converts with swscale (point sampling, accurate rounding) and returns BGRA rows.
  func swscaleToBGRA(format: AVPixelFormat, width: Int, height: Int, planes: [[UInt8]], strides: [Int]) throws -> [UInt8] {
    let flags = Int32(SWS_POINT | SWS_ACCURATE_RND | SWS_BITEXACT | SWS_FULL_CHR_H_INT)
    guard let ctx = sws_getContext(Int32(width), Int32(height), format, Int32(width), Int32(height), AV_PIX_FMT_BGRA, flags, nil, nil, nil)
    else { throw XCTSkip("swscale cannot convert \(format)") }
    defer { sws_freeContext(ctx) }
    var out = [UInt8](repeating: 0, count: width * height * 4)
    let planeCopies = planes.map { p -> UnsafeMutablePointer<UInt8> in
      let m = UnsafeMutablePointer<UInt8>.allocate(capacity: p.count + 64)
      m.initialize(repeating: 0, count: p.count + 64)
      m.update(from: p, count: p.count)
      return m
    }
    defer { planeCopies.forEach { $0.deallocate() } }
    let srcPointers: [UnsafePointer<UInt8>?] = planeCopies.map { UnsafePointer($0) } + [nil, nil, nil]
    let srcStrides: [Int32] = strides.map { Int32($0) } + [0, 0, 0]
    let rows = out.withUnsafeMutableBufferPointer { o -> Int32 in
      var dstPointers: [UnsafeMutablePointer<UInt8>?] = [o.baseAddress, nil, nil, nil]
      let dstStrides: [Int32] = [Int32(width * 4), 0, 0, 0]
      return sws_scale(ctx, srcPointers, srcStrides, 0, Int32(height), &dstPointers, dstStrides)
    }
    XCTAssertEqual(Int(rows), height)
    return out
  }

  func assertClose(_ dst: PixelBuffer, _ reference: [UInt8], tolerance: Int, _ what: String) {
    var worst = 0
    for y in 0..<dst.height {
      for x in 0..<dst.width {
        let p = (y * dst.width + x) * 4
        let want = BGRA(b: reference[p], g: reference[p + 1], r: reference[p + 2], a: reference[p + 3])
        worst = max(worst, maxChannelDifference(dst[x, y], want))
      }
    }
    XCTAssertLessThanOrEqual(worst, tolerance, what)
  }

  func testYUYVAgreesWithSwscale() throws {
    var rng = SplitMix64(state: 5)
    let (w, h) = (64, 8)
    // Limited-range samples, so both sides work inside the nominal range.
    let src: [UInt8] = (0..<(w * h * 2)).map { _ in UInt8(16 + Int(rng.byte()) % 220) }
    let dst = PixelBuffer(width: w, height: h)
    src.withUnsafeBytes { PixelConverter.convertYUYV(source: $0.baseAddress!, sourceBytesPerRow: w * 2, to: dst) }
    let reference = try swscaleToBGRA(format: AV_PIX_FMT_YUYV422, width: w, height: h, planes: [src], strides: [w * 2])
    assertClose(dst, reference, tolerance: 2, "YUYV vs swscale")
  }

  func testNV12AgreesWithSwscale() throws {
    var rng = SplitMix64(state: 6)
    let (w, h) = (64, 8)
    let luma: [UInt8] = (0..<(w * h)).map { _ in UInt8(16 + Int(rng.byte()) % 220) }
    // Chroma constant over each 2x2 block and smooth between blocks, so swscale's
    // chroma siting cannot make a difference larger than rounding.
    let chroma: [UInt8] = (0..<(w * h / 2)).map { (i: Int) -> UInt8 in
      let ramp = (i / 2) % 32
      return UInt8(i % 2 == 0 ? 100 + ramp : 140 - ramp)
    }
    let dst = PixelBuffer(width: w, height: h)
    convertNV12(luma: luma, lumaStride: w, chroma: chroma, chromaStride: w, to: dst)
    let reference = try swscaleToBGRA(format: AV_PIX_FMT_NV12, width: w, height: h, planes: [luma, chroma], strides: [w, w])
    assertClose(dst, reference, tolerance: 2, "NV12 vs swscale")
  }

  // MARK: Straight to yuv420p (the camera's path without BGRA)

  /// Widths around the vector steps (16 and 32 pixels a step; the AVX2 loops 32 and 64),
  /// odd and tiny ones, and odd heights, whose last row is its own pair.
  static let yuv420Sizes = [(1, 3), (2, 1), (3, 3), (31, 2), (32, 4), (33, 5), (34, 2), (63, 7), (64, 4), (66, 3), (88, 3), (98, 6), (130, 9), (1030, 4)]

  /// YUYV to yuv420p: Y as it is, each chroma sample the rounded-up mean of the two rows
  /// (`(a + b + 1) >> 1`, as libyuv's `YUY2ToI420`), on random bytes with padded rows.
  func testYUYVToYUV420CopiesLumaAndAveragesChromaOfEachRowPair() {
    var random = SplitMix64(state: 39)
    for (width, height) in Self.yuv420Sizes {
      let stride = (width + 1) / 2 * 4 + 12
      let source = random.bytes(stride * height)
      let planes = YUV420Planes(width: width, height: height)
      source.withUnsafeBytes { YUVSourceLayout.yuyv($0.baseAddress!, bytesPerRow: stride).convert(to: planes.picture) }
      let p = planes.picture
      for row in 0..<height {
        for x in 0..<width {
          XCTAssertEqual(p.y[row * p.yStride + x], source[row * stride + 2 * x], "Y (\(x), \(row)) at \(width)x\(height)")
        }
      }
      for row in 0..<p.chromaHeight {
        let top = 2 * row * stride, bottom = min(2 * row + 1, height - 1) * stride
        for x in 0..<p.chromaWidth {
          let u = (Int(source[top + 4 * x + 1]) + Int(source[bottom + 4 * x + 1]) + 1) >> 1
          let v = (Int(source[top + 4 * x + 3]) + Int(source[bottom + 4 * x + 3]) + 1) >> 1
          XCTAssertEqual(Int(p.u[row * p.uStride + x]), u, "U (\(x), \(row)) at \(width)x\(height)")
          XCTAssertEqual(Int(p.v[row * p.vStride + x]), v, "V (\(x), \(row)) at \(width)x\(height)")
        }
      }
    }
  }

  /// NV12 to yuv420p: both planes' samples exactly where they were, U and V split; with
  /// padded rows, and with rows back to back on both sides (one copy of the luma plane).
  func testNV12ToYUV420SplitsChromaExactly() {
    var random = SplitMix64(state: 40)
    for (width, height) in Self.yuv420Sizes {
      for padded in [true, false] {
        let lumaStride = padded ? width + 5 : width, chromaStride = (width + 1) / 2 * 2 + (padded ? 10 : 0)
        let chromaHeight = (height + 1) / 2, chromaWidth = (width + 1) / 2
        let luma = random.bytes(lumaStride * height), chroma = random.bytes(chromaStride * chromaHeight)
        // Padded: the pool's planes; back to back: planes whose rows are the width.
        let planes = YUV420Planes(width: width, height: height)
        let y = UnsafeMutablePointer<UInt8>.allocate(capacity: width * height)
        let u = UnsafeMutablePointer<UInt8>.allocate(capacity: chromaWidth * chromaHeight)
        let v = UnsafeMutablePointer<UInt8>.allocate(capacity: chromaWidth * chromaHeight)
        defer { y.deallocate(); u.deallocate(); v.deallocate() }
        let p = padded
          ? planes.picture
          : YUV420Picture(width: width, height: height, y: y, yStride: width, u: u, uStride: chromaWidth, v: v, vStride: chromaWidth)
        luma.withUnsafeBytes { l in
          chroma.withUnsafeBytes { c in
            YUVSourceLayout.nv12(luma: l.baseAddress!, lumaBytesPerRow: lumaStride, chroma: c.baseAddress!, chromaBytesPerRow: chromaStride)
              .convert(to: p)
          }
        }
        checkNV12(p, luma: luma, lumaStride: lumaStride, chroma: chroma, chromaStride: chromaStride)
      }
    }
  }

  private func checkNV12(_ p: YUV420Picture, luma: [UInt8], lumaStride: Int, chroma: [UInt8], chromaStride: Int) {
    let what = "at \(p.width)x\(p.height), luma rows of \(lumaStride)"
    for row in 0..<p.height {
      XCTAssertEqual(
        Array(UnsafeBufferPointer(start: p.y + row * p.yStride, count: p.width)),
        Array(luma[row * lumaStride..<row * lumaStride + p.width]), "Y row \(row) \(what)")
    }
    for row in 0..<p.chromaHeight {
      let line = row * chromaStride
      XCTAssertEqual(
        Array(UnsafeBufferPointer(start: p.u + row * p.uStride, count: p.chromaWidth)),
        (0..<p.chromaWidth).map { chroma[line + 2 * $0] }, "U row \(row) \(what)")
      XCTAssertEqual(
        Array(UnsafeBufferPointer(start: p.v + row * p.vStride, count: p.chromaWidth)),
        (0..<p.chromaWidth).map { chroma[line + 2 * $0 + 1] }, "V row \(row) \(what)")
    }
  }
}
