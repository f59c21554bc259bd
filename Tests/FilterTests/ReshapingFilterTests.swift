import Camfx
import CamfxCapture
import CamfxMedia
import Foundation
import XCTest
import CamfxPixelFormats

@testable import ScaleFilter

/// scale, fit, pad and rotate: each against a reference written here from the filter's
/// documented definition, on odd, 1×1 and padded frames, in BGRA and in yuv420p.
final class ReshapingFilterTests: XCTestCase {
  // MARK: - A floating-point reference for scale, independent of ResamplingTable

  /// The weights of destination sample `i` over source samples `0..<n` (edge samples
  /// repeated), straight from `ScaleMethod`'s definition.
  static func referenceWeights(_ method: ScaleMethod, n: Int, m: Int, i: Int) -> [Double] {
    var w = [Double](repeating: 0, count: n)
    let s = Double(n) / Double(m)
    func clampIndex(_ j: Int) -> Int { min(max(j, 0), n - 1) }
    switch method {
    case .nearest:
      w[clampIndex(Int(floor((Double(i) + 0.5) * s)))] = 1
    case .area:
      let lo = Double(i) * s, hi = Double(i + 1) * s
      for j in 0..<n {
        let overlap = min(hi, Double(j + 1)) - max(lo, Double(j))
        if overlap > 0 { w[j] += overlap }
      }
    case .bilinear, .fastBilinear, .bicubic:
      // fast_bilinear: the triangle never widened.
      let c = (Double(i) + 0.5) * s - 0.5, f = method == .fastBilinear ? 1 : max(1, s)
      let radius = method == .bicubic ? 2.0 : 1.0
      for j in Int(floor(c - radius * f))...Int(ceil(c + radius * f)) {
        let t = abs((Double(j) - c) / f)
        let k: Double
        if method != .bicubic {
          k = max(0, 1 - t)
        } else {
          let a = -0.6
          k = t <= 1 ? (a + 2) * t * t * t - (a + 3) * t * t + 1 : t < 2 ? a * t * t * t - 5 * a * t * t + 8 * a * t - 4 * a : 0
        }
        w[clampIndex(j)] += k
      }
    }
    let sum = w.reduce(0, +)
    return w.map { $0 / sum }
  }

  /// One channel of a `width × height` grid scaled to `outWidth × outHeight`, rounded.
  static func referenceScale(
    _ method: ScaleMethod, width: Int, height: Int, outWidth: Int, outHeight: Int, sample: (Int, Int) -> Double
  ) -> [[Int]] {
    let rows = (0..<outHeight).map { referenceWeights(method, n: height, m: outHeight, i: $0) }
    let columns = (0..<outWidth).map { referenceWeights(method, n: width, m: outWidth, i: $0) }
    return (0..<outHeight).map { y in
      (0..<outWidth).map { x in
        var sum = 0.0
        for sy in 0..<height where rows[y][sy] != 0 {
          for sx in 0..<width where columns[x][sx] != 0 { sum += rows[y][sy] * columns[x][sx] * sample(sx, sy) }
        }
        return min(max(Int(sum.rounded()), 0), 255)
      }
    }
  }

  static let scaleCases: [(FrameGeometry, FrameGeometry)] = [
    (FrameGeometry(width: 1, height: 1), FrameGeometry(width: 3, height: 2)),
    (FrameGeometry(width: 37, height: 23), FrameGeometry(width: 19, height: 31)),
    (FrameGeometry(width: 64, height: 48), FrameGeometry(width: 32, height: 24)),
    (FrameGeometry(width: 17, height: 5), FrameGeometry(width: 40, height: 11)),
    (FrameGeometry(width: 90, height: 30), FrameGeometry(width: 7, height: 4)),  // a wide shrink: many taps
    // Wide enough for every vector step of the kernels (64 samples, 16 pixels) and a rest.
    (FrameGeometry(width: 302, height: 10), FrameGeometry(width: 151, height: 5)),
    (FrameGeometry(width: 301, height: 9), FrameGeometry(width: 200, height: 6)),
    // An exact 3× growth: bicubic's windows at whole source pixels drop their taps of
    // weight 0 and start one pixel later than their neighbours'.
    (FrameGeometry(width: 40, height: 6), FrameGeometry(width: 120, height: 18)),
  ]

