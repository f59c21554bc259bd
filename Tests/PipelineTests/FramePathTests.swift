import CamfxCore
import CamfxMedia
import CamfxPixelFormats
import XCTest

@testable import Camfx

/// The frame path is negotiated once from the chain and what the source can deliver:
/// yuv420p filters on the planes, BGRA from the first filter that needs it, back to
/// yuv420p once; and every way gives the same pictures.
final class FramePathTests: XCTestCase {
  let size = FrameGeometry(width: 64, height: 48)

  private func path(
    _ filters: [any VideoFilter], yuv420Source: Bool = true, yuv420Filters: Bool = true, rowBands: Bool = true,
    inPlace: Bool = true
  ) throws -> FramePath {
    try FramePath(
      chain: configuredChain(filters, for: size), sourceCanDeliverYUV420: yuv420Source, capacity: 2,
      yuv420Filters: yuv420Filters, rowBands: rowBands, inPlace: inPlace)
  }

  private func filter(_ spec: String) throws -> any VideoFilter { try FilterRegistry.builtin.makeChain([spec]).filters[0] }
  private func mirror() throws -> any VideoFilter { try filter("mirror") }
  private func grayscale709() throws -> any VideoFilter { try filter("grayscale=matrix=bt709") }

  func testEveryFilterOnThePlanesWhenEachTakesYUV420() throws {
    let p = try path([mirror(), filter("crop=width=32:height=24")])
    XCTAssertEqual(p.sourceFormat, .yuv420)
    XCTAssertTrue(p.isYUV420Only)
    XCTAssertEqual(p.describe(sourcePixelFormat: "yuyv422"), "yuyv422 → yuv420p → mirror → crop → encoder")
  }

  /// The source's conversion takes the row-local filters at the head of an in-place
  /// yuv420p part, and only those.
  func testTheSourceTakesTheLeadingRowLocalFiltersOfAnInPlacePart() throws {
    func inSource(_ filters: [any VideoFilter], yuv420Source: Bool = true, inPlace: Bool = true) throws -> [String] {
      try path(filters, yuv420Source: yuv420Source, inPlace: inPlace).sourceBandFilters?.names ?? []
    }
    XCTAssertEqual(try inSource([mirror(), filter("text=text=%{frame}:size=8:margin=0"), mirror()]), ["mirror"])
    XCTAssertEqual(
      try inSource([mirror(), filter("grayscale"), filter("color=gamma=1.2"), filter("watermark")]),
      ["mirror", "grayscale", "color", "watermark"])
    XCTAssertEqual(try inSource([filter("text=text=%{frame}:size=8:margin=0"), mirror()]), [])
    XCTAssertEqual(try inSource([filter("mirror=axis=vertical"), mirror()]), [])
    // A crop writes a picture of its own: the part does not run in place.
    XCTAssertEqual(try inSource([mirror(), filter("crop=width=32:height=24")]), [])
    // BGRA from the source, or no in-place filtering (the pipeline's comparisons).
    XCTAssertEqual(try inSource([mirror()], yuv420Source: false), [])
    XCTAssertEqual(try inSource([mirror()], inPlace: false), [])
    // Row bands of BGRA take the row-local filters before a BGRA-only one.
    XCTAssertEqual(try inSource([mirror(), grayscale709()]), [])
    XCTAssertEqual(try inSource([]), [])
  }

  func testBGRAStartsAtTheFirstFilterThatNeedsItAndStaysToTheEnd() throws {
    // Brighten needs BGRA and is not row-local: whole frames from there, mirror before it on the planes.
    let p = try path([mirror(), Brighten(), mirror()])
    XCTAssertEqual(p.sourceFormat, .yuv420)
    XCTAssertFalse(p.isYUV420Only)
    XCTAssertFalse(p.usesRowBands)
    XCTAssertEqual(
      p.describe(sourcePixelFormat: "yuv420p"), "yuv420p → mirror → bgra → brighten → mirror → yuv420p → encoder")
  }

  func testARowLocalBGRAPartRunsInBandsAndTakesTheRowLocalFiltersBeforeIt() throws {
    let p = try path([mirror(), grayscale709()])
    XCTAssertEqual(p.sourceFormat, .yuv420)
    XCTAssertTrue(p.usesRowBands)
    XCTAssertEqual(
      p.describe(sourcePixelFormat: "nv12"), "nv12 → yuv420p → bgra in row bands → mirror → grayscale → yuv420p → encoder")
  }

  func testTheSourceConvertsToBGRAWhenTheFirstFilterNeedsWholeBGRAFrames() throws {
    let p = try path([Brighten(), mirror()])
    XCTAssertEqual(p.sourceFormat, .bgra)
    XCTAssertEqual(p.describe(sourcePixelFormat: "yuyv422"), "yuyv422 → bgra → brighten → mirror → yuv420p → encoder")
  }

