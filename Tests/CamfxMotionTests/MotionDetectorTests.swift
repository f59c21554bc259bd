import CamfxMotion
import XCTest

/// The detector on generated pictures: a box that comes and goes in sensor noise, and
/// the changes that are not motion (noise, light steps and ramps, masked parts).
final class MotionDetectorTests: XCTestCase {
  private func detector(_ options: MotionDetector.Options = .init(), width: Int = 320, height: Int = 240) throws
    -> MotionDetector
  {
    try MotionDetector(width: width, height: height, options: options)
  }

  func testABoxThatComesAndGoesIsOneMotionFromItsFirstFrameToItsLast() throws {
    let frames = MotionScene().run(try detector())
    let began = frames.compactMap(\.began), ended = frames.compactMap(\.ended)
    XCTAssertEqual(began.count, 1, "\(began)")
    XCTAssertEqual(ended.count, 1, "\(ended)")
    XCTAssertEqual(began.first ?? 0, 6.0, accuracy: 0.1)
    XCTAssertEqual(ended.first ?? 0, 9.0, accuracy: 0.1)
    // While it moves, the box is found where it is.
    let middle = try XCTUnwrap(frames.first { abs($0.time - 7.5) < 1e-6 })
    XCTAssertTrue(middle.moving)
    let box = try XCTUnwrap(middle.boxes.first)
    let truth = try XCTUnwrap(MotionScene().boxRect(at: 7.5))
    XCTAssertEqual(Double(box.x), Double(truth.x), accuracy: 4, "\(box)")
    XCTAssertEqual(Double(box.y), Double(truth.y), accuracy: 4, "\(box)")
    XCTAssertEqual(Double(box.width), Double(truth.size), accuracy: 8, "\(box)")
    // Its score is its share of the picture: 48×48 of 320×240 is 3%.
    XCTAssertEqual(middle.score, 3.0, accuracy: 0.6)
    XCTAssertEqual(middle.threshold, 0.5)
    // The noise (σ 3, then averaged over 2×2) is measured, and stays under the threshold.
    XCTAssertEqual(middle.noise, 1.5, accuracy: 0.4)
    XCTAssertLessThan(frames.filter { $0.time < 5.9 || $0.time > 9.1 }.map(\.score).max() ?? 1, 0.1)
  }

  func testNoiseAndLightAreNoMotion() throws {
    for (name, scene) in [
      ("noise", MotionScene(box: nil)),
      ("noise σ 6", MotionScene(box: nil, sigma: 6)),
      ("a step of +40", MotionScene(box: nil, light: .step(at: 5, levels: 40))),
      ("a step of −50", MotionScene(box: nil, light: .step(at: 5, levels: -50))),
      ("a ramp of +80 over 10 s", MotionScene(box: nil, light: .ramp(from: 2, to: 12, levels: 80))),
    ] {
      let frames = scene.run(try detector())
      XCTAssertEqual(frames.compactMap(\.began), [], name)
      XCTAssertEqual(frames.filter(\.changed).count, 0, "\(name): \(frames.filter(\.changed).prefix(3))")
    }
  }

  func testALightThatChangesMostOfThePictureIsLearnedAgain() throws {
    // A step the median cannot take out: the lit part turns bright, the rest stays.
    var scene = MotionScene(box: nil)
    scene.sigma = 3
    let detector = try detector()
    var results: [MotionFrame] = []
    for index in 0..<300 {
      var picture = scene.luma(frame: index)
      if index >= 150 {
        for i in 0..<(picture.count * 3 / 4) { picture[i] = UInt8(min(255, Int(picture[i]) * 2)) }
      }
      results.append(picture.withUnsafeBufferPointer {
        detector.analyze(LumaPicture(base: $0.baseAddress!, width: 320, height: 240, bytesPerRow: 320, layout: .luma), at: Double(index) / 30)
      })
    }
    XCTAssertEqual(results.filter(\.lightSwitch).map(\.time), [5.0])
    XCTAssertEqual(results.compactMap(\.began), [])
  }

  func testMasksAndZonesDecideWhereMotionCounts() throws {
    let path = try XCTUnwrap(MotionPolygon("20,80 300,80 300,160 20,160"))
    // The box's whole path ignored, by a polygon or by a mask picture.
    XCTAssertEqual(MotionScene().run(try detector(.init(ignore: [path]))).compactMap(\.began), [])
    var pixels = [UInt8](repeating: 255, count: 320 * 240)
    for y in 80..<160 { for x in 20..<300 { pixels[y * 320 + x] = 0 } }
    let mask = MotionMask(path: "mask.pgm", width: 320, height: 240, pixels: pixels)
    XCTAssertEqual(MotionScene().run(try detector(.init(mask: mask))).compactMap(\.began), [])
    // A zone around the path: its own area rule decides. The box is 48×48 of 280×80.
    let strict = MotionZone(name: "path", polygon: path, area: 20)
    XCTAssertEqual(MotionScene().run(try detector(.init(zones: [strict]))).compactMap(\.began), [])
    let loose = MotionZone(name: "path", polygon: path, area: 5)
    let frames = MotionScene().run(try detector(.init(zones: [loose])))
    XCTAssertEqual(frames.compactMap(\.began).count, 1)
    XCTAssertEqual(frames.first { $0.moving }?.zone, "path")
    XCTAssertEqual(frames.first { $0.moving }?.score ?? 0, 48.0 * 48 / (280 * 80) * 100, accuracy: 2.5)
    // A zone elsewhere: nothing counts outside zones.
    let elsewhere = try MotionZone("sky:0,0 320,0 320,60 0,60")
    XCTAssertEqual(MotionScene().run(try detector(.init(zones: [elsewhere]))).compactMap(\.began), [])
    // A zone's own pixel threshold above the box's contrast: nothing.
    let blind = MotionZone(name: "path", polygon: path, area: 1, threshold: 250)
    XCTAssertEqual(MotionScene().run(try detector(.init(zones: [blind]))).compactMap(\.began), [])
  }