  func testScaleInBGRAIsWithinOneOfTheFloatingPointReference() throws {
    for (input, output) in Self.scaleCases {
      for method in ScaleMethod.allCases {
        var filter = try Scale(width: output.width, height: output.height, method: method)
        XCTAssertEqual(try filter.configure(input: input), output)
        let source = TestFrame(width: input.width, height: input.height, seed: 3)
        var destination = TestFrame(width: output.width, height: output.height, seed: 4)
        filter.process(source.frame, into: &destination.frame)
        destination.assertOutsideUntouched()
        source.assertOutsideUntouched()
        var worst = 0
        for channel in 0..<4 {
          let expected = Self.referenceScale(
            method, width: input.width, height: input.height, outWidth: output.width, outHeight: output.height
          ) { x, y in
            let p = source.pixels[y][x]
            return Double([p.b, p.g, p.r, p.a][channel])
          }
          for y in 0..<output.height {
            for x in 0..<output.width {
              let p = destination.frame[x, y]
              worst = max(worst, abs(Int([p.b, p.g, p.r, p.a][channel]) - expected[y][x]))
            }
          }
        }
        XCTAssertLessThanOrEqual(worst, 1, "\(method) \(input) → \(output)")
      }
    }
  }

  func testScaleInYUV420IsWithinOneOfTheReferencePerPlane() throws {
    for (input, output) in Self.scaleCases {
      for method in ScaleMethod.allCases {
        var chain = FilterChain([try Scale(width: output.width, height: output.height, method: method)])
        try chain.configure(input: input)
        XCTAssertTrue(chain.acceptsYUV420)
        let source = YUV420Planes(width: input.width, height: input.height)
        var rng = SplitMix64(seed: 9)
        for index in 0..<3 {
          let p = source.picture.plane(index)
          for r in 0..<p.height { for c in 0..<p.width { p.base[r * p.stride + c] = UInt8.random(in: 0...255, using: &rng) } }
        }
        let out = YUV420Planes(width: output.width, height: output.height)
        chain.process(yuv420: source.picture, into: out.picture, using: chain.makeYUV420Intermediates())
        for index in 0..<3 {
          let from = source.picture.plane(index), to = out.picture.plane(index)
          let expected = Self.referenceScale(
            method, width: from.width, height: from.height, outWidth: to.width, outHeight: to.height
          ) { x, y in Double(from.base[y * from.stride + x]) }
          var worst = 0
          for r in 0..<to.height {
            for c in 0..<to.width { worst = max(worst, abs(Int(to.base[r * to.stride + c]) - expected[r][c])) }
          }
          XCTAssertLessThanOrEqual(worst, 1, "\(method) \(input) → \(output), plane \(index)")
        }
      }
    }
  }

