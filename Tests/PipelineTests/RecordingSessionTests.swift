import Camfx
import CamfxMedia
import Foundation
import XCTest

/// The staged pipeline against a recording sink: flow modes, drops, limits, audio on the
/// video clock, shutdown and failures. (The real movie writer is tested in CamfxCLITests.)
final class RecordingSessionTests: XCTestCase {
  private func run(
    _ input: CountingInput, filters: [any VideoFilter] = [Brighten()], generator: CountingToneGenerator? = nil,
    sink: RecordingTestSink = RecordingTestSink(), limits: RecordingLimits = RecordingLimits(), ringCapacity: Int = 2,
    whileRunning: (RecordingSession<TestAudio>) -> Void = { _ in }
  ) throws -> (RecordingSummary, SinkRecord) {
    let session = try RecordingSession<TestAudio>(
      input: input, chain: configuredChain(filters, for: input.geometry), generator: generator, sink: sink,
      limits: limits, ringCapacity: ringCapacity)
    session.start()
    whileRunning(session)
    let summary = session.waitUntilFinished(statusInterval: 0.05)
    XCTAssertEqual(input.pool.buffersInUse, 0, "every frame must be back in its pool after the recording")
    return (summary, sink.snapshot)
  }

  func testFileInputDeliversEveryFrameInOrderThroughTheFilter() throws {
    let input = CountingInput(live: false, poolCapacity: 3, total: 300)
    let (summary, record) = try run(input)
    XCTAssertEqual(summary.framesIn, 300)
    XCTAssertEqual(summary.framesOut, 300)
    XCTAssertEqual(summary.droppedTotal, 0)
    XCTAssertEqual(summary.stopReason, .endOfInput)
    XCTAssertNil(summary.error)
    XCTAssertEqual(record.times, (0..<300).map { MediaTime(value: Int64($0), timescale: 30) })
    // The filter added 40 to the grey that stands for the frame number.
    XCTAssertEqual(record.firstGreys.count, 300)
    for (n, grey) in record.firstGreys.enumerated() {
      XCTAssertEqual(grey, Int(CountingInput.grey(n)) + 40, accuracy: 1, "frame \(n)")
    }
    XCTAssertEqual(record.finished, 1)
    XCTAssertEqual(record.cancelled, 0)
    XCTAssertEqual(summary.durationSeconds, 10.0, accuracy: 1e-9)
  }

  func testFileInputWaitsForASlowWriterInsteadOfDropping() throws {
    let input = CountingInput(live: false, poolCapacity: 2, total: 40)
    let sink = RecordingTestSink()
    sink.beforeAppend = { _ in usleep(2000) }
    let (summary, record) = try run(input, sink: sink)
    XCTAssertEqual(summary.framesOut, 40)
    XCTAssertEqual(summary.droppedTotal, 0)
    XCTAssertEqual(record.times.count, 40)
    // The writer spent at least the 40 × 2 ms the sink slept; the busy time excludes waits.
    XCTAssertGreaterThanOrEqual(summary.busySeconds["writer"] ?? 0, 0.08)
    XCTAssertLessThanOrEqual(summary.busySeconds["writer"] ?? 99, summary.elapsedSeconds)
    XCTAssertGreaterThan(summary.busySeconds["filter"] ?? 0, 0)
  }

  func testLiveInputDropsAndCountsFramesWhileTheWriterIsBlocked() throws {
    let input = CountingInput(live: true, poolCapacity: 4, total: 40)
    let sink = RecordingTestSink()
    let gate = DispatchSemaphore(value: 0)
    // The writer holds frame 0 until the input has tried 20 more frames.
    sink.beforeAppend = { i in if i == 0 { gate.wait() } }
    input.beforeFrame = { n in if n == 21 { gate.signal() } }
    let (summary, record) = try run(input, sink: sink)
    XCTAssertEqual(summary.framesIn, 40)
    XCTAssertGreaterThan(summary.droppedTotal, 0, "a blocked live pipeline must drop")
    XCTAssertEqual(summary.framesOut + summary.droppedTotal, 40, "every frame is either written or counted as dropped")
    XCTAssertEqual(record.times.count, summary.framesOut)
    for (a, b) in zip(record.times, record.times.dropFirst()) { XCTAssertLessThan(a, b) }
    // Each written frame still carries its own pixels (a dropped frame's buffer was reused).
    for (time, grey) in zip(record.times, record.firstGreys) {
      XCTAssertEqual(grey, Int(CountingInput.grey(Int(time.value))) + 40, accuracy: 1)
    }
    XCTAssertEqual(record.finished, 1)
  }

