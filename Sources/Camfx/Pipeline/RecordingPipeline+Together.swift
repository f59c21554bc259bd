import CamfxCore
import Synchronization

extension RecordingPipeline {
  /// Records several pipelines at once in this process — several cameras, or any
  /// sources, each with its own chain, encoder and outputs — until every one of them
  /// has ended. Each pipeline runs on threads of its own, as it would alone: one that
  /// falls behind or fails costs the others nothing, and each keeps its own limits.
  ///
  ///     let front = try RecordingPipeline(frontConfiguration)
  ///     let back = try RecordingPipeline(backConfiguration)
  ///     let results = RecordingPipeline.run([front, back])   // one result each, in order
  ///
  /// `stop()` on any of them ends that one; `stop()` on each ends them all.
  /// - Parameter status: called every `statusInterval` seconds on the calling thread
  ///   with each pipeline's figures (in order) and the seconds since the start.
  /// - Returns: each pipeline's summary, or the error that kept it from starting (a
  ///   microphone that did not start; that pipeline's outputs were cancelled).
  public static func run(
    _ pipelines: [RecordingPipeline], statusInterval: Double = 0.5,
    status: ([RecordingStatistics.Snapshot], Double) -> Void = { _, _ in }
  ) -> [Result<RecordingSummary, any Error>] {
    let results = Mutex<[Result<RecordingSummary, any Error>?]>(Array(repeating: nil, count: pipelines.count))
    let running = Atomic<Int>(pipelines.count)
    let finished = WakeSignal()
    let start = MonotonicClock.seconds()
    for (index, pipeline) in pipelines.enumerated() {
      // Only this thread runs the pipeline; the caller reads its statistics (atomics).
      nonisolated(unsafe) let pipeline = pipeline
      let body: @Sendable () -> Void = {
        let result = Result { try pipeline.run(statusInterval: 3600) }
        results.withLock { $0[index] = result }
        running.subtract(1, ordering: .releasing)
        finished.notify()
      }
      do {
        try NamedThread("camfx.recording\(index)", body).detach()
      } catch {
        // No thread for this one: it never starts, and says why.
        pipeline.cancel()
        results.withLock { $0[index] = .failure(error) }
        running.subtract(1, ordering: .releasing)
      }
    }
    var nextStatus = start + statusInterval
    while running.load(ordering: .acquiring) > 0 {
      let left = max(0, nextStatus - MonotonicClock.seconds())
      finished.wait(timeoutNanoseconds: Int(left * 1e9)) { running.load(ordering: .acquiring) == 0 }
      let now = MonotonicClock.seconds()
      if now >= nextStatus {
        status(pipelines.map(\.session.statistics.snapshot), now - start)
        nextStatus = now + statusInterval
      }
    }
    return results.withLock { $0.map { $0! } }
  }

  /// Asks the recording to end cleanly (as SIGINT does): no new frames are taken, and
  /// every output is finished. Safe from any thread, any number of times.
  public func stop() { session.stop() }
}