  /// Both orders of the passes on one plane, whichever this build prefers, against the
  /// floating-point reference: the horizontal-first order rounds at other places, so it
  /// is checked on its own.
  func testBothPassOrdersAreWithinOneOfTheReference() {
    var rng = SplitMix64(seed: 21)
    let cases = Self.scaleCases + [
      (FrameGeometry(width: 1920 / 4, height: 54), FrameGeometry(width: 1280 / 4, height: 36)),
      (FrameGeometry(width: 16, height: 16), FrameGeometry(width: 9, height: 7)),
      // About 20 bicubic taps a vertical window: each rounded product adds its error.
      (FrameGeometry(width: 98, height: 100), FrameGeometry(width: 63, height: 20)),
    ]
    for (input, output) in cases {
      let stride = input.width + 5
      let source = (0..<stride * input.height).map { _ in UInt8.random(in: 0...255, using: &rng) }
      for method in ScaleMethod.allCases {
        let expected = Self.referenceScale(
          method, width: input.width, height: input.height, outWidth: output.width, outHeight: output.height
        ) { x, y in Double(source[y * stride + x]) }
        for order in [PlaneScaler.PassOrder.verticalFirst, .horizontalFirst] {
          let scaler = PlaneScaler(method: method, from: input, to: output, channels: 1, order: order)
          // The 2:3 plane must really take the order asked for, and in an AVX2 build its
          // byte windows, or this test would compare one order with itself.
          if input.width == 480, output.width == 320 {
            XCTAssertEqual(scaler.order, order, "\(method)")
            #if CAMFX_AVX2 && arch(x86_64)
            XCTAssertEqual(scaler.byteWindows != nil, order == .horizontalFirst, "\(method)")
            #endif
          }
          let scratch = ScaleScratch(samples: scaler.scratchSamples)
          var out = [UInt8](repeating: 0, count: output.width * output.height)
          source.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
              scaler.scale(
                s.baseAddress!, sourceStride: stride, into: d.baseAddress!, destinationStride: output.width, scratch: scratch)
            }
          }
          var worst = 0
          for y in 0..<output.height {
            for x in 0..<output.width { worst = max(worst, abs(Int(out[y * output.width + x]) - expected[y][x])) }
          }
          XCTAssertLessThanOrEqual(worst, 1, "\(method) \(input) → \(output), \(order) (ran \(scaler.order))")
        }
      }
    }
  }

  func testAreaAtTwoToOneIsTheMeanOfEachBlock() throws {
    let input = FrameGeometry(width: 66, height: 34)
    var filter = try Scale(width: 33, height: 17, method: .area)
    _ = try filter.configure(input: input)
    let source = TestFrame(width: input.width, height: input.height, seed: 5)
    var destination = PixelBuffer(width: 33, height: 17)
    filter.process(source.frame, into: &destination)
    for y in 0..<17 {
      for x in 0..<33 {
        let block = [source.pixels[2 * y][2 * x], source.pixels[2 * y][2 * x + 1], source.pixels[2 * y + 1][2 * x], source.pixels[2 * y + 1][2 * x + 1]]
        let mean = { (channel: (BGRA) -> UInt8) in Double(block.map { Int(channel($0)) }.reduce(0, +)) / 4 }
        let p = destination[x, y]
        XCTAssertLessThanOrEqual(abs(Double(p.r) - mean(\.r)), 1)
        XCTAssertLessThanOrEqual(abs(Double(p.g) - mean(\.g)), 1)
        XCTAssertLessThanOrEqual(abs(Double(p.b) - mean(\.b)), 1)
        XCTAssertLessThanOrEqual(abs(Double(p.a) - mean(\.a)), 1)
      }
    }
  }

  /// The intrinsic kernels (AVX2, AVX-512 BW; in builds for a CPU that has them, as
  /// `make test`'s native run) against the portable loops, byte for byte: every method,
  /// both orders of the passes, BGRA and one-channel planes, shrinking, growing, 2:1, odd sizes and padded rows
  /// (so every vector step and tail runs). In a portable build both sides are the loops.
  func testIntrinsicKernelsMatchThePortableLoopsExactly() {
    let cases: [(FrameGeometry, FrameGeometry)] = [
      (.init(width: 301, height: 9), .init(width: 200, height: 7)),
      (.init(width: 302, height: 10), .init(width: 151, height: 5)),
      // 2:1, through the area mean's two-step and one-step loops and its tail, one
      // channel and four.
      (.init(width: 220, height: 8), .init(width: 110, height: 4)),
      (.init(width: 67, height: 45), .init(width: 100, height: 70)),
      (.init(width: 1, height: 1), .init(width: 3, height: 2)),
      (.init(width: 640, height: 360), .init(width: 427, height: 240)),
      (.init(width: 130, height: 66), .init(width: 33, height: 17)),
      // The horizontal-first windows: a row of exactly 16 bytes, 2:3 with a tail of
      // every length past the 16-sample groups and 32-sample steps.
      (.init(width: 16, height: 12), .init(width: 11, height: 5)),
      (.init(width: 1920 / 4, height: 27), .init(width: 1280 / 4, height: 18)),
      (.init(width: 98, height: 31), .init(width: 63, height: 20)),
      (.init(width: 62, height: 19), .init(width: 97, height: 29)),
      // Long vertical windows of the horizontal-first order (about 20 bicubic taps, and
      // past its limit), one- and two-row windows when enlarging, a two-row source.
      (.init(width: 98, height: 25), .init(width: 63, height: 5)),
      (.init(width: 98, height: 31), .init(width: 63, height: 4)),
      (.init(width: 98, height: 20), .init(width: 63, height: 40)),
      (.init(width: 40, height: 2), .init(width: 60, height: 5)),
    ]
    var generator = SystemRandomNumberGenerator()
    for (from, to) in cases {
      for channels in [1, 4] {
        let sourceStride = from.width * channels + 13, destinationStride = to.width * channels + 7
        let source = (0..<sourceStride * from.height).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for method in ScaleMethod.allCases {
          for order in [PlaneScaler.PassOrder.verticalFirst, .horizontalFirst] {
            var outputs: [[UInt8]] = []
            for intrinsics in [true, false] {
              let scaler = PlaneScaler(
                method: method, from: from, to: to, channels: channels, usesIntrinsics: intrinsics, order: order)
              if from.width == 480, channels == 1 {
                XCTAssertEqual(scaler.order, order, "\(method)")
                #if CAMFX_AVX2 && arch(x86_64)
                XCTAssertEqual(scaler.byteWindows != nil, order == .horizontalFirst && intrinsics, "\(method)")
                #endif
              }
              let scratch = ScaleScratch(samples: scaler.scratchSamples)
              var out = [UInt8](repeating: 0, count: destinationStride * to.height)
              source.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBufferPointer { d in
                  scaler.scale(
                    s.baseAddress!, sourceStride: sourceStride, into: d.baseAddress!, destinationStride: destinationStride,
                    scratch: scratch)
                }
              }
              outputs.append(out)
            }
            XCTAssertEqual(outputs[0], outputs[1], "\(method) \(from) -> \(to), \(channels) channel(s), \(order)")
          }
        }
      }
    }
  }

  func testScaleToTheSameSizeCopies() throws {
    for method in ScaleMethod.allCases {
      var filter = try Scale(width: 31, height: 9, method: method)
      _ = try filter.configure(input: FrameGeometry(width: 31, height: 9))
      let source = TestFrame(width: 31, height: 9, seed: 6)
      var destination = PixelBuffer(width: 31, height: 9)
      filter.process(source.frame, into: &destination)
      XCTAssertEqual(destination.allPixels, source.pixels, "\(method)")
    }
  }

  func testAspectRatioSides() {
    let hd = FrameGeometry(width: 1920, height: 1080)
    XCTAssertEqual(Scale.resolvedSize(width: 640, height: -1, input: hd), FrameGeometry(width: 640, height: 360))
    XCTAssertEqual(Scale.resolvedSize(width: -1, height: 100, input: hd), FrameGeometry(width: 178, height: 100))
    XCTAssertEqual(Scale.resolvedSize(width: 101, height: -2, input: hd), FrameGeometry(width: 101, height: 56))
    XCTAssertEqual(Scale.resolvedSize(width: -2, height: 99, input: hd), FrameGeometry(width: 176, height: 99))
    XCTAssertEqual(Scale.resolvedSize(width: 1, height: -2, input: hd), FrameGeometry(width: 1, height: 2))
  }

  func testScaleErrors() {
    XCTAssertEqual(
      errorMessage { _ = try FilterRegistry.builtin.makeChain(["scale=width=0:height=10"]) },
      "filter 'scale', key 'width', value '0': must be at least 1, or -1 or -2")
    XCTAssertEqual(
      errorMessage { _ = try FilterRegistry.builtin.makeChain(["scale=width=-1:height=-2"]) },
      "filter 'scale': only one of width and height may be -1 or -2")
    XCTAssertEqual(
      errorMessage { _ = try FilterRegistry.builtin.makeChain(["scale=width=10:height=-3"]) },
      "filter 'scale', key 'height', value '-3': must be in -2...16384")
    XCTAssertEqual(
      errorMessage {
        var chain = try FilterRegistry.builtin.makeChain(["scale=width=16000:height=-1"])
        try chain.configure(input: FrameGeometry(width: 100, height: 200))
      },
      "filter 'scale': 100x200 gives 16000x32000, larger than 16384 on a side")
  }

  // MARK: - rotate

  func testRotateMovesEveryPixel() throws {
    for size in [FrameGeometry(width: 1, height: 1), FrameGeometry(width: 37, height: 5), FrameGeometry(width: 70, height: 33)] {
      for angle in Rotate.Angle.allCases {
        var filter = Rotate(angle: angle)
        let output = try filter.configure(input: size)
        let source = TestFrame(width: size.width, height: size.height, seed: 8)
        var destination = TestFrame(width: output.width, height: output.height, seed: 9)
        filter.process(source.frame, into: &destination.frame)
        destination.assertOutsideUntouched()
        let (w, h) = (size.width, size.height)
        for y in 0..<output.height {
          for x in 0..<output.width {
            let expected: BGRA
            switch angle {
            case .quarter: expected = source.pixels[h - 1 - x][y]
            case .half: expected = source.pixels[h - 1 - y][w - 1 - x]
            case .threeQuarters: expected = source.pixels[x][w - 1 - y]
            }
            XCTAssertEqual(destination.frame[x, y], expected, "\(angle) \(size) at (\(x), \(y))")
          }
        }
      }
    }
  }

  /// The planes of a picture turned by rotate equal ffmpeg's transpose / hflip,vflip of
  /// the same raw picture, byte for byte (odd sizes: the chroma planes are turned too).
  func testRotateInYUV420IsFFmpegsTranspose() throws {
    // 67×45 has whole 16×16 and 8×8 blocks of both planes and edges beside them; 100×70
    // whole 32×16 blocks (the AVX2 kernel's) of both planes, and overlapping last ones;
    // 1030×720 is a 720p-class plane (walked along the destination, ordinary stores); 2054×2048's luma
    // plane is large enough for the AVX2 kernel's streamed 64-row strips.
    for (width, height) in [(35, 17), (67, 45), (100, 70), (1030, 720), (2054, 2048)] { try assertRotateInYUV420IsFFmpegsTranspose(width: width, height: height) }
  }

  private func assertRotateInYUV420IsFFmpegsTranspose(width: Int, height: Int) throws {
    let dir = try temporaryDirectory()
    let raw = dir.appendingPathComponent("in.yuv").path
    try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=1", "-frames:v", "1",
      "-pix_fmt", "yuv420p", "-f", "rawvideo", raw])
    let source = YUV420Planes(width: width, height: height)
    try loadRaw(raw, into: source.picture)
    for (angle, vf) in [(Rotate.Angle.quarter, "transpose=1"), (.half, "hflip,vflip"), (.threeQuarters, "transpose=2")] {
      let expectedPath = dir.appendingPathComponent("\(angle.rawValue).yuv").path
      try runTool("ffmpeg", ["-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-i", raw,
        "-vf", vf, "-f", "rawvideo", expectedPath])
      var chain = FilterChain([Rotate(angle: angle)])
      let output = try chain.configure(input: source.picture.geometry)
      let out = YUV420Planes(width: output.width, height: output.height)
      chain.process(yuv420: source.picture, into: out.picture, using: [])
      XCTAssertEqual(rawBytes(out.picture), try Data(contentsOf: URL(fileURLWithPath: expectedPath)), "rotate \(angle.rawValue) vs \(vf) at \(width)x\(height)")
    }
  }

  // MARK: - pad and fit

  func testPadPlacesTheFrameOnTheCanvas() throws {
    let navy = try BGRA(parsing: "navy@0.5")
    for (spec, corner) in [("pad=width=50:height=20:color=navy@0.5", (8, 6)), ("pad=width=40:height=9:x=3:y=1:color=navy@0.5", (3, 1))] {
      var chain = try FilterRegistry.builtin.makeChain([spec])
      let source = TestFrame(width: 33, height: 7, seed: 2)
      XCTAssertEqual(try chain.configure(input: source.frame.geometry).width, spec.contains("50") ? 50 : 40)
      var frame = source.frame
      chain.run(&frame)
      for y in 0..<frame.height {
        for x in 0..<frame.width {
          let inside = x >= corner.0 && x < corner.0 + 33 && y >= corner.1 && y < corner.1 + 7
          XCTAssertEqual(frame[x, y], inside ? source.pixels[y - corner.1][x - corner.0] : navy, "\(spec) at (\(x), \(y))")
        }
      }
    }
    XCTAssertEqual(
      errorMessage {
        var chain = try FilterRegistry.builtin.makeChain(["pad=width=40:height=9:x=10"])
        try chain.configure(input: FrameGeometry(width: 33, height: 7))
      },
      "filter 'pad': the 33x7 input at (10, 0) does not fit on a 40x9 canvas")
    XCTAssertEqual(
      errorMessage { _ = try FilterRegistry.builtin.makeChain(["pad=width=40:height=9:color=bluish"]) },
      "filter 'pad', key 'color', value 'bluish': expected a colour name (black, white, red, ...), #RRGGBB or #RRGGBBAA")
  }

  func testFitLetterboxesAndPillarboxes() throws {
    XCTAssertEqual(Fit.placement(of: FrameGeometry(width: 1920, height: 1080), width: 640, height: 480),
      PixelRectangle(x: 0, y: 60, width: 640, height: 360))
    XCTAssertEqual(Fit.placement(of: FrameGeometry(width: 640, height: 480), width: 1280, height: 720),
      PixelRectangle(x: 160, y: 0, width: 960, height: 720))
    XCTAssertEqual(Fit.placement(of: FrameGeometry(width: 100, height: 100), width: 33, height: 20),
      PixelRectangle(x: 6, y: 0, width: 20, height: 20))
    // The picture part equals scale to the placement's size; the rest is the colour.
    let input = FrameGeometry(width: 48, height: 20)
    var chain = try FilterRegistry.builtin.makeChain(["fit=width=30:height=30:color=white:method=bilinear"])
    try chain.configure(input: input)
    var scaled = try FilterRegistry.builtin.makeChain(["scale=width=30:height=12:method=bilinear"])
    try scaled.configure(input: input)
    let source = TestFrame(width: input.width, height: input.height, seed: 12)
    var fitted = source.frame, reference = source.frame
    chain.run(&fitted)
    scaled.run(&reference)
    for y in 0..<30 {
      for x in 0..<30 {
        let inside = y >= 8 && y < 20  // placement (0, 8, 30, 12)
        XCTAssertEqual(fitted[x, y], inside ? reference[x, y - 8] : BGRA(r: 255, g: 255, b: 255), "(\(x), \(y))")
      }
    }
  }

  /// Pixels that only move or get a colour agree between the yuv420p and BGRA paths:
  /// the picture is 2×2 blocks of one colour, so its round trip loses only rounding.
  func testRotateAndPadMatchTheBGRAPathInYUV420() throws {
    let source = blockPicture(FrameGeometry(width: 96, height: 64), seed: 13)
    for specs in [["rotate=angle=90"], ["rotate=angle=180"], ["rotate=angle=cclock", "pad=width=80:height=120:color=orange"],
      ["pad=width=100:height=70:x=2:y=4:color=navy", "mirror"], ["fit=width=48:height=48:method=area:color=red"] /* 2:1, so each picture block is a mean of whole blocks */]
    {
      let (planar, viaBGRA) = try runBothPaths(specs, on: source)
      for index in 0..<3 {
        XCTAssertLessThanOrEqual(maxDifference(planar, viaBGRA, plane: index), 2, "\(specs) plane \(index)")
      }
    }
  }

  // MARK: - the chain's pools

  /// A resizing filter writes into the chain's pool; the source frame is left as it
  /// was, in-place filters after it work on the pooled frame, and a frame let go of is
  /// used again (nothing allocated per frame).
  func testResizingChainsWriteIntoTheirPoolsAndReuseThem() throws {
    var chain = try FilterRegistry.builtin.makeChain(["mirror", "scale=width=20:height=10:method=nearest", "grayscale", "pad=width=24:height=12"])
    try chain.configure(input: FrameGeometry(width: 40, height: 20))
    XCTAssertTrue(chain.hasResizingFilters)
    let buffers = chain.makeBuffers(capacity: 2)
    let source = TestFrame(width: 40, height: 20, seed: 14)
    var seen: [ObjectIdentifier] = []
    for _ in 0..<4 {
      let out = try XCTUnwrap(chain.process(source.frame, using: buffers))
      XCTAssertEqual(out.geometry, FrameGeometry(width: 24, height: 12))
      XCTAssertFalse(out.storage === source.frame.storage)
      seen.append(ObjectIdentifier(out.storage))
    }
    XCTAssertLessThanOrEqual(Set(seen).count, 2, "frames let go of come back; the pool holds two")
    // Mirror ran in place on the source, before the scale: four times puts it back.
    XCTAssertEqual(source.frame.allPixels, source.pixels)
    // With every pooled frame held, a stop request ends the wait.
    let held = [chain.process(source.frame, using: buffers), chain.process(source.frame, using: buffers)]
    XCTAssertEqual(held.compactMap { $0 }.count, 2)
    XCTAssertNil(chain.process(source.frame, using: buffers, shouldStop: { true }))
  }
}

// MARK: - helpers

func temporaryDirectory() throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("camfx-reshape-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

func runTool(_ name: String, _ arguments: [String]) throws {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [name] + arguments
  try process.run()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw NSError(domain: "camfx-tests", code: Int(process.terminationStatus), userInfo: [NSLocalizedDescriptionKey: "\(name) \(arguments) failed"])
  }
}

/// Reads a raw yuv420p file (planes back to back, rows tight) into `picture`.
func loadRaw(_ path: String, into picture: YUV420Picture) throws {
  let data = try Data(contentsOf: URL(fileURLWithPath: path))
  var offset = 0
  for index in 0..<3 {
    let p = picture.plane(index)
    for r in 0..<p.height {
      data.withUnsafeBytes { bytes in
        (p.base + r * p.stride).update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, count: p.width)
      }
      offset += p.width
    }
  }
}

/// The planes of `picture` back to back with tight rows, as ffmpeg's rawvideo writes them.
func rawBytes(_ picture: YUV420Picture) -> Data {
  var data = Data()
  for index in 0..<3 {
    let p = picture.plane(index)
    for r in 0..<p.height { data.append(p.base + r * p.stride, count: p.width) }
  }
  return data
}
