import CamfxCore
import CamfxFrames
import CamfxMedia
import XCTest

@testable import Camfx
import CamfxCapture

/// The microphone's session trimming, without a device: periods stamped the way the
/// capture thread stamps them (nanoseconds, truncated), ends the way the camera stamps
/// its frames (microseconds).
final class PCMSessionCutterTests: XCTestCase {
  static let rate = 48_000
  static let period = 960  // 20 ms

  /// Period `n` of a stream whose sample frame k holds the value k % 32768 and plays at
  /// `origin + k / rate` (truncated to whole nanoseconds, as `captureLoop` stamps).
  static func period(_ n: Int, originNanos: Int64) -> PCMBuffer {
    let first = n * period
    let samples = (first..<(first + period)).map { Int16($0 % 32768) }
    let pts = originNanos + Int64(first) * 1_000_000_000 / Int64(rate)
    return PCMBuffer(samples: samples, channels: 1, sampleRate: rate, presentationTime: MediaTime(value: pts, timescale: 1_000_000_000))
  }

  /// Feeds `periods` periods, asks with every end in `ends` (microseconds, as video frame
  /// times), each until it says nil; returns the sample values handed out, in order.
  func cut(startMicros: Int64, ends: [Int64], periods: Int, originNanos: Int64) -> [Int16] {
    var cutter = PCMSessionCutter(start: MediaTime(value: startMicros, timescale: 1_000_000))
    var next = 0
    var out: [Int16] = []
    for endMicros in ends {
      let end = MediaTime(value: endMicros, timescale: 1_000_000)
      var calls = 0
      while let chunk = cutter.next(until: end, pop: {
        guard next < periods else { return nil }
        defer { next += 1 }
        return Self.period(next, originNanos: originNanos)
      }) {
        XCTAssertGreaterThan(chunk.frameCount, 0, "an empty buffer at end \(endMicros) µs")
        XCTAssertLessThan(chunk.presentationTime, end)
        out += chunk.samples
        calls += 1
        // A recording's audio stage asks again until nil: it must come.
        guard calls < 1000 else {
          XCTFail("no nil after 1000 calls with end \(endMicros) µs: the audio stage would never finish")
          return out
        }
      }
    }
    return out
  }

  func testHandsOutExactlyTheSamplesFromStartToEndWithoutGapsOrRepeats() {
    // Origin 1 s + 7 ns; video at 25 fps from 1.1 s: the ends fall between samples.
    let origin: Int64 = 1_000_000_007
    let ends = (1...75).map { 1_100_000 + Int64($0) * 40_000 }
    let out = cut(startMicros: 1_100_000, ends: ends, periods: 200, originNanos: origin)
    // Frame k plays at origin + k/rate: the session [1.1 s, 4.1 s) is frames 4800 ..< 148800.
    let first = Int((1_100_000_000 - origin) * Int64(Self.rate) / 1_000_000_000 + 1)
    XCTAssertEqual(out.count, 144_000, "3 s at 48 kHz")
    XCTAssertEqual(out.first, Int16(first % 32768))
    for (i, v) in out.enumerated() where v != Int16((first + i) % 32768) {
      XCTFail("sample \(i) is \(v), want \((first + i) % 32768): a gap or a repeat")
      break
    }
  }

  func testAnEndWithinHalfASampleOfTheRemainderSaysNothingYetInsteadOfAnEmptyBuffer() {
    // Every end from 0 to 2 samples past a period boundary, in 1 µs steps, and each
    // asked twice: the kept remainder starts within half a sample of the last end.
    for offset in stride(from: 0, through: 42, by: 1) {
      let end = Int64(20_000 + offset)  // µs; periods start at 0, 20 ms, 40 ms, ...
      let out = cut(startMicros: 0, ends: [end, end, end + 20_000, end + 20_000], periods: 4, originNanos: 0)
      let want = Int((Int64(end + 20_000) * Int64(Self.rate) + 500_000) / 1_000_000)
      XCTAssertEqual(out.count, want, "end \(end) µs")
    }
  }

  func testAudioWhollyBeforeTheStartIsDroppedAndNothingIsHandedOutPastTheEnd() {
    let out = cut(startMicros: 50_000, ends: [50_000, 60_000], periods: 10, originNanos: 0)
    XCTAssertEqual(out.count, 480, "10 ms at 48 kHz")
    XCTAssertEqual(out.first, 2400)
  }

  /// Everything the cutter hands out for `periods`, up to `endMillis`.
  func drain(_ periods: [PCMBuffer], endMillis: Int64) -> [Int16] {
    var cutter = PCMSessionCutter(start: .zero)
    var queue = periods
    var out: [Int16] = []
    while let chunk = cutter.next(until: MediaTime(value: endMillis, timescale: 1000), pop: {
      queue.isEmpty ? nil : queue.removeFirst()
    }) {
      XCTAssertGreaterThan(chunk.frameCount, 0)
      out += chunk.samples
    }
    return out
  }

