import CFFmpeg
import CamfxCore
import CamfxFFmpeg
import CamfxMedia
import XCTest
import CamfxPixelFormats

final class BGRAToYUV420Tests: XCTestCase {
  /// A smooth picture: gradients in every channel plus flat blocks, what cameras give.
  private func smoothFrame(width: Int, height: Int, bytesPerRow: Int? = nil) -> PixelBuffer {
    let buffer = PixelBuffer(width: width, height: height, bytesPerRow: bytesPerRow)
    for y in 0..<height {
      for x in 0..<width {
        let r = UInt8((x * 255) / max(width - 1, 1))
        let g = UInt8((y * 255) / max(height - 1, 1))
        let b = UInt8(((x + y) * 127) / max(width + height - 2, 1) + (x / 32 % 2) * 120)
        buffer[x, y] = BGRA(r: r, g: g, b: b)
      }
    }
    return buffer
  }

  /// Pseudo-random pixels (a fixed LCG), the worst case for chroma averaging.
  private func noiseFrame(width: Int, height: Int, bytesPerRow: Int? = nil) -> PixelBuffer {
    let buffer = PixelBuffer(width: width, height: height, bytesPerRow: bytesPerRow)
    var state: UInt32 = 12345
    for y in 0..<height {
      for x in 0..<width {
        state = state &* 1_664_525 &+ 1_013_904_223
        buffer[x, y] = BGRA(b: UInt8(state >> 24), g: UInt8((state >> 16) & 0xFF), r: UInt8((state >> 8) & 0xFF))
      }
    }
    return buffer
  }

  /// Largest difference per plane between two conversions.
  private func maxDifference(_ a: YUV420Planes, _ b: YUV420Planes) -> (y: Int, u: Int, v: Int) {
    var dy = 0, du = 0, dv = 0
    for row in 0..<a.height {
      for x in 0..<a.width { dy = max(dy, abs(Int(a.luma(x: x, y: row)) - Int(b.luma(x: x, y: row)))) }
    }
    for row in 0..<a.chromaHeight {
      for x in 0..<a.chromaWidth {
        du = max(du, abs(Int(a.cb(x: x, y: row)) - Int(b.cb(x: x, y: row))))
        dv = max(dv, abs(Int(a.cr(x: x, y: row)) - Int(b.cr(x: x, y: row))))
      }
    }
    return (dy, du, dv)
  }

  func testMatchesLibswscaleWithinTwo() throws {
    // Widths that exercise the 16-pixel SIMD steps and the scalar tail; padded rows.
    for (w, h, stride) in [(640, 360, nil), (48, 16, nil), (34, 18, 256), (16, 4, nil), (1280, 8, 1280 * 4 + 192)] as [(Int, Int, Int?)] {
      let frame = smoothFrame(width: w, height: h, bytesPerRow: stride)
      let reference = YUV420Planes(width: w, height: h)
      try Swscale(width: w, height: h, format: AV_PIX_FMT_YUV420P).convert(frame, into: reference)
      for kernel in BGRAToYUV420.Kernel.allCases {
        let ours = YUV420Planes(width: w, height: h)
        BGRAToYUV420.convert(frame, into: ours, kernel: kernel)
        let d = maxDifference(ours, reference)
        XCTAssertLessThanOrEqual(d.y, 2, "\(w)x\(h) Y \(kernel)")
        XCTAssertLessThanOrEqual(d.u, 2, "\(w)x\(h) U \(kernel)")
        XCTAssertLessThanOrEqual(d.v, 2, "\(w)x\(h) V \(kernel)")
      }
    }
  }

  func testLumaMatchesLibswscaleOnNoise() throws {
    let frame = noiseFrame(width: 96, height: 20)
    let ours = YUV420Planes(width: 96, height: 20), reference = YUV420Planes(width: 96, height: 20)
    BGRAToYUV420.convert(frame, into: ours, kernel: .simd)
    try Swscale(width: 96, height: 20, format: AV_PIX_FMT_YUV420P).convert(frame, into: reference)
    XCTAssertLessThanOrEqual(maxDifference(ours, reference).y, 2)
  }

