import Camfx
import CamfxCapture
import CamfxMedia
import XCTest
import CamfxPixelFormats

/// Chains whose every filter works on yuv420p (`YUV420VideoFilter`) run on the decoded
/// planes in a transcode. Each is checked against a plain reference on arrays of
/// samples (exact), and against the BGRA path — convert, filter, convert back — whose
/// result may differ only by that round trip's rounding.
final class YUV420FilterTests: XCTestCase {
  /// A picture's samples as arrays, `[row][column]` per plane.
  struct Samples: Equatable {
    var y: [[UInt8]]
    var u: [[UInt8]]
    var v: [[UInt8]]
    var width: Int { y[0].count }
    var height: Int { y.count }

    init(_ p: YUV420Picture) {
      func rows(_ index: Int) -> [[UInt8]] {
        let plane = p.plane(index)
        return (0..<plane.height).map { r in Array(UnsafeBufferPointer(start: plane.base + r * plane.stride, count: plane.width)) }
      }
      y = rows(0)
      u = rows(1)
      v = rows(2)
    }

    func mapPlanes(_ transform: ([[UInt8]], _ isChroma: Bool) -> [[UInt8]]) -> Samples {
      var s = self
      s.y = transform(y, false)
      s.u = transform(u, true)
      s.v = transform(v, true)
      return s
    }
    func flippedLeftRight() -> Samples { mapPlanes { rows, _ in rows.map { Array($0.reversed()) } } }
    func flippedUpsideDown() -> Samples { mapPlanes { rows, _ in rows.reversed() } }
    func cropped(x: Int, y top: Int, width: Int, height: Int) -> Samples {
      mapPlanes { rows, isChroma in
        let s = isChroma ? 1 : 0
        return rows[(top >> s)..<((top + height) >> s)].map { Array($0[(x >> s)..<((x + width) >> s)]) }
      }
    }
    func grey() -> Samples {
      var s = self
      s.u = u.map { $0.map { _ in 128 } }
      s.v = v.map { $0.map { _ in 128 } }
      return s
    }
  }

  /// A yuv420p picture of a random BGRA frame (so its colours are real RGB colours).
  func makePicture(width: Int, height: Int, seed: UInt64) -> YUV420Planes {
    let planes = YUV420Planes(width: width, height: height)
    BGRAToYUV420.convert(TestFrame(width: width, height: height, seed: seed).frame, into: planes)
    return planes
  }

  func configuredChain(_ specs: [String], _ size: FrameGeometry) throws -> FilterChain {
    var chain = try FilterRegistry.builtin.makeChain(specs)
    try chain.configure(input: size)
    return chain
  }

  /// Runs `chain` on `source` the way a transcode does; checks the source is unchanged.
  func runPlanar(_ chain: FilterChain, _ source: YUV420Planes, file: StaticString = #filePath, line: UInt = #line) -> Samples {
    let before = Samples(source.picture)
    let size = chain.outputGeometry!
    let out = YUV420Planes(width: size.width, height: size.height)
    chain.process(yuv420: source.picture, into: out.picture, using: chain.makeYUV420Intermediates())
    XCTAssertEqual(Samples(source.picture), before, "the source picture was written", file: file, line: line)
    return Samples(out.picture)
  }

  func testChainsGiveTheReferenceSamples() throws {
    let cases: [([String], (Samples) -> Samples)] = [
      (["mirror"], { $0.flippedLeftRight() }),
      (["mirror=axis=vertical"], { $0.flippedUpsideDown() }),
      (["mirror=axis=both"], { $0.flippedUpsideDown().flippedLeftRight() }),
      (["grayscale"], { $0.grey() }),
      (["crop=x=2:y=4:width=10:height=6"], { $0.cropped(x: 2, y: 4, width: 10, height: 6) }),
      (["mirror", "mirror"], { $0 }),  // the second works in place
      (["mirror", "mirror=axis=both"], { $0.flippedUpsideDown() }),  // in place, odd chroma height at 322x182
      (["mirror=axis=both", "mirror=axis=vertical", "grayscale"], { $0.flippedLeftRight().grey() }),
      // A crop after another filter: the first writes an intermediate picture.
      (["mirror", "crop=x=4:y=2:width=20:height=10"], { $0.flippedLeftRight().cropped(x: 4, y: 2, width: 20, height: 10) }),
      (["crop=x=2:y=6:width=30:height=20", "mirror=axis=both", "grayscale"], {
        $0.cropped(x: 2, y: 6, width: 30, height: 20).flippedUpsideDown().flippedLeftRight().grey()
      }),
      (["mirror", "crop=x=0:y=2:width=24:height=16", "mirror=axis=vertical", "crop=x=2:y=2:width=8:height=4"], {
        $0.flippedLeftRight().cropped(x: 0, y: 2, width: 24, height: 16).flippedUpsideDown()
          .cropped(x: 2, y: 2, width: 8, height: 4)
      }),
      ([], { $0 }),
    ]
    // 64 and 322 wide: whole and partial 32-byte blocks in every plane; 322 / 2 is odd.
    for (width, height) in [(64, 40), (322, 182), (34, 26)] {
      let size = FrameGeometry(width: width, height: height)
      for (index, (specs, reference)) in cases.enumerated() {
        let chain = try configuredChain(specs, size)
        guard chain.acceptsYUV420 else {
          XCTFail("\(specs) does not accept yuv420p")
          continue
        }
        let source = makePicture(width: width, height: height, seed: UInt64(index))
        let expected = reference(Samples(source.picture))
        XCTAssertEqual(runPlanar(chain, source), expected, "\(specs) on \(size)")
      }
    }
  }

