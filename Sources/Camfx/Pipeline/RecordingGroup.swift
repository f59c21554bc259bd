import CamfxCore
import CamfxMedia
import Synchronization

/// Several recordings run as one job, each on threads of its own as it would run alone:
/// several cameras each into its own files, or cameras that feed a mosaic
/// (`MosaicFeed`, `MosaicSource`) and the mosaic's recording.
///
/// Members that *lead* decide how long the group runs; the others (a mosaic's cameras)
/// follow: they are stopped cleanly once every leader has ended. One that falls behind
/// or fails costs the others nothing. `stop()` ends them all.
///
///     let group = RecordingGroup([
///       .init(name: "left", pipeline: left, leads: false),
///       .init(name: "right", pipeline: right, leads: false),
///       .init(name: "mosaic", pipeline: mosaic),
///     ])
///     let summary = try group.run()          // the first leader's
///     for (member, result) in zip(group.members, group.results) { ... }
///
/// `@unchecked Sendable`: `stop()` and the figures may be called from any thread; `run`
/// from one.
public final class RecordingGroup: RecordingJob, @unchecked Sendable {
  public struct Member: Sendable {
    public let name: String
    public let pipeline: RecordingPipeline
    /// True when the group runs until this member ends; false for one that is stopped
    /// when the leaders have ended.
    public let leads: Bool

    public init(name: String, pipeline: RecordingPipeline, leads: Bool = true) {
      self.name = name
      self.pipeline = pipeline
      self.leads = leads
    }
  }

  public let members: [Member]
  private let finished = Mutex<[Result<RecordingSummary, any Error>?]>([])

  /// - Precondition: at least one member leads.
  public init(_ members: [Member]) {
    precondition(members.contains(where: \.leads), "a recording group needs a member that leads")
    self.members = members
  }

  /// Each member's summary, or the error that kept it from starting, in order (after `run`).
  public var results: [Result<RecordingSummary, any Error>] {
    finished.withLock { $0.compactMap { $0 } }
  }

  /// Runs every member until every leader has ended (the followers are then stopped),
  /// calling `status` with the first leader's figures.
  /// - Returns: the first leader's summary (`results` has every member's).
  /// - Throws: what the first leader's start throws.
  public func run(
    statusInterval: Double = 0.5, status: (RecordingStatistics.Snapshot, Double) -> Void = { _, _ in }
  ) throws -> RecordingSummary {
    let lead = members.firstIndex(where: \.leads)!
    let results = runAll(statusInterval: statusInterval) { snapshots, elapsed in status(snapshots[lead], elapsed) }
    return try results[lead].get()
  }

  /// Runs every member (as `run`), calling `status` with every member's figures.
  /// - Returns: each member's summary, or the error that kept it from starting.
  public func runAll(
    statusInterval: Double = 0.5, status: ([RecordingStatistics.Snapshot], Double) -> Void = { _, _ in }
  ) -> [Result<RecordingSummary, any Error>] {
    let count = members.count
    let results = Mutex<[Result<RecordingSummary, any Error>?]>(Array(repeating: nil, count: count))
    let leadersRunning = Atomic<Int>(members.filter(\.leads).count)
    let running = Atomic<Int>(count)
    let changed = WakeSignal()
    let start = MonotonicClock.seconds()
    for (index, member) in members.enumerated() {
      let pipeline = member.pipeline
      let leads = member.leads
      let end: @Sendable (Result<RecordingSummary, any Error>) -> Void = { result in
        results.withLock { $0[index] = result }
        if leads { leadersRunning.subtract(1, ordering: .releasing) }
        running.subtract(1, ordering: .releasing)
        changed.notify()
      }
      do {
        // Only this thread runs the pipeline; the caller reads its statistics (atomics).
        try NamedThread("camfx.recording\(index)") { end(Result { try pipeline.run(statusInterval: 3600) }) }.detach()
      } catch {
        // No thread for this one: it never starts, and says why.
        pipeline.cancel()
        end(.failure(error))
      }
    }
    var nextStatus = start + statusInterval
    var followersStopped = false
    while running.load(ordering: .acquiring) > 0 {
      // One read for both: the last leader ending between two reads would be waited
      // for until the next status line.
      let leaders = leadersRunning.load(ordering: .acquiring)
      if !followersStopped, leaders == 0 {
        for member in members where !member.leads { member.pipeline.stop() }
        followersStopped = true
      }
      let left = max(0, nextStatus - MonotonicClock.seconds())
      changed.wait(timeoutNanoseconds: Int(left * 1e9)) {
        running.load(ordering: .acquiring) == 0 || leadersRunning.load(ordering: .acquiring) != leaders
      }
      let now = MonotonicClock.seconds()
      if now >= nextStatus {
        status(members.map(\.pipeline.session.statistics.snapshot), now - start)
        nextStatus = now + statusInterval
      }
    }
    let all = results.withLock { $0.map { $0! } }
    finished.withLock { $0 = all }
    return all
  }

  public func stop() { for member in members { member.pipeline.stop() } }
  public func stopAtOnce() { for member in members { member.pipeline.stopAtOnce() } }
  public func cancel() { for member in members { member.pipeline.cancel() } }
  public var outputReports: [OutputReport] { members.flatMap(\.pipeline.outputReports) }
  public var stopRequest: String? { members.lazy.compactMap(\.pipeline.stopRequest).first }
  public var videoPath: String {
    members.map { "\($0.name): \($0.pipeline.videoPath)" }.joined(separator: "; ")
  }
}
