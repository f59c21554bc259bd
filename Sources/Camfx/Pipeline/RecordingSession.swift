import CamfxCore
import CamfxFrames
import CamfxMedia
import Dispatch
import Foundation
import Synchronization

/// A staged recording pipeline, like an `AVCaptureSession` feeding an `AVAssetWriter`:
///
///     input ──▶ [source] ──ring──▶ [filter] ──ring──▶ [writer] ──▶ sink (adaptor, encoders, muxer)
///                  │ (a movie's sound)   │               ▲
///                  │                     └──ring──▶ [taps] (motion, stills, preview: FrameTap)
///                  └──────────────────────────ring───────┤
///     generator ──▶ [audio] ─────────────────ring────────┘ (--audio sine: on the video's clock)
///
/// Every `[stage]` is its own thread; the rings are lock-free single-producer /
/// single-consumer `FrameRing`s, and frames are pooled `PixelBuffer`s that go back to
/// their pool when the writer and the taps let go of them, so the steady state
/// allocates nothing.
///
/// The writer stage only encodes and publishes. The taps see the filtered frames on a
/// stage of their own, by reference, so that neither a tap's work nor what it triggers
/// (an event clip's file) ever sits between the encoder and its outputs. Behind a live
/// input a frame the tap stage has no room for is dropped for the taps alone, and
/// counted (`RecordingSummary.taps`): the file loses nothing. Behind stored media the
/// filter stage waits for the taps, as the rest of the pipeline waits, and they see
/// every frame. The stage exists only when there are taps.
/// The filter stage hands the writer yuv420p pictures the encoder takes as they are; how
/// each frame gets there from the input's format through the chain (on yuv420p planes,
/// BGRA only around filters that need it) is negotiated once, by `FramePath`.
///
/// Flow modes (`AVAssetWriterInput.expectsMediaDataInRealTime`): a live input never
/// waits — when the filter stage's ring is full the frame is dropped as `late`, and when
/// the input's pool is empty it is dropped as `out-of-buffers`; both are counted. A file
/// input waits (back-pressure) and nothing is dropped. Behind the source stage nothing
/// is ever dropped: every accepted frame is filtered and encoded.
///
/// Stopping: a limit, the end of input or `stop()` (SIGINT/SIGTERM) ends the source
/// stage; it closes its rings, each stage drains its input ring and closes its output,
/// and the writer finishes the file. `abort()` (or a failing sink) stops at once: the
/// sink is cancelled, which keeps and finishes what it already wrote.
///
/// `@unchecked Sendable`: the input is used only by the source thread, the generator
/// only by the audio thread, the sink only by the writer thread (and by `cancel` after
/// the others have stopped); everything shared is an atomic, a `Mutex` or a ring.
public final class RecordingSession<Audio: Sendable>: @unchecked Sendable {
  let input: any MediaSource<Audio>
  let chain: FilterChain
  let generator: (any AudioGenerator<Audio>)?
  let sink: any RecordingSink<Audio>
  public let limits: RecordingLimits
  /// What sees the filtered frames beside the sink (stills, a preview, motion). Set
  /// before `start()`; the tap stage calls them.
  public var taps: [any FrameTap] = []
  /// Live counters, for a status line.
  public let statistics = RecordingStatistics()
  /// The size of the frames the sink receives, as the filter chain negotiated it.
  public let outputGeometry: FrameGeometry

  let rawFrames: FrameRing<VideoFrame>
  /// The encoder-ready pictures the filter stage makes.
  let filteredFrames: FrameRing<YUV420Frame>
  /// The same pictures, by reference, for the tap stage.
  let tapFrames: FrameRing<TappedFrame>
  /// True once `start()` found taps and started their stage: the filter stage feeds
  /// `tapFrames` only then. Written before the stage threads start.
  var runsTapStage = false
  /// Set when the tap stage has ended: the writer finishes the file only then, so that
  /// what the taps trigger from the last frames (an event clip) still reaches the bus.
  let tapStageEnded = Atomic<Bool>(true)
  /// How frames go from the input's format through the chain to yuv420p.
  let framePath: FramePath
  let audioBlocks: FrameRing<Audio>?

  /// Graceful stop: the source stage stops taking frames; the rest drains.
  let stopRequested = Atomic<Bool>(false)
  /// Hard stop: every stage gives up at once and the sink is cancelled.
  let aborted = Atomic<Bool>(false)
  private let outcome = Mutex<Outcome>(Outcome())
  struct Outcome {
    var reason: StopReason?
    var error: (any Error)?
    /// Why the sound ended before the video, which went on (`RecordingSummary.soundError`).
    var soundError: String?
  }

