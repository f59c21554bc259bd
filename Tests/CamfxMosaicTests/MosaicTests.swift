import CamfxCore
import CamfxFrames
import CamfxPNG
import Foundation
import XCTest

@testable import CamfxMosaic
import ScaleFilter

/// The mosaic compositor: pixel values of each layout (cells, letterbox bars, the pip
/// inset's corner and size, a grid's empty cell), the "no signal" card read back with
/// OCR (tesseract) and the picture's return, and the layout parser's errors compared
/// whole.
final class MosaicTests: XCTestCase {
  /// BT.601 limited-range colours with distinct Y, U and V.
  typealias Colour = (y: UInt8, u: UInt8, v: UInt8)
  let red: Colour = (81, 90, 240)
  let green: Colour = (145, 54, 34)
  let blue: Colour = (41, 240, 110)
  let black: Colour = (16, 128, 128)

  func seconds(_ s: Double) -> MediaTime { MediaTime(value: Int64(s * 1000), timescale: 1000) }

  /// A solid `colour` picture of `width` × `height`.
  func solid(_ colour: Colour, _ width: Int, _ height: Int) throws -> YUV420Frame {
    let frame = try YUV420Frame(geometry: FrameGeometry(width: width, height: height))
    let picture = frame.picture
    for index in 0..<3 {
      let plane = picture.plane(index)
      let value = index == 0 ? colour.y : index == 1 ? colour.u : colour.v
      for row in 0..<plane.height { (plane.base + row * plane.stride).update(repeating: value, count: plane.width) }
    }
    return frame
  }

  /// The Y, U and V samples at pixel (x, y).
  func sample(_ frame: YUV420Frame, _ x: Int, _ y: Int) -> [UInt8] {
    [frame.y[y * frame.yStride + x], frame.u[y / 2 * frame.uStride + x / 2], frame.v[y / 2 * frame.vStride + x / 2]]
  }

  func assertColour(_ frame: YUV420Frame, _ x: Int, _ y: Int, _ colour: Colour, _ what: String, line: UInt = #line) {
    XCTAssertEqual(sample(frame, x, y), [colour.y, colour.u, colour.v], "\(what) at (\(x), \(y))", line: line)
  }

  func mosaic(_ layout: String, _ cameras: [String], _ width: Int, _ height: Int) throws -> Mosaic {
    try Mosaic(layout: MosaicLayout(parsing: layout, cameras: cameras), cameras: cameras, size: FrameGeometry(width: width, height: height))
  }

  func testHStackPutsEachCameraInItsHalfAndLetterboxesA4By3Camera() throws {
    let m = try mosaic("hstack", ["left", "right"], 1280, 360)
    try m.update(camera: "left", frame: try solid(red, 640, 480), at: seconds(0))  // 4:3 in a 640x360 (16:9) cell
    try m.update(camera: "right", frame: try solid(green, 640, 360), at: seconds(0))
    let out = try m.compose(at: seconds(0.1))
    XCTAssertEqual(out.geometry, FrameGeometry(width: 1280, height: 360))
    XCTAssertEqual(out.presentationTime, seconds(0.1))
    assertColour(out, 320, 180, red, "left centre")
    assertColour(out, 960, 180, green, "right centre")
    // 640x480 fitted into 640x360 is 480x360 at x = 80: black bars 80 px wide each side.
    for (x, colour, what) in [(0, black, "bar"), (78, black, "bar"), (80, red, "picture"), (559, red, "picture"), (560, black, "bar"),
      (638, black, "bar")] as [(Int, Colour, String)]
    {
      for y in [0, 180, 358] { assertColour(out, x, y, colour, "left \(what)") }
    }
    // The right camera is the cell's size: edge to edge, no bars.
    for (x, y) in [(640, 0), (1279, 0), (640, 359), (1279, 359)] { assertColour(out, x, y, green, "right corner") }
  }

  func testACellIsTheScaleFiltersPictureOfItsCamera() throws {
    // A gradient 640x480 into a 640x360 cell: 480x360 at x = 80, each plane as the
    // `scale` filter's kernel makes it (area, the mosaic's choice for a picture that shrinks).
    let source = try YUV420Frame(geometry: FrameGeometry(width: 640, height: 480))
    for index in 0..<3 {
      let plane = source.picture.plane(index)
      for row in 0..<plane.height {
        for x in 0..<plane.width { plane.base[row * plane.stride + x] = UInt8(truncatingIfNeeded: x * 3 + row * 7 + index * 50) }
      }
    }
    let m = try mosaic("hstack", ["left", "right"], 1280, 360)
    try m.update(camera: "left", frame: source, at: seconds(0))
    let out = try m.compose(at: seconds(0))
    var scale = try Scale(width: 480, height: 360, method: .area)
    _ = try scale.configure(input: source.geometry)
    let expected = try YUV420Frame(geometry: FrameGeometry(width: 480, height: 360))
    scale.process(yuv420: source.picture, into: expected.picture)
    var differing = 0
    for index in 0..<3 {
      let got = out.picture.plane(index), want = expected.picture.plane(index)
      let (dx, dy) = index == 0 ? (80, 0) : (40, 0)
      for row in 0..<want.height {
        for x in 0..<want.width where got.base[(row + dy) * got.stride + x + dx] != want.base[row * want.stride + x] { differing += 1 }
      }
    }
    XCTAssertEqual(differing, 0, "samples that differ from the scale filter's")
  }

