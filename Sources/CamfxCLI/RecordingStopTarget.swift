import Camfx
import Synchronization

/// Where a recording command's SIGINT/SIGTERM go. The handlers are installed before the
/// output files exist (a signal's default action would leave a temporary file behind),
/// so a signal may arrive before there is a job to stop: it is remembered, and the
/// command gives up cleanly instead of starting.
final class RecordingStopTarget: Sendable {
  private struct State {
    var job: (any RecordingJob)?
    var signals = 0
  }
  private let state = Mutex(State())

  /// Called from the signal watcher: the first signal stops cleanly; a second stops at
  /// once, without draining the encoder (the file is still finished with what it holds).
  func signalled() {
    let (job, count) = state.withLock { s -> ((any RecordingJob)?, Int) in
      s.signals += 1
      return (s.job, s.signals)
    }
    guard let job else { return }
    if count == 1 { job.stop() } else { job.stopAtOnce() }
  }

  /// Hands over the job; false if a signal already asked to stop.
  func attach(_ job: any RecordingJob) -> Bool {
    state.withLock { s in
      guard s.signals == 0 else { return false }
      s.job = job
      return true
    }
  }
}