  func testFrameLimitStopsAfterExactlyThatManyFrames() throws {
    let input = CountingInput(live: false, total: nil)
    let (summary, record) = try run(input, limits: RecordingLimits(frames: 25))
    XCTAssertEqual(summary.stopReason, .frames)
    XCTAssertEqual(record.times.count, 25)
    XCTAssertEqual(record.finished, 1)
  }

  func testDurationLimitKeepsFramesBeforeTheLimit() throws {
    let input = CountingInput(live: false, total: nil)
    let (summary, record) = try run(input, limits: RecordingLimits(duration: MediaTime(value: 2, timescale: 1)))
    XCTAssertEqual(summary.stopReason, .duration)
    XCTAssertEqual(record.times.count, 60)
    XCTAssertEqual(record.times.last, MediaTime(value: 59, timescale: 30))
    XCTAssertEqual(summary.durationSeconds, 2.0, accuracy: 1e-9)
  }

  func testLiveDurationLimitKeepsTheLastFrameBeforeTheLimitWhenTheWriterFellBehind() throws {
    // The writer is stuck on frame 0 until the input produces frame 59, the last one
    // before the 2 s limit: everything in between finds the rings full and is dropped,
    // and so would frame 59 be (the file would end at frame 2 or so).
    let input = CountingInput(live: true, poolCapacity: 8, total: nil)
    let sink = RecordingTestSink()
    let gate = DispatchSemaphore(value: 0)
    sink.beforeAppend = { i in if i == 0 { gate.wait() } }
    input.beforeFrame = { n in if n == 59 { gate.signal() } }
    let (summary, record) = try run(input, sink: sink, limits: RecordingLimits(duration: MediaTime(value: 2, timescale: 1)))
    XCTAssertEqual(summary.stopReason, .duration)
    XCTAssertGreaterThan(summary.droppedTotal, 40, "the blocked writer must have made the input drop")
    XCTAssertEqual(record.times.last, MediaTime(value: 59, timescale: 30))
    XCTAssertEqual(summary.durationSeconds, 2.0, accuracy: 1e-9)
    XCTAssertEqual(record.finished, 1)
  }

  func testMaxSizeStopsCleanly() throws {
    let input = CountingInput(live: false, total: 1000)
    let (summary, record) = try run(input, limits: RecordingLimits(bytes: 10_000))
    XCTAssertEqual(summary.stopReason, .maxSize)
    XCTAssertGreaterThanOrEqual(record.times.count, 10)
    XCTAssertLessThan(record.times.count, 1000)
    XCTAssertEqual(summary.framesOut, record.times.count, "frames in flight at the limit are still written")
    XCTAssertEqual(record.finished, 1)
  }

  func testStopFinishesEveryAcceptedFrameOfAnEndlessLiveInput() throws {
    let input = CountingInput(live: true, total: nil)
    let sink = RecordingTestSink()
    let tenWritten = DispatchSemaphore(value: 0)
    sink.beforeAppend = { i in if i == 10 { tenWritten.signal() } }
    let (summary, record) = try run(input, sink: sink) { session in
      tenWritten.wait()
      session.stop()
    }
    XCTAssertEqual(summary.stopReason, .interrupted)
    XCTAssertNil(summary.error)
    XCTAssertGreaterThanOrEqual(record.times.count, 10)
    XCTAssertEqual(record.times.count, summary.framesIn - summary.droppedTotal)
    XCTAssertEqual(record.finished, 1)
  }

  func testGeneratedAudioCoversExactlyTheVideo() throws {
    let input = CountingInput(live: false, total: 60)
    let generator = CountingToneGenerator()
    let (summary, record) = try run(input, generator: generator)
    XCTAssertEqual(summary.framesOut, 60)
    XCTAssertEqual(generator.startTime, .zero)
    var position: Int64 = 0
    for block in record.audio {
      XCTAssertEqual(block.start, position, "audio blocks must be contiguous")
      position += Int64(block.count)
    }
    XCTAssertEqual(position, 96_000, "2 s of video at 48 kHz")
    XCTAssertEqual(summary.audioChunks, record.audio.count)
  }