  /// Every sample against the BT.601 formula in doubles, for noise (so the SIMD lanes
  /// and the 2×2 averaging are checked sample by sample), odd sizes and crops.
  func testEverySampleMatchesTheFormula() {
    for (w, h) in [(1, 1), (3, 5), (17, 3), (33, 4), (64, 2)] {
      var frame = noiseFrame(width: w + 3, height: h + 2, bytesPerRow: (w + 3) * 4 + 20)
      frame.crop(x: 2, y: 1, width: w, height: h)  // an offset view with padded rows
      let planes = YUV420Planes(width: w, height: h)
      BGRAToYUV420.convert(frame, into: planes, kernel: .simd)
      for y in 0..<h {
        for x in 0..<w {
          let p = frame[x, y]
          let e = referenceYUV(r: Int(p.r), g: Int(p.g), b: Int(p.b))
          XCTAssertEqual(Double(planes.luma(x: x, y: y)), e.y, accuracy: 1, "\(w)x\(h) Y(\(x),\(y))")
        }
      }
      for cy in 0..<planes.chromaHeight {
        for cx in 0..<planes.chromaWidth {
          // A missing neighbour at an odd edge is the edge pixel itself.
          let q = [(0, 0), (1, 0), (0, 1), (1, 1)].map { frame[min(2 * cx + $0.0, w - 1), min(2 * cy + $0.1, h - 1)] }
          // The exact 2×2 mean; the converter's two rounding averages may be up to 3/4 above it.
          func mean(_ c: (BGRA) -> UInt8) -> Int { (q.map { Int(c($0)) }.reduce(0, +) + 2) / 4 }
          let e = referenceYUV(r: mean(\.r), g: mean(\.g), b: mean(\.b))
          XCTAssertEqual(Double(planes.cb(x: cx, y: cy)), e.u, accuracy: 1.5, "\(w)x\(h) U(\(cx),\(cy))")
          XCTAssertEqual(Double(planes.cr(x: cx, y: cy)), e.v, accuracy: 1.5, "\(w)x\(h) V(\(cx),\(cy))")
        }
      }
    }
  }

  /// The SIMD loops (16 or 32 columns at a time, whichever the build has) and the
  /// scalar loop (2 at a time) give identical samples, on noise and on padded, offset
  /// rows, with widths that leave every kind of remainder.
  func testSIMDAndScalarKernelsAgreeExactly() {
    for (w, h) in [(48, 6), (640, 36), (35, 7), (64, 3), (97, 5), (1920, 2)] {
      var frame = noiseFrame(width: w + 5, height: h + 1, bytesPerRow: (w + 5) * 4 + 36)
      frame.crop(x: 3, y: 1, width: w, height: h)
      let scalar = YUV420Planes(width: w, height: h)
      BGRAToYUV420.convert(frame, into: scalar, kernel: .scalar)
      for kernel in BGRAToYUV420.Kernel.allCases where kernel != .scalar {
        let planes = YUV420Planes(width: w, height: h)
        BGRAToYUV420.convert(frame, into: planes, kernel: kernel)
        let d = maxDifference(planes, scalar)
        XCTAssertEqual(d.y, 0, "\(w)x\(h) \(kernel)")
        XCTAssertEqual(d.u, 0, "\(w)x\(h) \(kernel)")
        XCTAssertEqual(d.v, 0, "\(w)x\(h) \(kernel)")
      }
    }
  }