  /// Row-local filters on bands of a picture (`RowLocalYUV420Filter`) leave exactly
  /// what they leave on the whole picture, and a source's conversion that runs them
  /// band by band (`YUVSourceLayout.convert(to:filteringBandsWith:)`) gives the samples
  /// of converting first and filtering after, for YUYV, NV12 and I420 sources; heights
  /// that are not a whole number of bands, and odd ones.
  func testBandsGiveTheWholePicturesSamples() throws {
    for (width, height) in [(64, 40), (322, 182), (34, 33), (20, 7)] {
      let size = FrameGeometry(width: width, height: height)
      for specs in [
        ["mirror"], ["grayscale"], ["color=brightness=0.2:saturation=1.5"], ["mirror", "color=contrast=1.4", "mirror"],
        // The built-in mark, centred: bands above, across and below it.
        ["watermark", "mirror"],
      ] {
        // A watermark works on yuv420p pictures of even sizes only.
        if specs.contains("watermark") && (width % 2 == 1 || height % 2 == 1) { continue }
        let chain = try configuredChain(specs, size)
        XCTAssertTrue(chain.runsOnYUV420Bands, "\(specs)")
        let source = makePicture(width: width, height: height, seed: 7)
        let whole = runPlanar(chain, source)
        // The same picture, band by band, in place.
        let banded = makePicture(width: width, height: height, seed: 7)
        var firstRow = 0
        while firstRow < height {
          let rows = min(YUV420Picture.bandRows, height - firstRow)
          chain.process(yuv420Band: banded.picture.band(firstRow: firstRow, rows: rows), firstRow: firstRow)
          firstRow += rows
        }
        XCTAssertEqual(Samples(banded.picture), whole, "\(specs) in bands on \(size)")

        // From a YUYV, an NV12 and an I420 source.
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        var generator = SplitMix64(seed: UInt64(width * height))
        let yuyv = (0..<(chromaWidth * 4 * height)).map { _ in UInt8.random(in: 16...235, using: &generator) }
        let luma = (0..<(width * height)).map { _ in UInt8.random(in: 16...235, using: &generator) }
        let chroma = (0..<(chromaWidth * 2 * chromaHeight)).map { _ in UInt8.random(in: 16...240, using: &generator) }
        try yuyv.withUnsafeBytes { yuyv in
          try luma.withUnsafeBytes { luma in
            try chroma.withUnsafeBytes { chroma in
              let layouts: [(String, YUVSourceLayout)] = [
                ("yuyv", .yuyv(try XCTUnwrap(yuyv.baseAddress), bytesPerRow: chromaWidth * 4)),
                ("nv12", .nv12(luma: try XCTUnwrap(luma.baseAddress), lumaBytesPerRow: width, chroma: try XCTUnwrap(chroma.baseAddress), chromaBytesPerRow: chromaWidth * 2)),
                ("i420", .i420(luma: try XCTUnwrap(luma.baseAddress), lumaBytesPerRow: width, cb: try XCTUnwrap(chroma.baseAddress),
                  cr: try XCTUnwrap(chroma.baseAddress) + chromaWidth * chromaHeight, chromaBytesPerRow: chromaWidth)),
              ]
              for (name, layout) in layouts {
                let converted = YUV420Planes(width: width, height: height)
                layout.convert(to: converted.picture)
                let expected = runPlanar(chain, converted)
                let fused = YUV420Planes(width: width, height: height)
                layout.convert(to: fused.picture, filteringBandsWith: chain)
                XCTAssertEqual(Samples(fused.picture), expected, "\(specs) converting \(name) on \(size)")
              }
            }
          }
        }
      }
    }
    // Filters that move rows, change the size or keep state do not run on bands.
    let size = FrameGeometry(width: 64, height: 40)
    for specs in [["mirror=axis=vertical"], ["crop=width=32:height=20"], ["text=text=%{frame}:size=12"], ["mirror", "scale=width=32:height=20"], []] {
      XCTAssertFalse(try configuredChain(specs, size).runsOnYUV420Bands, "\(specs)")
    }
  }