  // The video clock the audio stage follows, in nanoseconds on the input's timeline.
  let videoStartNanoseconds = Atomic<Int64>(.min)
  /// The wall clock (CLOCK_REALTIME, ns since the epoch) when the first frame was
  /// accepted, for latency measurements against a player's clock.
  let firstFrameWallNanoseconds = Atomic<Int64>(.min)
  let videoEndNanoseconds = Atomic<Int64>(0)
  let videoFinished = Atomic<Bool>(false)
  /// Notified when the video clock above moves or the video ends: the audio stage
  /// sleeps on it.
  let videoProgress = WakeSignal()
  /// Frames and nanoseconds of video the sink's output holds once it is finished
  /// (-1: not known); fewer than were written when it stopped at a size limit or was
  /// cancelled with frames still in the encoder.
  let keptFrames = Atomic<Int>(-1)
  let keptNanoseconds = Atomic<Int64>(0)

  /// The gaps in a live input's timestamps, when the input does not report its own.
  /// Written by the source stage alone; read once every stage has ended.
  var gapDetector: GapDetector
  /// Set once every stage has ended.
  private let ended = Atomic<Bool>(false)

  private let stages = DispatchGroup()
  private let started = Atomic<Bool>(false)
  private let startNanoseconds = MonotonicClock.nanoseconds()
  private let finishedAt = Mutex<Int64?>(nil)

  /// Builds the session; nothing runs until `start()`.
  ///
  /// - Parameters:
  ///   - input: where frames (and a file's audio) come from.
  ///   - chain: the filters, already configured for `input.geometry` (negotiation
  ///     happens before the sink is created, so a bad chain never leaves a file).
  ///   - generator: a sound made on the video's clock (`--audio sine`); not together
  ///     with an input that has audio.
  ///   - sink: the movie writer, set up for `chain.outputGeometry`.
  ///   - limits: when to stop by itself.
  ///   - buffering: frames between the video stages (`.live(...)` for a live input).
  ///   - yuv420Filters, rowBands, sourceBands: `false` keeps the frame path
  ///     (`FramePath`) from running filters on yuv420p pictures, BGRA filters in bands
  ///     of rows, or the first row-local filters in the source's conversion, to compare
  ///     the ways; with the first two `false` the chain runs on whole BGRA frames.
  /// - Throws: `RecordingSessionError` if the chain was configured for another size.
  public init(
    input: any MediaSource<Audio>, chain: FilterChain, generator: (any AudioGenerator<Audio>)? = nil,
    sink: any RecordingSink<Audio>, limits: RecordingLimits = RecordingLimits(),
    buffering: RecordingBuffering = .file, yuv420Filters: Bool = true, rowBands: Bool = true, sourceBands: Bool = true
  ) throws {
    guard chain.inputGeometry == input.geometry, let output = chain.outputGeometry else {
      throw RecordingSessionError(
        "the filter chain was configured for \(chain.inputGeometry.map { "\($0)" } ?? "no size"), the input delivers \(input.geometry)")
    }
    guard !(generator != nil && input.hasAudio) else {
      throw RecordingSessionError("the input has its own sound track; a generated tone cannot be added to it")
    }
    self.input = input
    self.chain = chain
    self.generator = generator
    self.sink = sink
    self.limits = limits
    self.outputGeometry = output
    gapDetector = GapDetector(frameDuration: input.frameDuration)
    self.rawFrames = FrameRing(capacity: buffering.rawFrames)
    // The writer drains both the video and the audio ring: one signal wakes it for either.
    let writerWork = WakeSignal()
    self.filteredFrames = FrameRing(capacity: buffering.filteredFrames, readable: writerWork)
    self.tapFrames = FrameRing(capacity: buffering.tapFrames)
    // Pictures: the writer's and the taps' rings full, one being made, one being
    // encoded, one with the taps.
    framePath = try FramePath(
      chain: chain, sourceCanDeliverYUV420: input.canDeliverYUV420Frames,
      capacity: buffering.filteredFrames + buffering.tapFrames + 3,
      yuv420Filters: yuv420Filters, rowBands: rowBands, sourceBands: sourceBands)
    if framePath.sourceFormat == .yuv420 {
      try input.deliverYUV420Frames()
      if let bands = framePath.sourceBandFilters { input.filterWhileConverting(bands) }
    }
    // Audio blocks are small; room for a few seconds keeps a file's interleaving slack.
    self.audioBlocks = (generator != nil || input.hasAudio) ? FrameRing(capacity: 256, readable: writerWork) : nil
  }

