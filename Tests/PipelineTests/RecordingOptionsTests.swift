import Camfx
import CamfxMedia
import XCTest

/// `--duration` and `--max-size` values, the status line and summary, and drops a live
/// source counted itself.
final class RecordingOptionsTests: XCTestCase {
  func testDurations() throws {
    let seconds: [(String, Int64)] = [
      ("10s", 10), ("10", 10), ("2m", 120), ("1h", 3600), ("90m", 5400), ("2h", 7200), ("1h30m", 5400),
      ("1h30m15s", 5415), ("1d", 86_400), ("1d2h", 93_600), ("1:30:00", 5400), ("0:45", 45), ("10:00", 600),
    ]
    for (text, value) in seconds {
      XCTAssertEqual(try RecordingLimits.parseDuration(text, option: "--duration"), MediaTime(value: value, timescale: 1), text)
    }
    XCTAssertEqual(try RecordingLimits.parseDuration("1.5s", option: "--duration"), MediaTime(value: 3, timescale: 2))
    XCTAssertEqual(try RecordingLimits.parseDuration("500ms", option: "--duration"), MediaTime(value: 1, timescale: 2))
    XCTAssertEqual(try RecordingLimits.parseDuration("1:02.5", option: "--duration"), MediaTime(value: 125, timescale: 2))
    XCTAssertEqual(try RecordingLimits.parseDuration("1m500ms", option: "--duration"), MediaTime(value: 121, timescale: 2))
    let bad = [
      "", "abc", "-1s", "0", "0s", "1.2.3s", "5x", "s", "1e3", " 5s", "0.0001s", "30m1h", "1h1h", "1h30", "1:60",
      "1:2", "1:60:00", "1::00", ":30", "1:30:00:00", "1d:2", "h",
    ]
    for text in bad {
      XCTAssertThrowsError(try RecordingLimits.parseDuration(text, option: "--duration"), text) { error in
        XCTAssertEqual(
          "\(error)",
          "--duration: invalid duration '\(text)': expected a positive time such as 10s, 500ms, 90m, 1h30m, 1d or 1:30:00 (at least 1ms)")
      }
    }
  }

  func testByteCounts() throws {
    XCTAssertEqual(try RecordingLimits.parseByteCount("50M", option: "--max-size"), 50_000_000)
    XCTAssertEqual(try RecordingLimits.parseByteCount("1.5G", option: "--max-size"), 1_500_000_000)
    XCTAssertEqual(try RecordingLimits.parseByteCount("800k", option: "--max-size"), 800_000)
    XCTAssertEqual(try RecordingLimits.parseByteCount("800kB", option: "--max-size"), 800_000)
    XCTAssertEqual(try RecordingLimits.parseByteCount("64MiB", option: "--max-size"), 64 * 1_048_576)
    XCTAssertEqual(try RecordingLimits.parseByteCount("4096", option: "--max-size"), 4096)
    // A loop recording's --max-total on a large disk.
    XCTAssertEqual(try RecordingLimits.parseByteCount("2T", option: "--max-size"), 2_000_000_000_000)
    XCTAssertEqual(try RecordingLimits.parseByteCount("1.5TiB", option: "--max-size"), 1_649_267_441_664)
    for bad in ["", "abc", "-5M", "0", "5X", "M", "1.5.5M"] {
      XCTAssertThrowsError(try RecordingLimits.parseByteCount(bad, option: "--max-size"), bad) { error in
        XCTAssertEqual("\(error)", "--max-size: invalid size '\(bad)': expected a byte count such as 50M, 1.5G, 800k or 64MiB")
      }
    }
  }

  func testStatusLineShowsRecentFpsAndTotals() {
    var line = RecordingStatusLine()
    let s1 = RecordingStatistics.Snapshot(
      framesIn: 15, framesWritten: 15, droppedLate: 0, droppedOutOfBuffers: 0, bytesWritten: 62_500)
    XCTAssertEqual(line.text(for: s1, elapsed: 0.5), "00:00.5  30.0 fps  frames 15  dropped 0  62.5 kB  1.0 Mbit/s")
    let s2 = RecordingStatistics.Snapshot(
      framesIn: 1830, framesWritten: 1820, droppedLate: 7, droppedOutOfBuffers: 3, bytesWritten: 12_345_678)
    XCTAssertEqual(
      line.text(for: s2, elapsed: 61.0), "01:01.0  29.8 fps  frames 1820  dropped 10  12.3 MB  1.6 Mbit/s")
  }