  func testAStaleCamerasFrameGoesBackToItsPool() throws {
    let pool = try YUV420FramePool(geometry: FrameGeometry(width: 64, height: 36), capacity: 1, kind: .owned)
    let m = try mosaic("hstack", ["left", "right"], 256, 72)
    do {
      let frame = try XCTUnwrap(try pool.acquire(presentationTime: .zero))
      try m.update(camera: "left", frame: frame, at: seconds(0))
    }
    _ = try m.compose(at: seconds(1))
    XCTAssertNil(try pool.acquire(presentationTime: .zero, shouldStop: { true }), "the mosaic shows the newest frame, so it holds it")
    _ = try m.compose(at: seconds(2.5))
    XCTAssertNotNil(try pool.acquire(presentationTime: .zero, shouldStop: { true }), "a stale frame is let go")
  }

  func testCamerasUpdateFromTheirOwnThreadsWhileItComposes() throws {
    let m = try mosaic("hstack", ["left", "right"], 640, 180)
    let left = try solid(red, 320, 180), right = try solid(green, 640, 360)
    let done = DispatchGroup()
    for (name, frame) in [("left", left), ("right", right)] {
      DispatchQueue.global().async(group: done) {
        for _ in 0..<2000 { try? m.update(camera: name, frame: frame) }
      }
    }
    while done.wait(timeout: .now()) == .timedOut { _ = try m.compose(at: Mosaic.now()) }
    let out = try m.compose(at: Mosaic.now())
    assertColour(out, 160, 90, red, "left")
    assertColour(out, 480, 90, green, "right")
  }

  func testVStackAndLetterboxGeometry() throws {
    let m = try mosaic("vstack", ["top", "bottom"], 640, 720)
    try m.update(camera: "top", frame: try solid(red, 1280, 720), at: seconds(0))
    try m.update(camera: "bottom", frame: try solid(blue, 321, 181), at: seconds(0))  // odd sides, scaled up
    let out = try m.compose(at: seconds(0))
    assertColour(out, 320, 180, red, "top centre")
    assertColour(out, 320, 540, blue, "bottom centre")
    XCTAssertEqual(
      MosaicLayout.letterbox(FrameGeometry(width: 640, height: 480), in: PixelRectangle(x: 640, y: 0, width: 640, height: 360)),
      PixelRectangle(x: 720, y: 0, width: 480, height: 360))
    XCTAssertEqual(
      MosaicLayout.letterbox(FrameGeometry(width: 1920, height: 1080), in: PixelRectangle(x: 0, y: 360, width: 640, height: 480)),
      PixelRectangle(x: 0, y: 420, width: 640, height: 360))
    // 321x181 into 640x360: the full height and 638.45 px rounded to an even 638, the
    // 2 px left over on the right (the corner stays even).
    XCTAssertEqual(
      MosaicLayout.letterbox(FrameGeometry(width: 321, height: 181), in: PixelRectangle(x: 0, y: 360, width: 640, height: 360)),
      PixelRectangle(x: 0, y: 360, width: 638, height: 360))
    assertColour(out, 637, 540, blue, "bottom picture")
    assertColour(out, 638, 540, black, "bottom bar")
  }

  func testGridOfThreeLeavesTheFourthCellBlack() throws {
    let m = try mosaic("grid", ["a", "b", "c"], 640, 480)
    for (name, colour) in [("a", red), ("b", green), ("c", blue)] {
      try m.update(camera: name, frame: try solid(colour, 320, 240), at: seconds(0))
    }
    let out = try m.compose(at: seconds(0))
    assertColour(out, 160, 120, red, "cell 1")
    assertColour(out, 480, 120, green, "cell 2")
    assertColour(out, 160, 360, blue, "cell 3")
    for (x, y) in [(320, 240), (480, 360), (639, 479)] { assertColour(out, x, y, black, "cell 4") }
    // Four cameras make 2 columns; five make 3 columns, 2 rows.
    XCTAssertEqual(MosaicLayout.grid.cells(cameras: 5, in: FrameGeometry(width: 1920, height: 1080)).cells.map(\.rectangle), [
      PixelRectangle(x: 0, y: 0, width: 640, height: 540), PixelRectangle(x: 640, y: 0, width: 640, height: 540),
      PixelRectangle(x: 1280, y: 0, width: 640, height: 540), PixelRectangle(x: 0, y: 540, width: 640, height: 540),
      PixelRectangle(x: 640, y: 540, width: 640, height: 540),
    ])
    XCTAssertEqual(
      MosaicLayout.grid.cells(cameras: 5, in: FrameGeometry(width: 1920, height: 1080)).unused,
      [PixelRectangle(x: 1280, y: 540, width: 640, height: 540)])
  }

