import Foundation
import XCTest

/// `camfx bench` as a user runs it. These check the shape of the output, never the
/// figures (the test binary is a debug build on a shared machine).
final class BenchCommandTests: CLITestCase {
  func rows(_ args: [String]) throws -> [[String: Any]] {
    let result = try CLI.run(["bench"] + args, in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    XCTAssertEqual(result.stderr, "")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    return try XCTUnwrap(object?["rows"] as? [[String: Any]], result.stdout)
  }

  func testJSONHasARowPerFilterAndMemcpy() throws {
    let rows = try rows(["--seconds", "0.05", "--json", "--size", "64x48", "--frames", "hot"])
    XCTAssertEqual(
      rows.map { $0["operation"] as? String },
      [
        "memcpy", "grayscale", "mirror", "mirror vertical", "crop (view)", "crop + copy", "watermark 256x64",
        "scale 42x32 bilinear", "scale 42x32 fast_bilinear", "scale 42x32 bicubic", "scale 32x24 bilinear", "scale 32x24 area", "timestamp",
        "color", "rotate 90", "pad +64", "fit 42x32", "bgra-to-yuv420p", "yuyv-to-bgra", "nv12-to-bgra", "nv12-to-yuv420p", "mjpeg-to-yuv420p",
        "mjpeg-to-yuv420p-libavcodec", "yuv420-filter-pass", "row-band-pass", "whole-frame-pass",
        "yuyv-mirror-via-bgra", "yuyv-mirror-yuv420p", "motion-detect", "mosaic-hstack", "mosaic-grid", "ring",
        "transcode",
      ])
    for row in rows where row["operation"] as? String == "ring" {
      // The ring runs once, not per size, and moves no frame bytes.
      XCTAssertEqual(row["size"] as? String, "1x1")
      XCTAssertGreaterThan(row["framesPerSecond"] as? Double ?? 0, 0, "\(row)")
      XCTAssertTrue(row["gigabytesPerSecond"] is NSNull, "\(row)")
    }
    for row in rows where !["ring", "transcode"].contains(row["operation"] as? String) {
      XCTAssertEqual(row["size"] as? String, "64x48")
      XCTAssertGreaterThan(row["framesPerSecond"] as? Double ?? 0, 0, "\(row)")
      if row["operation"] as? String == "crop (view)" {
        XCTAssertTrue(row["gigabytesPerSecond"] is NSNull, "a view moves no bytes: \(row)")
      } else {
        XCTAssertGreaterThan(row["gigabytesPerSecond"] as? Double ?? 0, 0, "\(row)")
      }
      XCTAssertGreaterThan(row["ratioToMemcpy"] as? Double ?? 0, 0, "\(row)")
      XCTAssertGreaterThan(row["frames"] as? Int ?? 0, 0, "\(row)")
    }
    XCTAssertEqual(rows[0]["ratioToMemcpy"] as? Double, 1)
  }

  func testFilterAndRepeatedSizeSelectRows() throws {
    let rows = try rows(["--seconds", "0.02", "--json", "--size", "33x17", "--size", "8x2", "--filter", "mirror", "--frames", "hot"])
    XCTAssertEqual(rows.map { $0["operation"] as? String }, ["memcpy", "mirror", "mirror vertical", "memcpy", "mirror", "mirror vertical"])
    XCTAssertEqual(rows.map { $0["size"] as? String }, ["33x17", "33x17", "33x17", "8x2", "8x2", "8x2"])
  }

  func testFilterSelectsPipelineRowsByName() throws {
    let rows = try rows(["--seconds", "0.02", "--json", "--size", "64x48", "--filter", "nv12-to-bgra", "--filter", "ring", "--frames", "hot"])
    XCTAssertEqual(rows.map { $0["operation"] as? String }, ["memcpy", "nv12-to-bgra", "ring"])
  }

  func testTranscodeRowRunsTheWholePipelineOnceAtTheLargestSize() throws {
    let rows = try rows(["--seconds", "0.05", "--json", "--size", "32x16", "--size", "64x48", "--filter", "transcode", "--frames", "hot"])
    XCTAssertEqual(rows.map { $0["operation"] as? String }, ["memcpy", "memcpy", "transcode"])
    let transcode = rows[2]
    XCTAssertEqual(transcode["size"] as? String, "64x48")
    XCTAssertEqual(transcode["frames"] as? Int, 30, "every frame of the 30-frame clip came out: \(transcode)")
    XCTAssertGreaterThan(transcode["framesPerSecond"] as? Double ?? 0, 0, "\(transcode)")
    XCTAssertTrue(transcode["ratioToMemcpy"] is NSNull, "\(transcode)")
  }

  func testTableHasHeaderAndRows() throws {
    let result = try CLI.run(["bench", "--seconds", "0.02", "--size", "16x16", "--filter", "grayscale", "--pool-mb", "1"], in: dir)
    XCTAssertEqual(result.status, 0, "\(result)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 6, result.stdout)
    XCTAssertTrue(lines[0].hasSuffix("; cold frames from a pool of 1 MB"), lines[0])
    XCTAssertTrue(lines[1].hasPrefix("operation          size       frame     frames/s      GB/s   x memcpy"), lines[1])
    XCTAssertTrue(lines[2].hasPrefix("memcpy             16x16      hot  "), lines[2])
    XCTAssertTrue(lines[3].hasPrefix("memcpy             16x16      cold "), lines[3])
    XCTAssertTrue(lines[4].hasPrefix("grayscale          16x16      hot  "), lines[4])
    XCTAssertTrue(lines[5].hasPrefix("grayscale          16x16      cold "), lines[5])
  }

  /// Cold rows: every case again on frames from a pool, each compared with memcpy from
  /// a pool of its own size; the ring, which moves no frames, runs hot only.
  func testColdRowsFollowHotOnesAndCompareWithColdMemcpy() throws {
    let rows = try rows(["--seconds", "0.02", "--json", "--size", "64x48", "--filter", "rotate", "--filter", "ring", "--pool-mb", "2"])
    XCTAssertEqual(
      rows.map { "\($0["operation"] as? String ?? "?") \($0["frame"] as? String ?? "?")" },
      ["memcpy hot", "memcpy cold", "rotate 90 hot", "rotate 90 cold", "ring hot"])
    let memcpyCold = try XCTUnwrap(rows[1]["framesPerSecond"] as? Double)
    let rotateCold = try XCTUnwrap(rows[3]["framesPerSecond"] as? Double)
    XCTAssertEqual(rows[1]["ratioToMemcpy"] as? Double, 1)
    XCTAssertEqual(try XCTUnwrap(rows[3]["ratioToMemcpy"] as? Double), rotateCold / memcpyCold, accuracy: 0.01 * rotateCold / memcpyCold)
  }

  func testBadOptionsAreUsageErrors() throws {
    for (args, message) in [
      (["--seconds", "0"], "camfx: error: --seconds must be more than 0 and at most 60, got 0.0"),
      (["--size", "abc"], "camfx: error: --size: invalid size 'abc': expected WIDTHxHEIGHT, e.g. 1280x720"),
      (["--size", "99999x99999"], "camfx: error: --size: invalid size '99999x99999': width and height must be at most 16384"),
      (["--frames", "warm"], "camfx: error: --frames: 'warm' is not hot or cold (e.g. --frames hot,cold)"),
      (["--pool-mb", "0"], "camfx: error: --pool-mb must be from 1 to 1048576, got 0"),
      (["--filter", "blur"], "camfx: error: unknown filter 'blur' for --filter (known: watermark, grayscale, crop, mirror, scale, fit, pad, rotate, color, text, timestamp, frei0r, bgra-to-yuv420p, yuyv-to-bgra, nv12-to-bgra, nv12-to-yuv420p, mjpeg-to-yuv420p, mjpeg-to-yuv420p-libavcodec, yuv420-filter-pass, row-band-pass, whole-frame-pass, yuyv-mirror-via-bgra, yuyv-mirror-yuv420p, motion-detect, mosaic-hstack, mosaic-grid, ring, transcode)"),
    ] {
      let result = try CLI.run(["bench"] + args, in: dir)
      XCTAssertEqual(result.status, 64, "\(args): \(result)")
      XCTAssertEqual(result.stdout, "")
      XCTAssertEqual(result.stderr, message + " (see camfx --help)\n", "\(args)")
    }
  }
}
