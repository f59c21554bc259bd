import Camfx
import CamfxMedia
import Synchronization

/// Where `camfx record`'s SIGINT/SIGTERM go. The handlers are installed before the
/// temporary output file exists (a signal's default action would leave it behind), so
/// a signal may arrive before there is a session to stop: it is remembered, and the
/// command gives up cleanly instead of starting.
final class RecordingStopTarget: Sendable {
  private struct State {
    var session: RecordingSession<PCMBuffer>?
    var signals = 0
  }
  private let state = Mutex(State())

  /// Called from the signal queue: the first signal stops cleanly; a second stops at
  /// once, without draining the encoder (the file is still finished with what it holds).
  func signalled() {
    let (session, count) = state.withLock { s -> (RecordingSession<PCMBuffer>?, Int) in
      s.signals += 1
      return (s.session, s.signals)
    }
    guard let session else { return }
    if count == 1 {
      session.stop()
    } else {
      session.abort(error: RecordingOptionError("interrupted twice: stopped at once, without the frames still in the encoder"))
    }
  }

  /// True when a signal came before the session existed.
  var interruptedEarly: Bool { state.withLock { $0.session == nil && $0.signals > 0 } }

  /// Hands over the session; false if a signal already asked to stop.
  func attach(_ session: RecordingSession<PCMBuffer>) -> Bool {
    state.withLock { s in
      guard s.signals == 0 else { return false }
      s.session = session
      return true
    }
  }
}