  func testSummaryNamesEveryFigure() {
    let summary = RecordingSummary(
      framesIn: 61, framesOut: 60, dropped: ["late": 1, "out-of-buffers": 0], audioChunks: 90,
      durationSeconds: 2.0, elapsedSeconds: 2.14, bytes: 181_234, stopReason: .duration, error: nil)
    XCTAssertEqual(
      RecordingStatusLine.summary(summary, output: "out.mp4"),
      "recorded 60 frames (2.00 s) to out.mp4: 181.2 kB, 724.9 kbit/s, 1 dropped (late 1, out-of-buffers 0, corrupt 0); stopped by duration after 2.1 s"
    )
  }

  func testDropsCountedByALiveSourceReachTheStatistics() throws {
    /// Every third frame number is "skipped late", every fifth "out of buffers".
    final class DroppingSource: MediaSource {
      typealias Audio = TestAudio
      let geometry = FrameGeometry(width: 4, height: 2)
      let frameDuration: MediaTime? = MediaTime(value: 1, timescale: 30)
      let isLive = true
      let pool = PixelBufferPool(geometry: FrameGeometry(width: 4, height: 2), capacity: 30)
      var framesSkippedLate = 0
      var framesDroppedOutOfBuffers = 0
      var n = 0
      func nextSample() throws -> MediaSample<TestAudio>? {
        while n < 30 {
          defer { n += 1 }
          if n % 3 == 2 { framesSkippedLate += 1; continue }
          if n % 5 == 4 { framesDroppedOutOfBuffers += 1; continue }
          return pool.tryAcquire(presentationTime: MediaTime(value: Int64(n), timescale: 30)).map { .video(.bgra($0)) }
        }
        return nil
      }
    }
    let source = DroppingSource()
    let input = source
    let sink = RecordingTestSink()
    let session = try RecordingSession<TestAudio>(
      input: input, chain: configuredChain([], for: input.geometry), sink: sink, ringCapacity: 64)
    session.start()
    let summary = session.waitUntilFinished()
    XCTAssertEqual(summary.dropped["late"], 10)
    XCTAssertEqual(summary.dropped["out-of-buffers"], 4)  // 4, 19, 24, 29 (14 is late already)
    XCTAssertEqual(summary.framesIn, 30)
    XCTAssertEqual(summary.framesOut, 16)
    XCTAssertEqual(sink.snapshot.times.map(\.value), [0, 1, 3, 6, 7, 10, 12, 13, 15, 16, 18, 21, 22, 25, 27, 28])
  }

  func testProgressLogWritesALinePerInterval() {
    var log = RecordingProgressLog(interval: 60)
    func snapshot(_ frames: Int, _ bytes: Int64) -> RecordingStatistics.Snapshot {
      RecordingStatistics.Snapshot(framesIn: frames, framesWritten: frames, droppedLate: 0, droppedOutOfBuffers: 0, bytesWritten: bytes)
    }
    XCTAssertNil(log.line(for: snapshot(900, 1_000_000), elapsed: 30))
    XCTAssertEqual(
      log.line(for: snapshot(1800, 22_500_000), elapsed: 60.2),
      "camfx: 00:01:00 recorded, 1800 frames, 0 dropped, 29.9 fps, 22.5 MB, 3.0 Mbit/s")
    XCTAssertNil(log.line(for: snapshot(2000, 25_000_000), elapsed: 90))
    XCTAssertEqual(
      log.line(for: snapshot(108_000, 1_350_000_000), elapsed: 3600.4),
      "camfx: 01:00:00 recorded, 108000 frames, 0 dropped, 30.0 fps, 1.35 GB, 3.0 Mbit/s")
  }
}
