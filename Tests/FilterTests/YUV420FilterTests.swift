import Camfx
import CamfxCapture
import CamfxMedia
import XCTest

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
    XCTAssertFalse(try configuredChain(["watermark"], FrameGeometry(width: 96, height: 61)).acceptsYUV420, "odd height")
    let even = FrameGeometry(width: 96, height: 64)
    for specs in [["grayscale=matrix=bt709"], ["crop=x=1:y=0:width=8:height=8"], ["crop=x=0:y=0:width=9:height=8"], ["mirror", "grayscale=matrix=bt709"]] {
      XCTAssertFalse(try configuredChain(specs, even).acceptsYUV420, "\(specs)")
    }
    XCTAssertFalse(try FilterRegistry.builtin.makeChain(["mirror"]).acceptsYUV420, "not configured yet")
  }
}
