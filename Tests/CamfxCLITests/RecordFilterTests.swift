import Foundation
import Synchronization
import XCTest

/// testsrc 640x360 at 30 fps for 2 s through each built-in filter and through all four:
/// the decoded movies have the negotiated size, 60 frames, increasing timestamps, and
/// pixels that show each filter ran.
final class RecordFilterTests: CLITestCase {
  private struct Recording {
    var name: String
    var filters: [String]
    var size: (Int, Int)
  }

  private let recordings = [
    Recording(name: "plain", filters: [], size: (640, 360)),
    Recording(name: "grayscale", filters: ["grayscale"], size: (640, 360)),
    Recording(name: "mirror", filters: ["mirror"], size: (640, 360)),
    Recording(name: "crop", filters: ["crop=width=320:height=240"], size: (320, 240)),
    Recording(name: "watermark", filters: ["watermark"], size: (640, 360)),
    Recording(name: "chain", filters: ["watermark,grayscale", "crop=width=320:height=240", "mirror"], size: (320, 240)),
  ]

  func testEveryBuiltinFilterAndTheChainOfAllFour() throws {
    // Record all six at once: the machine has two cores and each run is mostly waiting
    // on one stage at a time.
    let results = Mutex<[Int: CLI.Result]>([:])
    let recordings = self.recordings
    let dir = self.dir!
    DispatchQueue.concurrentPerform(iterations: recordings.count) { i in
      let r = recordings[i]
      let args = ["record", "--size", "640x360", "--fps", "30", "--duration", "2s", "--no-realtime", "--quiet",
                  "--x264-preset", "ultrafast", "-o", "\(r.name).mp4"] + r.filters.flatMap { ["--filter", $0] }
      let result = try? CLI.run(args, in: dir)
      results.withLock { $0[i] = result }
    }
    var frames: [String: [UInt8]] = [:]  // frame 30 of each movie, yuv420p
    for (i, r) in recordings.enumerated() {
      let result = try XCTUnwrap(results.withLock { $0[i] }, r.name)
      XCTAssertEqual(result.status, 0, "\(r.name): \(result)")
      let video = try XCTUnwrap(MovieOracle.probe(path("\(r.name).mp4"))["video"], r.name)
      XCTAssertEqual(video.codec, "h264", r.name)
      XCTAssertEqual([video.width, video.height], [r.size.0, r.size.1], r.name)
      XCTAssertEqual(video.frames, 60, r.name)
      XCTAssertEqual(video.frameTimes.count, 60, r.name)
      XCTAssertTrue(zip(video.frameTimes, video.frameTimes.dropFirst()).allSatisfy { $0 < $1 }, "\(r.name): \(video.frameTimes)")
      XCTAssertEqual(video.duration, 2.0, accuracy: 1.0 / 30, r.name)
      let decoded = try MovieOracle.decodeYUV(path("\(r.name).mp4"), width: r.size.0, height: r.size.1)
      XCTAssertEqual(decoded.count, 60, r.name)
      frames[r.name] = decoded[30]
    }
    let plain = Plane(frames["plain"]!, 640, 360)

    // grayscale: no colour left, so both chroma planes sit at 128.
    for name in ["grayscale", "chain"] {
      let (w, h) = name == "chain" ? (320, 240) : (640, 360)
      let chroma = frames[name]![(w * h)...]
      XCTAssertLessThanOrEqual(chroma.map { abs(Int($0) - 128) }.max() ?? 99, 3, "\(name): chroma must be ~128")
    }
    XCTAssertGreaterThan(
      frames["plain"]![(640 * 360)...].map { abs(Int($0) - 128) }.max() ?? 0, 40, "the test pattern has colour")

    // mirror: the frame equals the unfiltered frame flipped left to right.
    let mirrored = Plane(frames["mirror"]!, 640, 360)
    XCTAssertLessThan(mirrored.meanDifference(plain, flipped: true), 2.5)
    XCTAssertGreaterThan(mirrored.meanDifference(plain, flipped: false), 10, "mirror must change the picture")

    // crop: the centred 320x240 of the unfiltered frame.
    let cropped = Plane(frames["crop"]!, 320, 240)
    XCTAssertLessThan(cropped.meanDifference(plain, offsetX: 160, offsetY: 60), 2.5)

    // watermark: the built-in 120x40 mark, bottom-right with a 16 px margin; elsewhere unchanged.
    let marked = Plane(frames["watermark"]!, 640, 360)
    XCTAssertGreaterThan(marked.meanDifference(plain, region: (504, 304, 120, 40)), 10)
    XCTAssertLessThan(marked.meanDifference(plain, region: (0, 0, 480, 280)), 1.5)
  }

  /// The luma plane of a decoded yuv420p frame.
  private struct Plane {
    let bytes: [UInt8]
    let width: Int
    let height: Int
    init(_ yuv: [UInt8], _ width: Int, _ height: Int) {
      bytes = Array(yuv[0..<(width * height)])
      self.width = width
      self.height = height
    }
    func luma(_ x: Int, _ y: Int) -> Int { Int(bytes[y * width + x]) }

    /// Mean |self − other| over self's pixels, reading `other` flipped or offset.
    func meanDifference(_ other: Plane, flipped: Bool = false, offsetX: Int = 0, offsetY: Int = 0) -> Double {
      var sum = 0
      for y in 0..<height {
        for x in 0..<width {
          let ox = flipped ? other.width - 1 - x : x + offsetX
          sum += abs(luma(x, y) - other.luma(ox, y + offsetY))
        }
      }
      return Double(sum) / Double(width * height)
    }

    /// Mean |self − other| over a rectangle (x, y, width, height) of both.
    func meanDifference(_ other: Plane, region: (Int, Int, Int, Int)) -> Double {
      var sum = 0
      for y in region.1..<(region.1 + region.3) {
        for x in region.0..<(region.0 + region.2) { sum += abs(luma(x, y) - other.luma(x, y)) }
      }
      return Double(sum) / Double(region.2 * region.3)
    }
  }
}