  func testMinimumFramesStartMotionAtTheFirstFrameOfTheRun() throws {
    let frames = MotionScene().run(try detector(.init(frames: 10)))
    let beganOn = try XCTUnwrap(frames.first { $0.began != nil })
    XCTAssertEqual(beganOn.began ?? 0, 6.0, accuracy: 0.1)
    XCTAssertEqual(beganOn.time, (beganOn.began ?? 0) + 9.0 / 30, accuracy: 1e-6)
  }

  func testBadOptionsAreOneLineErrors() throws {
    func message(_ body: () throws -> Void) -> String {
      do {
        try body()
        return "no error"
      } catch {
        return "\(error)"
      }
    }
    XCTAssertEqual(
      message { _ = try detector(.init(mask: MotionMask(path: "m.pgm", width: 640, height: 480, pixels: []))) },
      "the mask 'm.pgm' is 640x480, the picture 320x240: make them the same size")
    XCTAssertEqual(
      message { _ = try detector(.init(zones: [MotionZone("door:0,0 400,0 400,100")])) },
      "zone 'door': the point 400,0 is outside the 320x240 picture")
    XCTAssertEqual(
      message { _ = try detector(.init(ignore: [MotionPolygon("0,0 10,-5 10,10")])) },
      "--motion-ignore: the point 10,-5 is outside the 320x240 picture")
    XCTAssertEqual(message { _ = try MotionZone(":0,0 10,0 10,10") }, "':0,0 10,0 10,10': a zone needs a name (NAME:X,Y X,Y X,Y)")
    XCTAssertEqual(message { _ = try MotionZone("door:0,0 10,0") }, "zone 'door': '0,0 10,0' has 2 points: a polygon needs at least 3 (X,Y X,Y X,Y)")
    XCTAssertEqual(message { _ = try MotionZone("door:0,0 10,0 x,1") }, "zone 'door': 'x,1' is not a point X,Y (pixels, e.g. 120,40)")
    XCTAssertEqual(
      message { _ = try MotionZone("door:0,0 10,0 10,10:area=120%") },
      "zone 'door' area '120%' must be a percentage from 0.01 to 100")
    XCTAssertEqual(
      message { _ = try MotionZone("door:0,0 10,0 10,10:size=3") },
      "zone 'door': unknown setting 'size=3' (expected area=P% or threshold=N)")
    XCTAssertEqual(
      message { _ = try detector(.init(threshold: 0)) },
      "--motion-threshold '0' must be a whole number of luma levels from 1 to 255")
    XCTAssertEqual(message { _ = try detector(.init(frames: 0)) }, "--motion-frames '0' must be from 1 to 300")
    XCTAssertEqual(
      message { _ = try detector(.init(zones: [MotionZone("a:0,0 10,0 10,10"), MotionZone("a:0,0 20,0 20,20")])) },
      "two zones are named 'a'")
    XCTAssertEqual(
      message { _ = try detector(.init(zones: [MotionZone("dot:0,0 1,0 1,1")])) },
      "zone 'dot' covers no watched part of the picture (it must hold the centre of a 2x2 square)")
  }

  func testAPGMMaskIsRead() throws {
    let path = NSTemporaryDirectory() + "camfx-mask-\(getpid()).pgm"
    defer { unlink(path) }
    var bytes = Array("P5\n# a comment\n4 2\n255\n".utf8)
    bytes += [0, 255, 255, 0, 255, 255, 0, 0]
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    let mask = try MotionMask(path: path)
    XCTAssertEqual([mask.width, mask.height], [4, 2])
    XCTAssertEqual(mask.pixels, [0, 255, 255, 0, 255, 255, 0, 0])
    _ = FileManager.default.createFile(atPath: path, contents: Data("P2 2 1 15 0 15".utf8))
    XCTAssertEqual(try MotionMask(path: path).pixels, [0, 255])
    // Damaged masks are errors, never a crash or a huge allocation.
    for (contents, message) in [
      ("P2 2 1 15 0 -5", "has a value -5 outside 0...15"),
      ("P2 2 1 15 0 99", "has a value 99 outside 0...15"),
      ("P5 30000 30000 255\n\u{0}\u{0}", "ends early: its header says 30000x30000"),
      ("P2 30000 30000 255 0 0", "ends early: its header says 30000x30000"),
      ("P5 2 1 0\n\u{0}\u{0}", "has a damaged PGM header"),
    ] {
      _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8))
      XCTAssertThrowsError(try MotionMask(path: path), contents) { error in
        XCTAssertEqual("\(error)", "the mask '\(path)' \(message)", contents)
      }
    }
    _ = FileManager.default.createFile(atPath: path, contents: Data("P6 2 1 255 ".utf8))
    XCTAssertThrowsError(try MotionMask(path: path)) { error in
      XCTAssertEqual("\(error)", "the mask '\(path)' is not a PGM picture (P5 or P2; e.g. convert mask.png mask.pgm)")
    }
  }
}