  /// The same session with `ringCapacity` frames between any two video stages.
  public convenience init(
    input: any MediaSource<Audio>, chain: FilterChain, generator: (any AudioGenerator<Audio>)? = nil,
    sink: any RecordingSink<Audio>, limits: RecordingLimits = RecordingLimits(), ringCapacity: Int
  ) throws {
    try self.init(
      input: input, chain: chain, generator: generator, sink: sink, limits: limits,
      buffering: RecordingBuffering(rawFrames: ringCapacity, filteredFrames: ringCapacity))
  }

  /// The formats and filters the video goes through, from the input's pixel format to
  /// the encoder's yuv420p, e.g. `yuyv422 → yuv420p → mirror → encoder` (no BGRA at all)
  /// or `rgb24 → bgra → frei0r → yuv420p → encoder`.
  public var videoPath: String { framePath.describe(sourcePixelFormat: input.pixelFormatName) }

  /// True when the filter stage runs BGRA-only filters in bands of rows converted from
  /// yuv420p pictures and back, rather than on whole BGRA frames.
  public var usesRowBands: Bool { framePath.usesRowBands }

  /// The filters the source was asked to run on each band of rows as it converts its
  /// pictures (`MediaSource.filterWhileConverting`), by name; empty when none.
  public var filtersWhileConverting: [String] { framePath.sourceBandFilters?.names ?? [] }

  /// True when every filter runs on yuv420p pictures, with no BGRA at all.
  public var usesYUV420Filters: Bool { framePath.isYUV420Only }

  /// The times a live input's frames stopped and came back (a camera's own account of
  /// them, or the gaps in its timestamps), for `--stats-json`; nil for a file input.
  /// Nil until the recording has ended.
  public var cameraGaps: [CameraGap]? {
    guard input.isLive, ended.load(ordering: .acquiring) else { return nil }
    return input.cameraGaps ?? gapDetector.gaps
  }

  /// Starts every stage on its own thread.
  public func start() {
    precondition(!started.exchange(true, ordering: .relaxed), "RecordingSession started twice")
    spawn("camfx.source") { self.runSourceStage() }
    precondition(taps.count <= TappedFrame.maximumTaps, "more than \(TappedFrame.maximumTaps) taps")
    if !taps.isEmpty {
      runsTapStage = true
      tapStageEnded.store(false, ordering: .releasing)
      // Without its thread (the recording then fails), nothing would take the taps' frames.
      if !spawn("camfx.taps", { self.runTapStage() }) {
        runsTapStage = false
        tapStageEnded.store(true, ordering: .releasing)
      }
    }
    spawn("camfx.filter") { self.runFilterStage() }
    if generator != nil { spawn("camfx.audio") { self.runAudioStage() } }
    spawn("camfx.writer") { self.runWriterStage() }
  }

  /// Asks the recording to end cleanly: no new frames are taken, every accepted frame is
  /// still encoded and the file is finished. Safe from any thread, any number of times.
  public func stop(reason: StopReason = .interrupted) {
    requestStop(reason)
  }

  /// Stops at once: stages give up and the sink is cancelled (it keeps what it wrote).
  public func abort(error: any Error) {
    record(failure: error)
    aborted.store(true, ordering: .releasing)
    stopRequested.store(true, ordering: .releasing)
    input.interrupt()
    wakeAllStages()
  }

  /// Wakes every stage asleep on a ring or the video clock, so that an abort is seen at
  /// once rather than at the sleeper's time-out.
  func wakeAllStages() {
    for signal in [
      rawFrames.readable, rawFrames.writable, filteredFrames.readable, filteredFrames.writable, tapFrames.readable,
      tapFrames.writable, videoProgress,
    ] {
      signal.notify()
    }
    audioBlocks?.writable.notify()
  }

  /// Waits until every stage has ended, calling `status` every `statusInterval` seconds
  /// meanwhile (on the calling thread).
  /// - Returns: the final figures; `error` is set if the recording failed.
  public func waitUntilFinished(
    statusInterval: Double = 0.5, status: (RecordingStatistics.Snapshot, Double) -> Void = { _, _ in }
  ) -> RecordingSummary {
    while stages.wait(timeout: .now() + statusInterval) == .timedOut {
      status(statistics.snapshot, elapsedSeconds)
    }
    ended.store(true, ordering: .releasing)
    return summary
  }