  func testGeneratedAudioStartsAtTheFirstFrame() throws {
    final class LateInput: MediaSource {
      typealias Audio = TestAudio
      let inner = CountingInput(live: false, total: 30)
      var geometry: FrameGeometry { inner.geometry }
      var frameDuration: MediaTime? { inner.frameDuration }
      var isLive: Bool { false }
      var hasAudio: Bool { false }
      func nextSample() throws -> MediaSample<TestAudio>? {
        guard case .video(.bgra(var frame))? = try inner.nextSample() else { return nil }
        frame.presentationTime = frame.presentationTime + MediaTime(value: 5, timescale: 1)
        return .video(.bgra(frame))
      }
    }
    let input = LateInput()
    let generator = CountingToneGenerator()
    let sink = RecordingTestSink()
    let session = try RecordingSession<TestAudio>(
      input: input, chain: configuredChain([], for: input.geometry), generator: generator, sink: sink)
    session.start()
    _ = session.waitUntilFinished()
    let audio = sink.snapshot.audio
    XCTAssertEqual(generator.startTime, MediaTime(value: 5, timescale: 1))
    XCTAssertEqual(audio.first?.start, 240_000)
    XCTAssertEqual(audio.map(\.count).reduce(0, +), 48_000)
  }

  /// CPU seconds this process has used so far.
  private func processCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  /// While a source is slow to deliver its first frame (a camera warming up), every
  /// stage sleeps: the audio stage waits for the video clock to start instead of spinning
  /// (0.6 s of waiting costs far less than 0.3 s of CPU), and the sound still starts at
  /// the first frame.
  func testStagesSleepWhileTheFirstFrameIsLate() throws {
    let input = CountingInput(live: false, total: 5)
    input.beforeFrame = { n in if n == 0 { usleep(600_000) } }
    let generator = CountingToneGenerator()
    let before = processCPUSeconds()
    let (summary, record) = try run(input, generator: generator)
    let used = processCPUSeconds() - before
    XCTAssertEqual(summary.framesOut, 5)
    XCTAssertEqual(generator.startTime, .zero)
    XCTAssertEqual(record.audio.map(\.count).reduce(0, +), 8_000)
    XCTAssertLessThan(used, 0.3, "the stages used \(used) s of CPU while waiting 0.6 s for the first frame")
  }

  func testInputSoundTrackPassesThroughItsOwnRing() throws {
    let input = CountingInput(live: false, total: 120, audioPerFrame: 1600)
    let (summary, record) = try run(input)
    XCTAssertEqual(summary.framesOut, 120)
    XCTAssertEqual(record.audio, (0..<120).map { TestAudio(start: Int64($0 * 1600), count: 1600) })
  }

  func testGeometryChangingChainReachesTheSinkAtTheNegotiatedSize() throws {
    let input = CountingInput(geometry: FrameGeometry(width: 16, height: 6), live: false, total: 10)
    let (summary, record) = try run(input, filters: [LeftHalf(), Brighten()])
    XCTAssertEqual(summary.framesOut, 10)
    XCTAssertEqual(record.geometries, [FrameGeometry(width: 8, height: 6)])
  }

  func testChainConfiguredForAnotherSizeIsRejectedBeforeStarting() throws {
    let input = CountingInput(live: false, total: 10)
    let chain = try configuredChain([Brighten()], for: FrameGeometry(width: 2, height: 2))
    XCTAssertThrowsError(
      try RecordingSession<TestAudio>(input: input, chain: chain, sink: RecordingTestSink())
    ) { error in
      XCTAssertEqual("\(error)", "the filter chain was configured for 2x2, the input delivers 8x4")
    }
  }

  func testFailingSinkCancelsTheFileAndReportsTheError() throws {
    let input = CountingInput(live: false, total: 100)
    let sink = RecordingTestSink()
    sink.failAtFrame = 10
    let (summary, record) = try run(input, sink: sink)
    XCTAssertEqual(summary.stopReason, .failed)
    XCTAssertEqual(summary.error, "disk full at frame 10")
    XCTAssertEqual(record.cancelled, 1)
    XCTAssertEqual(record.finished, 0)
  }

  func testFailingInputStillFinishesWhatWasRead() throws {
    let input = CountingInput(live: false, total: 100, failAt: 30)
    let (summary, record) = try run(input)
    XCTAssertEqual(summary.stopReason, .failed)
    XCTAssertEqual(summary.error, "input failed after 1.00 s: input broke at frame 30")
    XCTAssertEqual(record.times.count, 30)
    XCTAssertEqual(record.finished, 1, "a read error must still leave a playable file")
  }
}
