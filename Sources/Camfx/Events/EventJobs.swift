import CamfxCore
import Synchronization

/// The slow work of event clips that must not happen on the thread that asked for it
/// (the tap stage, a signal's, the preview server's): pictures, sidecars, messages and
/// hooks, run in the order they were asked for on the event recorder's one thread
/// (`EventRecorder`'s watcher), which also closes the clips. One thread for all of it,
/// rather than a thread for the pictures and a dispatch queue for the sidecars: a
/// camera's events cost one thread, and ordering between them is the queue's.
///
/// `runAll` is called by one thread at a time: the watcher, or whoever finishes the
/// recorder once the watcher has ended.
final class EventJobs: Sendable {
  private let jobs = Mutex<[@Sendable () -> Void]>([])
  /// Notified when a job is added: what the watcher sleeps on.
  let added: WakeSignal

  init(added: WakeSignal) { self.added = added }

  /// Queues `job` (any thread).
  /// - Parameter notifying: false under the event recorder's lock, which the watcher's
  ///   wait takes while it holds `added`'s: the caller notifies after its lock.
  func add(notifying: Bool = true, _ job: @escaping @Sendable () -> Void) {
    jobs.withLock { $0.append(job) }
    if notifying { added.notify() }
  }

  var isEmpty: Bool { jobs.withLock { $0.isEmpty } }

  /// Runs every job queued so far, and those they queue, oldest first.
  func runAll() {
    while true {
      let batch = jobs.withLock { queued -> [@Sendable () -> Void] in
        defer { queued.removeAll() }
        return queued
      }
      if batch.isEmpty { return }
      for job in batch { job() }
    }
  }
}