  func testABGRASourceRunsTheChainOnBGRAAndIsConvertedOnce() throws {
    let p = try path([mirror()], yuv420Source: false)
    XCTAssertEqual(p.sourceFormat, .bgra)
    XCTAssertEqual(p.describe(sourcePixelFormat: "bgra"), "bgra → mirror → yuv420p → encoder")
    let empty = try path([], yuv420Source: false)
    XCTAssertEqual(empty.describe(sourcePixelFormat: "rgb24"), "rgb24 → bgra → yuv420p → encoder")
    XCTAssertEqual(try path([]).describe(sourcePixelFormat: "yuv420p"), "yuv420p → encoder")
  }

  /// A yuv420p picture with a different value almost everywhere, and one as BGRA.
  private func sourcePicture() throws -> YUV420Frame {
    let pool = try YUV420FramePool(geometry: size, capacity: 1, kind: .owned)
    let frame = try XCTUnwrap(try pool.acquire(presentationTime: .zero))
    let p = frame.picture
    for plane in 0..<3 {
      let (base, stride, width, height) = p.plane(plane)
      for y in 0..<height {
        for x in 0..<width { base[y * stride + x] = UInt8(16 + (x * 7 + y * 3 + plane * 50) % 200) }
      }
    }
    return frame
  }

  private func planes(_ frame: YUV420Frame) -> [UInt8] {
    let p = frame.picture
    return (0..<3).flatMap { plane in
      let (base, stride, width, height) = p.plane(plane)
      return (0..<height).flatMap { y in (0..<width).map { base[y * stride + $0] } }
    }
  }

  func testEveryWayOfRunningAChainGivesTheSamePictures() throws {
    let source = try sourcePicture()
    let chain: [any VideoFilter] = try [mirror(), Brighten(), grayscale709()]
    let mixed = try path(chain)
    let whole = try path(chain, yuv420Filters: false, rowBands: false)
    XCTAssertEqual(whole.sourceFormat, .bgra)
    // The whole-frame way from BGRA: the source as BGRA, as a reader would convert it
    // (first: the mixed way may filter the source's own picture in place).
    let bgra = PixelBuffer(width: size.width, height: size.height)
    PixelConverter.convertI420(
      luma: source.y, lumaBytesPerRow: source.yStride, cb: source.u, cr: source.v, chromaBytesPerRow: source.uStride,
      to: bgra)
    let unfiltered = planes(source)
    let fromMixed = try XCTUnwrap(try mixed.process(.yuv420(source), shouldStop: { false }))
    let fromWhole = try XCTUnwrap(try whole.process(.bgra(bgra), shouldStop: { false }))
    let a = planes(fromMixed), b = planes(fromWhole)
    let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    XCTAssertLessThanOrEqual(worst, 1, "mirror on the planes then BGRA, against all on BGRA")
    XCTAssertNotEqual(a, unfiltered, "the chain changed the picture")
    // Grey: the chroma planes are flat at 128.
    let chroma = a[(size.width * size.height)...]
    XCTAssertEqual(Set(chroma), [128])
  }

  /// A half turn keeps the size but reads other rows than it writes: after a mirror it
  /// gets a picture of its own to write (it was once run in place, which scrambled it).
  func testAHalfTurnAfterAMirrorIsAVerticalFlip() throws {
    let source = try sourcePicture()
    let p = try path([mirror(), filter("rotate=angle=180")])
    let out = try XCTUnwrap(try p.process(.yuv420(source), shouldStop: { false }))
    let input = source.picture, output = out.picture
    for plane in 0..<3 {
      let (a, aStride, width, height) = input.plane(plane)
      let (b, bStride, _, _) = output.plane(plane)
      for y in 0..<height {
        for x in 0..<width where a[y * aStride + x] != b[(height - 1 - y) * bStride + x] {
          return XCTFail("plane \(plane) (\(x), \(y)) is not the vertical flip")
        }
      }
    }
  }

  /// A picture its source keeps nothing of (`ownsItsPicture`: a camera's, a converted
  /// file's) is filtered where it is, with the pixels a picture of its own gets.
  func testAnOwnedPictureIsFilteredInPlaceWithTheSamePixels() throws {
    let chain: [any VideoFilter] = try [mirror(), filter("grayscale"), filter("color=brightness=0.1")]
    let apart = try path(chain, inPlace: false)
    let expected = planes(try XCTUnwrap(try apart.process(.yuv420(try sourcePicture()), shouldStop: { false })))
    let source = try sourcePicture()
    XCTAssertTrue(source.ownsItsPicture)
    let out = try XCTUnwrap(try path(chain).process(.yuv420(source), shouldStop: { false }))
    XCTAssertTrue(out.picture.isSamePicture(as: source.picture), "filtered where it was")
    XCTAssertEqual(planes(out), expected)
  }
}
