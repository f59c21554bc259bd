import Camfx
import CamfxArchive
import CamfxCore
import Synchronization

/// The archives of a run with several recordings (`camfx run`, several `--source`):
/// one `S3Archive` per folder and store, shared by the recordings that write there
/// (one journal per folder), started when the first of them starts and closed at the
/// end of the run, after every recording has handed its last files over.
final class RunningArchives: Sendable {
  private struct Running {
    var key: String
    var archive: S3Archive
    var waitSeconds: Double
  }
  private let running = Mutex<[Running]>([])

  /// The archive `plan` describes, started (its store asked) the first time.
  /// - Throws: `ArchiveError` when its store refuses or its journal cannot be read.
  func archive(for plan: ArchivePlan?, report: @escaping @Sendable (String) -> Void) throws -> S3Archive? {
    guard let plan else { return nil }
    let key = S3Archive.absolute(plan.options.folder) + " " + plan.options.destination.url
    if let known = running.withLock({ $0.first { $0.key == key } }) { return known.archive }
    // Keys are names relative to the folder: files of two folders under one prefix
    // could take each other's keys.
    let url = plan.options.destination.url
    if let other = running.withLock({ $0.first { $0.archive.options.destination.url == url } }) {
      throw ArchiveError(
        "--archive \(url) takes the files of '\(other.archive.options.folder)' already; give the files of "
          + "'\(S3Archive.absolute(plan.options.folder))' a prefix of their own (s3://BUCKET/PREFIX/NAME)")
    }
    let archive = try plan.start(report: report)
    running.withLock { $0.append(Running(key: key, archive: archive, waitSeconds: plan.waitSeconds)) }
    return archive
  }

  /// Lets each archive finish its uploads within its `--archive-wait` from now (they
  /// go on side by side while the first is waited for), and says how each ended.
  func close() -> [(line: String, failure: String?)] {
    let start = MonotonicClock.seconds()
    let list = running.withLock { list in
      defer { list = [] }
      return list
    }
    return list.map { $0.archive.close(waitingAtMost: max(0, start + $0.waitSeconds - MonotonicClock.seconds())) }
  }
}