  /// Seconds since the session was created (until it finished).
  public var elapsedSeconds: Double {
    let end = finishedAt.withLock { $0 } ?? MonotonicClock.nanoseconds()
    return Double(end - startNanoseconds) / 1e9
  }

  /// The figures so far; final once `waitUntilFinished` returned.
  public var summary: RecordingSummary {
    let o = outcome.withLock { $0 }
    let s = statistics
    let start = videoStartNanoseconds.load(ordering: .acquiring)
    let end = videoEndNanoseconds.load(ordering: .acquiring)
    var result = RecordingSummary(
      framesIn: s.framesIn.load(ordering: .relaxed),
      framesOut: s.framesWritten.load(ordering: .relaxed),
      dropped: [
        DropReason.late.rawValue: s.droppedLate.load(ordering: .relaxed),
        DropReason.outOfBuffers.rawValue: s.droppedOutOfBuffers.load(ordering: .relaxed),
        DropReason.corrupt.rawValue: s.droppedCorrupt.load(ordering: .relaxed),
      ],
      audioChunks: s.audioChunksWritten.load(ordering: .relaxed),
      durationSeconds: start == .min ? 0 : Double(end - start) / 1e9,
      elapsedSeconds: elapsedSeconds,
      bytes: s.bytesWritten.load(ordering: .relaxed),
      stopReason: o.error != nil ? .failed : (o.reason ?? .endOfInput),
      error: o.error.map { "\($0)" })
    let kept = keptFrames.load(ordering: .acquiring)
    if kept >= 0 && kept < result.framesOut {
      result.framesOut = kept
      result.durationSeconds = Double(keptNanoseconds.load(ordering: .acquiring)) / 1e9
    }
    let wall = firstFrameWallNanoseconds.load(ordering: .acquiring)
    if wall != .min { result.firstFrameEpochSeconds = Double(wall) / 1e9 }
    result.videoPath = videoPath
    result.soundError = o.soundError
    result.cameraGaps = cameraGaps
    result.bgraFrames = s.framesInBGRA.load(ordering: .relaxed)
    result.busySeconds = [
      "filter": Double(s.filterBusyNanoseconds.load(ordering: .relaxed)) / 1e9,
      "writer": Double(s.writerBusyNanoseconds.load(ordering: .relaxed)) / 1e9,
    ]
    if runsTapStage {
      result.busySeconds["taps"] = Double(s.tapBusyNanoseconds.load(ordering: .relaxed)) / 1e9
      result.taps = RecordingSummary.TapSummary(
        frames: s.framesTapped.load(ordering: .relaxed), dropped: s.tapFramesDropped.load(ordering: .relaxed))
    }
    return result
  }

  // MARK: Shared control

  func requestStop(_ reason: StopReason) {
    outcome.withLock { if $0.reason == nil { $0.reason = reason } }
    stopRequested.store(true, ordering: .releasing)
    input.interrupt()
  }

  /// Keeps the first failure; a later one is usually a consequence.
  func record(failure: any Error) {
    outcome.withLock { o in
      if o.error == nil { o.error = failure }
      if o.reason == nil { o.reason = .failed }
    }
  }

  /// Keeps why the sound ended early (the first reason); the recording goes on.
  func record(soundError: String) {
    outcome.withLock { if $0.soundError == nil { $0.soundError = soundError } }
  }

  /// True once a stage has failed.
  var hasFailed: Bool { outcome.withLock { $0.error != nil } }

  var shouldStop: Bool { stopRequested.load(ordering: .acquiring) }
  var isAborted: Bool { aborted.load(ordering: .acquiring) }

  /// - Returns: false when the thread could not start (the recording has then failed).
  @discardableResult
  private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    stages.enter()
    let thread = try? NamedThread(name) { [self] in
      body()
      finishedAt.withLock { $0 = MonotonicClock.nanoseconds() }
      stages.leave()
    }
    guard let thread else {
      record(failure: RecordingSessionError("cannot start the \(name) thread (the system's thread limit?)"))
      requestStop(.failed)
      stages.leave()
      return false
    }
    thread.detach()
    return true
  }
}

/// A recording that cannot be set up as asked.
public struct RecordingSessionError: Error, CustomStringConvertible, Sendable {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// The input failed mid-way (a cut file, a read error): what was read before is kept.
public struct InputFailure: Error, CustomStringConvertible {
  public let underlying: any Error
  /// Seconds of video read before it failed.
  public let afterSeconds: Double
  public var description: String {
    "input failed after \(RecordingStatusLine.fixed(afterSeconds, 2)) s: \(underlying)"
  }
}
