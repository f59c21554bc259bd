import CamfxCore

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
    RecordingGroup(pipelines.enumerated().map { RecordingGroup.Member(name: "recording\($0.offset)", pipeline: $0.element) })
      .runAll(statusInterval: statusInterval, status: status)
  }

  /// Asks the recording to end cleanly (as SIGINT does): no new frames are taken, and
  /// every output is finished. Safe from any thread, any number of times.
  public func stop() { session.stop() }
}
