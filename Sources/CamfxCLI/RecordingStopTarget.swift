import Camfx
import Synchronization

/// Where a recording command's SIGINT/SIGTERM go: `record`'s one job, or every camera
/// `camfx run` records. The handlers are installed before the output files exist (a
/// signal's default action would leave a temporary file behind), so a signal may arrive
/// before there is a job to stop: it is remembered, and the command gives up cleanly
/// instead of starting.
final class RecordingStopTarget: Sendable {
  private struct State {
    var jobs: [any RecordingJob] = []
    var signals = 0
  }
  private let state = Mutex(State())

  /// Called from the signal watcher: the first signal stops every job cleanly; a second
  /// stops them at once, without draining the encoder (the files are still finished
  /// with what they hold).
  func signalled() {
    let (jobs, count) = state.withLock { s -> ([any RecordingJob], Int) in
      s.signals += 1
      return (s.jobs, s.signals)
    }
    for job in jobs {
      if count == 1 { job.stop() } else { job.stopAtOnce() }
    }
  }

  /// Hands over a job; false if a signal already asked to stop.
  func attach(_ job: any RecordingJob) -> Bool {
    state.withLock { s in
      guard s.signals == 0 else { return false }
      s.jobs.append(job)
      return true
    }
  }

  /// Takes back a job that has ended.
  func detach(_ job: any RecordingJob) {
    state.withLock { s in s.jobs.removeAll { $0 === job } }
  }

  /// True once a stop signal came.
  var isStopping: Bool { state.withLock { $0.signals > 0 } }
}