  /// The extremes of every weighted sum: black, white, each primary and its complement,
  /// alone and in 2×2 blocks mixed with their opposite, through every kernel.
  func testExtremeColoursAgreeExactly() {
    let colours = [
      BGRA(r: 0, g: 0, b: 0), BGRA(r: 255, g: 255, b: 255), BGRA(r: 255, g: 0, b: 0), BGRA(r: 0, g: 255, b: 255),
      BGRA(r: 0, g: 255, b: 0), BGRA(r: 255, g: 0, b: 255), BGRA(r: 0, g: 0, b: 255), BGRA(r: 255, g: 255, b: 0),
    ]
    let (w, h) = (64, 16)
    let frame = PixelBuffer(width: w, height: h)
    for y in 0..<h {
      for x in 0..<w { frame[x, y] = colours[(x / 2 + y / 2 + (x & y & 1) * 3) % colours.count] }
    }
    let scalar = YUV420Planes(width: w, height: h)
    BGRAToYUV420.convert(frame, into: scalar, kernel: .scalar)
    XCTAssertEqual(scalar.luma(x: 2, y: 0), 235, "white")  // colour 1
    for kernel in BGRAToYUV420.Kernel.allCases where kernel != .scalar {
      let planes = YUV420Planes(width: w, height: h)
      BGRAToYUV420.convert(frame, into: planes, kernel: kernel)
      XCTAssertEqual(maxDifference(planes, scalar).y, 0, "\(kernel)")
      XCTAssertEqual(maxDifference(planes, scalar).u, 0, "\(kernel)")
      XCTAssertEqual(maxDifference(planes, scalar).v, 0, "\(kernel)")
    }
  }

  /// Within the SIMD kernel, the 16-column loop and its 2-column tail agree: convert a
  /// noise frame whole, then as 2-pixel-wide crops (which only the tail handles).
  func testSIMDLoopAndItsTailAgreeExactly() {
    let frame = noiseFrame(width: 48, height: 6)
    let whole = YUV420Planes(width: 48, height: 6)
    BGRAToYUV420.convert(frame, into: whole, kernel: .simd)
    for x in stride(from: 0, to: 48, by: 2) {
      var strip = frame
      strip.crop(x: x, y: 0, width: 2, height: 6)
      let planes = YUV420Planes(width: 2, height: 6)
      BGRAToYUV420.convert(strip, into: planes, kernel: .simd)
      for y in 0..<6 {
        XCTAssertEqual(planes.luma(x: 0, y: y), whole.luma(x: x, y: y))
        XCTAssertEqual(planes.luma(x: 1, y: y), whole.luma(x: x + 1, y: y))
      }
      for y in 0..<3 {
        XCTAssertEqual(planes.cb(x: 0, y: y), whole.cb(x: x / 2, y: y), "U column \(x / 2) row \(y)")
        XCTAssertEqual(planes.cr(x: 0, y: y), whole.cr(x: x / 2, y: y), "V column \(x / 2) row \(y)")
      }
    }
  }

  /// libyuv's ARGBToI420 values (8-bit coefficients: pure green gives Y 144, not 144.55 rounded up).
  func testKnownColours() {
    let frame = PixelBuffer(width: 32, height: 2)
    let cases: [(BGRA, UInt8, UInt8, UInt8)] = [
      (BGRA(r: 0, g: 0, b: 0), 16, 128, 128), (BGRA(r: 255, g: 255, b: 255), 235, 128, 128),
      (BGRA(r: 255, g: 0, b: 0), 82, 90, 240), (BGRA(r: 0, g: 255, b: 0), 144, 54, 34),
      (BGRA(r: 0, g: 0, b: 255), 41, 240, 110),
    ]
    for (colour, y, u, v) in cases {
      frame.fill(colour)
      let planes = YUV420Planes(width: 32, height: 2)
      BGRAToYUV420.convert(frame, into: planes, kernel: .simd)
      for x in [0, 15, 16, 31] {
        XCTAssertEqual(planes.luma(x: x, y: 1), y, "\(colour)")
        XCTAssertEqual(planes.cb(x: x / 2, y: 0), u, "\(colour)")
        XCTAssertEqual(planes.cr(x: x / 2, y: 0), v, "\(colour)")
      }
    }
  }
}