  func testAudioLostToAnOverrunIsFilledWithSilenceSoLaterAudioKeepsItsTime() {
    // Periods 3 and 4 were lost; 5 and 6 carry the times they were captured at.
    let out = drain([0, 1, 2, 5, 6].map { Self.period($0, originNanos: 0) }, endMillis: 140)
    XCTAssertEqual(out.count, 7 * Self.period, "140 ms at 48 kHz, gap included")
    XCTAssertEqual(Array(out[0..<2880]), (0..<2880).map { Int16($0) })
    XCTAssertEqual(out[2880..<4800].filter { $0 != 0 }.count, 0, "the lost 40 ms are silent")
    XCTAssertEqual(Array(out[4800...]), (4800..<6720).map { Int16($0) }, "period 5 plays at 100 ms, where it was captured")
  }

  func testAGapLongerThanASecondIsFilledToo() {
    let out = drain([0, 130].map { Self.period($0, originNanos: 0) }, endMillis: 2620)
    XCTAssertEqual(out.count, 131 * Self.period)
    XCTAssertEqual(Array(out[(130 * Self.period)...]), (0..<Self.period).map { Int16((130 * Self.period + $0) % 32768) })
  }

  func testAPeriodStampedBeforeTheEndOfTheAudioHandedOutLosesTheOverlap() {
    // Period 3 re-anchored 5 ms (240 frames) early: those frames overlap period 2's end.
    var early = Self.period(3, originNanos: 0)
    early.presentationTime = early.presentationTime - MediaTime(value: 5, timescale: 1000)
    let out = drain([Self.period(0, originNanos: 0), Self.period(1, originNanos: 0), Self.period(2, originNanos: 0), early], endMillis: 75)
    XCTAssertEqual(out.count, 3600, "75 ms at 48 kHz")
    XCTAssertEqual(Array(out[0..<2880]), (0..<2880).map { Int16($0) })
    XCTAssertEqual(Array(out[2880...]), (3120..<3840).map { Int16($0) }, "period 3 without its first 240 frames")
  }

  func testAStalledDeviceIsCoveredWithSilenceAndItsAudioKeepsItsTimeWhenItComesBack() {
    var cutter = PCMSessionCutter(start: .zero)
    var queue = [Self.period(0, originNanos: 0)]
    let pop = { queue.isEmpty ? nil : queue.removeFirst() }
    var out: [Int16] = []
    while let chunk = cutter.next(until: MediaTime(value: 100, timescale: 1000), pop: pop) { out += chunk.samples }
    XCTAssertEqual(out.count, 960)
    // Nothing more comes: silence up to the video's end, 100 ms.
    let silence = cutter.silence(until: MediaTime(value: 100, timescale: 1000), channels: 1, sampleRate: Self.rate)
    XCTAssertEqual(silence?.frameCount, 3840)
    XCTAssertEqual(silence?.presentationTime, MediaTime(value: 20, timescale: 1000))
    XCTAssertEqual(silence?.samples.filter { $0 != 0 }.count, 0)
    XCTAssertNil(cutter.silence(until: MediaTime(value: 100, timescale: 1000), channels: 1, sampleRate: Self.rate))
    // The device comes back: periods 3 and 4 (60-100 ms) were covered by the silence,
    // period 5 plays at 100 ms.
    queue = [3, 4, 5].map { Self.period($0, originNanos: 0) }
    out = []
    while let chunk = cutter.next(until: MediaTime(value: 120, timescale: 1000), pop: pop) { out += chunk.samples }
    XCTAssertEqual(out, (4800..<5760).map { Int16($0) })
    XCTAssertEqual(cutter.framesFilled, 3840)
  }

  func testADeviceThatStartsAfterTheFirstFrameGetsLeadingSilence() {
    // Audio from 10 ms on, the session from 0: the file's sound must not start early.
    let out = drain([Self.period(0, originNanos: 10_000_000)], endMillis: 30)
    XCTAssertEqual(out.count, 1440)
    XCTAssertEqual(out[0..<480].filter { $0 != 0 }.count, 0)
    XCTAssertEqual(Array(out[480...]), (0..<960).map { Int16($0) })
  }

  func testSplitRoundsToTheNearestSampleFrame() {
    let buffer = PCMBuffer(samples: [0, 1, 2, 3], channels: 1, sampleRate: 1000, presentationTime: .zero)
    XCTAssertEqual(buffer.split(at: MediaTime(value: 1_400, timescale: 1_000_000)).before?.samples, [0])
    XCTAssertEqual(buffer.split(at: MediaTime(value: 1_600, timescale: 1_000_000)).before?.samples, [0, 1])
    XCTAssertNil(buffer.split(at: MediaTime(value: 400, timescale: 1_000_000)).before)
    XCTAssertNil(buffer.split(at: MediaTime(value: 3_600, timescale: 1_000_000)).after)
    XCTAssertEqual(buffer.split(at: MediaTime(value: 2, timescale: 1_000)).after?.presentationTime, MediaTime(value: 2, timescale: 1_000))
    XCTAssertEqual(buffer.split(at: MediaTime(value: -5, timescale: 1)).after, buffer)
  }
}