  /// An MJPEG camera's frame decoded into the pool's planes with the row-local chain
  /// run band by band (by libjpeg-turbo's path and by libavcodec's) has the samples of
  /// decoding first and filtering after; 4:2:2 and 4:2:0, a height of no whole bands.
  func testAJPEGDecodedIntoPlanesGetsTheChainBandByBand() throws {
    for (width, height) in [(322, 182), (98, 62)] {
      let size = FrameGeometry(width: width, height: height)
      for format in ["yuvj422p", "yuvj420p"] {
        let path = try temporaryDirectory().appendingPathComponent("frame.jpg").path
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try runTool("ffmpeg", [
          "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height)", "-frames:v", "1", "-pix_fmt", format,
          "-f", "mjpeg", path,
        ])
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: path))
        for specs in [["mirror"], ["watermark", "color=saturation=1.5"]] {
          let chain = try configuredChain(specs, size)
          for turboJPEG in [true, false] {
            let decoder = try CompressedFrameDecoder(codec: .mjpeg, turboJPEG: turboJPEG)
            let decoded = YUV420Planes(width: width, height: height), fused = YUV420Planes(width: width, height: height)
            XCTAssertEqual(jpeg.withUnsafeBytes { decoder.decode($0, into: decoded.picture) }, .decoded)
            let expected = runPlanar(chain, decoded)
            XCTAssertEqual(jpeg.withUnsafeBytes { decoder.decode($0, into: fused.picture, filteringBandsWith: chain) }, .decoded)
            XCTAssertEqual(Samples(fused.picture), expected, "\(specs) on a \(format) JPEG of \(size), TurboJPEG \(turboJPEG)")
            XCTAssertEqual(decoder.framesDecodedByTurboJPEG, turboJPEG ? 2 : 0)
          }
        }
      }
    }
  }

  func testIntermediatesOnlyWhereTheSizeChangesBeforeTheLastFilter() throws {
    let size = FrameGeometry(width: 64, height: 40)
    let counts: [([String], Int)] = [
      (["mirror", "grayscale"], 0), (["crop=width=32:height=20", "mirror"], 0), (["mirror", "crop=width=32:height=20"], 1),
      (["mirror", "crop=width=32:height=20", "grayscale", "crop=width=16:height=12"], 2),
    ]
    for (specs, count) in counts {
      XCTAssertEqual(try configuredChain(specs, size).makeYUV420Intermediates().count, count, "\(specs)")
    }
  }

  /// The yuv420p result is the BGRA path's result, give or take the round trip's
  /// rounding. The picture is made of 2×2 blocks of one random colour each, so that its
  /// round trip through BGRA loses nothing but rounding (a random colour per pixel
  /// would not survive 4:2:0 itself, and the BGRA path's clamping would differ by more).
  func testChainsMatchTheBGRAPath() throws {
    let chains = [
      ["mirror"], ["mirror=axis=both"], ["grayscale"], ["crop=x=6:y=4:width=40:height=24", "mirror"],
      // The built-in mark (soft edges) at even and odd corners, clipped, half opaque.
      ["watermark"], ["watermark=x=13:y=9"], ["watermark=x=-7:y=-5:opacity=0.6"], ["watermark=position=center:opacity=0.5"],
      ["mirror", "watermark=position=top-left:margin=3", "grayscale"],
    ]
    let size = FrameGeometry(width: 96, height: 64)
    let blocks = TestFrame(width: size.width / 2, height: size.height / 2, seed: 11)
    let frame = PixelBuffer(width: size.width, height: size.height)
    for y in 0..<size.height {
      for x in 0..<size.width { frame[x, y] = blocks.frame[x / 2, y / 2] }
    }
    for specs in chains {
      let chain = try configuredChain(specs, size)
      let source = YUV420Planes(width: size.width, height: size.height)
      BGRAToYUV420.convert(frame, into: source)
      let planar = runPlanar(chain, source)

      var bgra = PixelBuffer(width: size.width, height: size.height)
      PixelConverter.convertI420(
        luma: source.y, lumaBytesPerRow: source.yStride, cb: source.u, cr: source.v,
        chromaBytesPerRow: source.uStride, to: bgra)
      chain.process(&bgra)
      let back = YUV420Planes(width: bgra.width, height: bgra.height)
      BGRAToYUV420.convert(bgra, into: back)
      let viaBGRA = Samples(back.picture)

      for (plane, a, b) in [("Y", planar.y, viaBGRA.y), ("U", planar.u, viaBGRA.u), ("V", planar.v, viaBGRA.v)] {
        let differences = zip(a.joined(), b.joined()).map { abs(Int($0) - Int($1)) }
        XCTAssertEqual(differences.count, a.joined().count, "\(specs) \(plane) size")
        XCTAssertLessThanOrEqual(differences.max() ?? 99, 2, "\(specs) \(plane)")
        XCTAssertLessThan(Double(differences.reduce(0, +)) / Double(differences.count), 0.5, "\(specs) \(plane) mean")
      }
    }
  }

  func testFiltersDeclineWhatTheyCannotDoExactlyInYUV420() throws {
    let odd = FrameGeometry(width: 97, height: 61)
    for specs in [["mirror"], ["mirror=axis=vertical"], ["mirror=axis=both"], ["grayscale", "mirror"], ["watermark"]] {
      XCTAssertFalse(try configuredChain(specs, odd).acceptsYUV420, "\(specs) on \(odd)")
    }
    XCTAssertTrue(try configuredChain(["mirror"], FrameGeometry(width: 96, height: 61)).acceptsYUV420, "odd height, left-right")
    XCTAssertTrue(
      try configuredChain(["mirror=axis=vertical"], FrameGeometry(width: 97, height: 64)).acceptsYUV420, "odd width, upside down")
    XCTAssertFalse(try configuredChain(["watermark"], FrameGeometry(width: 96, height: 61)).acceptsYUV420, "odd height")
    let even = FrameGeometry(width: 96, height: 64)
    for specs in [["grayscale=matrix=bt709"], ["crop=x=1:y=0:width=8:height=8"], ["crop=x=0:y=0:width=9:height=8"], ["crop=width=94:height=8"] /* centred: x = 1 */, ["mirror", "grayscale=matrix=bt709"]] {
      XCTAssertFalse(try configuredChain(specs, even).acceptsYUV420, "\(specs)")
    }
    XCTAssertFalse(try FilterRegistry.builtin.makeChain(["mirror"]).acceptsYUV420, "not configured yet")
  }

  /// Planes with rows exactly as long as the picture (odd chroma width) and guard bytes
  /// after each plane: a kernel that writes past a row lands in the next row, one that
  /// writes past a plane hits the guard; both show.
  func testTightPlanesGiveThePaddedResultAndNothingOutside() throws {
    let size = FrameGeometry(width: 322, height: 182)
    let guardBytes = 64
    /// Three tight planes, each followed by `guardBytes` of 0xA5.
    final class TightPicture {
      let width: Int, height: Int
      var planes: [UnsafeMutablePointer<UInt8>] = []
      var lengths: [Int] = []
      init(width: Int, height: Int, guardBytes: Int) {
        self.width = width
        self.height = height
        for (w, h) in [(width, height), ((width + 1) / 2, (height + 1) / 2), ((width + 1) / 2, (height + 1) / 2)] {
          let p = UnsafeMutablePointer<UInt8>.allocate(capacity: w * h + guardBytes)
          p.initialize(repeating: 0xA5, count: w * h + guardBytes)
          planes.append(p)
          lengths.append(w * h)
        }
      }
      deinit { planes.forEach { $0.deallocate() } }
      var picture: YUV420Picture {
        YUV420Picture(
          width: width, height: height, y: planes[0], yStride: width, u: planes[1], uStride: (width + 1) / 2,
          v: planes[2], vStride: (width + 1) / 2)
      }
      func guardsIntact(_ guardBytes: Int) -> Bool {
        zip(planes, lengths).allSatisfy { p, n in (0..<guardBytes).allSatisfy { p[n + $0] == 0xA5 } }
      }
    }
    let chains = [
      ["mirror"], ["mirror=axis=both"], ["mirror=axis=vertical"], ["grayscale"], ["mirror", "mirror=axis=both"],
      ["crop=x=2:y=2:width=320:height=180"], ["mirror", "crop=x=0:y=4:width=318:height=176", "mirror=axis=both"],
      // The mark at an odd corner, clipped by the right and the bottom edge.
      ["watermark=x=301:y=171"], ["mirror", "watermark=x=-5:y=-3:opacity=0.7"],
    ]
    for specs in chains {
      let chain = try configuredChain(specs, size)
      XCTAssertTrue(chain.acceptsYUV420, "\(specs)")
      let padded = makePicture(width: size.width, height: size.height, seed: 5)
      let expected = runPlanar(chain, padded)

      let source = TightPicture(width: size.width, height: size.height, guardBytes: guardBytes)
      padded.picture.copyPixels(to: source.picture)
      let out = chain.outputGeometry!
      let destination = TightPicture(width: out.width, height: out.height, guardBytes: guardBytes)
      chain.process(yuv420: source.picture, into: destination.picture, using: chain.makeYUV420Intermediates())
      XCTAssertEqual(Samples(destination.picture), expected, "\(specs) on tight planes")
      XCTAssertEqual(Samples(source.picture), Samples(padded.picture), "\(specs): the source was written")
      XCTAssertTrue(destination.guardsIntact(guardBytes), "\(specs) wrote past a plane")
      XCTAssertTrue(source.guardsIntact(guardBytes), "\(specs) wrote past a source plane")
    }
  }

  /// The yuv420p blend against the floating-point formula on the samples the mark
  /// covers, and no change anywhere else: Y = α·Y(mark) + (1 - α)·Y, and for each 2×2
  /// block Cb = mean(α·Cb(mark)) + (1 - mean α)·Cb (pixels off the mark have α = 0).
  func testWatermarkBlendIsTheFormulaWithinOne() throws {
    let size = FrameGeometry(width: 64, height: 48)
    let image = TestFrame(width: 21, height: 13, seed: 3).frame  // random colours and alpha
    for (x, y, opacity) in [(13, 9, 1.0), (-4, 40, 0.6), (50, -1, 0.35)] {
      var chain = FilterChain([Watermark(image: image, x: x, y: y, opacity: opacity)])
      try chain.configure(input: size)
      let source = makePicture(width: size.width, height: size.height, seed: 8)
      let before = Samples(source.picture)
      let after = runPlanar(chain, source)

      func mark(_ fx: Int, _ fy: Int) -> (alpha: Double, y: Double, cb: Double, cr: Double) {
        let mx = fx - x, my = fy - y
        guard mx >= 0, mx < image.width, my >= 0, my < image.height else { return (0, 0, 0, 0) }
        let p = image[mx, my]
        let r = Double(p.r), g = Double(p.g), b = Double(p.b)
        return (
          Double(p.a) / 255 * opacity, 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255,
          128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255, 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255)
      }
      var worst = 0.0
      for fy in 0..<size.height {
        for fx in 0..<size.width {
          let m = mark(fx, fy)
          let expected = m.alpha * m.y + (1 - m.alpha) * Double(before.y[fy][fx])
          worst = max(worst, abs(Double(after.y[fy][fx]) - expected))
          if m.alpha == 0 { XCTAssertEqual(after.y[fy][fx], before.y[fy][fx], "Y (\(fx), \(fy)) off the mark changed") }
        }
      }
      for cy in 0..<(size.height / 2) {
        for cx in 0..<(size.width / 2) {
          let block = [(0, 0), (1, 0), (0, 1), (1, 1)].map { mark(2 * cx + $0.0, 2 * cy + $0.1) }
          let alpha = block.map(\.alpha).reduce(0, +) / 4
          for (plane, planeBefore, premultiplied) in [
            (after.u, before.u, block.map { $0.alpha * $0.cb }.reduce(0, +) / 4),
            (after.v, before.v, block.map { $0.alpha * $0.cr }.reduce(0, +) / 4),
          ] {
            let expected = premultiplied + (1 - alpha) * Double(planeBefore[cy][cx])
            worst = max(worst, abs(Double(plane[cy][cx]) - expected))
            if alpha == 0 { XCTAssertEqual(plane[cy][cx], planeBefore[cy][cx], "chroma (\(cx), \(cy)) off the mark changed") }
          }
        }
      }
      XCTAssertLessThanOrEqual(worst, 1.0, "mark at (\(x), \(y)) opacity \(opacity)")
    }
  }
}