  func testPictureInPictureSitsInItsCornerAtItsSize() throws {
    // 25% of 1280x720 is 320x180, 18 px (720 / 40) from the edges.
    let m = try mosaic("pip=cam2:corner=br:size=25%", ["cam1", "cam2"], 1280, 720)
    try m.update(camera: "cam1", frame: try solid(red, 1280, 720), at: seconds(0))
    try m.update(camera: "cam2", frame: try solid(green, 1280, 720), at: seconds(0))
    let out = try m.compose(at: seconds(0))
    let (left, top, right, bottom) = (1280 - 18 - 320, 720 - 18 - 180, 1280 - 18, 720 - 18)
    for (x, y) in [(left, top), (right - 1, top), (left, bottom - 1), (right - 1, bottom - 1), (left + 160, top + 90)] {
      assertColour(out, x, y, green, "inset")
    }
    for (x, y) in [(left - 2, top), (left, top - 2), (right, bottom - 1), (right - 1, bottom), (640, 360), (0, 0), (1279, 719)] {
      assertColour(out, x, y, red, "full picture")
    }
    // Top left, 30%: 384x216 from (18, 18).
    let tl = try mosaic("pip=cam1:corner=tl:size=30%", ["cam1", "cam2"], 1280, 720)
    try tl.update(camera: "cam1", frame: try solid(red, 1280, 720), at: seconds(0))
    try tl.update(camera: "cam2", frame: try solid(green, 1280, 720), at: seconds(0))
    let small = try tl.compose(at: seconds(0))
    assertColour(small, 18, 18, red, "inset")
    assertColour(small, 18 + 383, 18 + 215, red, "inset")
    assertColour(small, 18 + 384, 18, green, "full picture")
    assertColour(small, 16, 16, green, "full picture")
  }

  func testAStaleCameraShowsItsCardAndComesBack() throws {
    let m = try mosaic("hstack", ["garden", "porch"], 1280, 360)
    // Nothing yet: both cards, dark grey.
    let empty = try m.compose(at: seconds(0))
    for x in [2, 642] { XCTAssertEqual(sample(empty, x, 2), [NoSignalCard.luma, 128, 128], "card at x \(x)") }
    try m.update(camera: "garden", frame: try solid(red, 640, 360), at: seconds(0))
    try m.update(camera: "porch", frame: try solid(green, 640, 360), at: seconds(0))
    let live = try m.compose(at: seconds(1.9))
    assertColour(live, 2, 2, red, "garden")
    assertColour(live, 642, 2, green, "porch")
    // The garden goes on, the porch says nothing for more than 2 s.
    try m.update(camera: "garden", frame: try solid(red, 640, 360), at: seconds(2.5))
    let stale = try m.compose(at: seconds(3))
    assertColour(stale, 2, 2, red, "garden")
    XCTAssertEqual(sample(stale, 642, 2), [NoSignalCard.luma, 128, 128], "porch's card")
    let text = try ocr(stale, PixelRectangle(x: 640, y: 0, width: 640, height: 360)).lowercased()
    XCTAssertTrue(text.contains("porch"), "OCR read \(text)")
    XCTAssertTrue(text.contains("no signal"), "OCR read \(text)")
    XCTAssertFalse(try ocr(stale, PixelRectangle(x: 0, y: 0, width: 640, height: 360)).lowercased().contains("signal"))
    // It comes back with its next picture.
    try m.update(camera: "porch", frame: try solid(blue, 640, 360), at: seconds(3.5))
    let back = try m.compose(at: seconds(3.6))
    assertColour(back, 642, 2, blue, "porch")
    assertColour(back, 960, 180, blue, "porch")
  }

  /// What tesseract reads in rectangle `r` of `frame` (luma only, inverted: dark text
  /// on light, which it reads best).
  func ocr(_ frame: YUV420Frame, _ r: PixelRectangle) throws -> String {
    let image = PixelBuffer(width: r.width, height: r.height)
    let stride = image.bytesPerRow
    image.withUnsafeMutableBytes { base in
      let bytes = base.assumingMemoryBound(to: UInt8.self)
      for y in 0..<r.height {
        for x in 0..<r.width {
          let value = 255 - frame.y[(r.y + y) * frame.yStride + r.x + x]
          let p = bytes + y * stride + x * 4
          p[0] = value
          p[1] = value
          p[2] = value
          p[3] = 255
        }
      }
    }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mosaic-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let png = dir.appendingPathComponent("cell.png").path
    try PNGFile.write(image, to: png, alpha: false)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/tesseract")
    process.arguments = [png, "stdout", "--psm", "6"]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "tesseract failed")
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  func testLayoutsParse() throws {
    let two = ["cam1", "cam2"]
    XCTAssertEqual(try MosaicLayout(parsing: "grid", cameras: two), .grid)
    XCTAssertEqual(try MosaicLayout(parsing: "hstack", cameras: two), .hstack)
    XCTAssertEqual(try MosaicLayout(parsing: "vstack", cameras: ["one"]), .vstack)
    XCTAssertEqual(try MosaicLayout(parsing: "pip=cam2", cameras: two), .pip(camera: 1, corner: .bottomRight, percent: 25))
    XCTAssertEqual(
      try MosaicLayout(parsing: "pip=cam1:corner=tl:size=30%", cameras: two), .pip(camera: 0, corner: .topLeft, percent: 30))
    XCTAssertEqual(try MosaicLayout(parsing: "pip=cam1:size=40", cameras: two), .pip(camera: 0, corner: .bottomRight, percent: 40))
    XCTAssertEqual(MosaicLayout.pip(camera: 1, corner: .topRight, percent: 20).text(cameras: two), "pip=cam2:corner=tr:size=20%")
  }

  func testLayoutErrorsAreOneLineEach() {
    func message(_ text: String, _ cameras: [String] = ["cam1", "cam2"]) -> String {
      do {
        _ = try MosaicLayout(parsing: text, cameras: cameras)
        return "no error"
      } catch {
        return error.description
      }
    }
    XCTAssertEqual(message("mosaic"), "layout 'mosaic': unknown layout (known: grid, hstack, vstack, pip=CAMERA)")
    XCTAssertEqual(message(""), "layout '': unknown layout (known: grid, hstack, vstack, pip=CAMERA)")
    XCTAssertEqual(message("pip=cam3"), "layout 'pip=cam3', camera 'cam3': no such camera (cameras: cam1, cam2)")
    XCTAssertEqual(message("pip"), "layout 'pip': pip needs the inset camera's name (pip=CAMERA[:corner=tl|tr|bl|br][:size=25%])")
    XCTAssertEqual(
      message("pip=cam2:corner=middle"),
      "layout 'pip=cam2:corner=middle', key 'corner', value 'middle': expected one of tl, tr, bl, br")
    XCTAssertEqual(
      message("pip=cam2:size=250%"),
      "layout 'pip=cam2:size=250%', key 'size', value '250%': expected a percentage of the output in 5%...95%")
    XCTAssertEqual(
      message("pip=cam2:size=big"),
      "layout 'pip=cam2:size=big', key 'size', value 'big': expected a percentage of the output in 5%...95%")
    XCTAssertEqual(message("pip=cam2:where=br"), "layout 'pip=cam2:where=br', key 'where': unknown key (known: corner, size)")
    XCTAssertEqual(
      message("pip=cam2:corner=tl:corner=br"), "layout 'pip=cam2:corner=tl:corner=br', key 'corner': given twice")
    XCTAssertEqual(message("grid:columns=3"), "layout 'grid:columns=3', key 'columns': unknown key (grid takes no options)")
    XCTAssertEqual(message("hstack=cam1"), "layout 'hstack=cam1': 'hstack' takes no camera (only pip=CAMERA does)")
    XCTAssertEqual(
      message("pip=b", ["a", "b", "c"]),
      "layout 'pip=b': pip shows two cameras, the inset and the full picture (got 3: a, b, c)")
    XCTAssertEqual(message("grid", []), "layout 'grid': no cameras")
  }

  func testMosaicErrorsNameWhatIsWrong() throws {
    let m = try mosaic("hstack", ["left", "right"], 640, 360)
    XCTAssertThrowsError(try m.update(camera: "middle", frame: try solid(red, 2, 2))) { error in
      XCTAssertEqual("\(error)", "layout 'hstack', camera 'middle': no such camera (cameras: left, right)")
    }
    XCTAssertThrowsError(try mosaic("hstack", ["left", "right"], 641, 360)) { error in
      XCTAssertEqual("\(error)", "layout 'hstack': the output size 641x360 must have even sides of 2...16384")
    }
    XCTAssertThrowsError(try mosaic("grid", ["a", "b", "c", "d"], 8, 2)) { error in
      XCTAssertEqual("\(error)", "layout 'grid': the output size 8x2 is too small for 4 cells")
    }
    XCTAssertThrowsError(try mosaic("hstack", ["left", "left"], 640, 360)) { error in
      XCTAssertEqual("\(error)", "layout 'hstack': two cameras have the same name")
    }
  }
}
