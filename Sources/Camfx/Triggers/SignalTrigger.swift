import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Starts an event clip in every recording it was started for whenever the process
/// gets a signal (SIGUSR2 by default): `kill -USR2 $(pidof camfx)`. It catches the
/// signal from `init` until `cancel()` (its default action would end the process
/// without finishing the files), so one made before the recordings are built and
/// cancelled after they end covers every moment in between; a signal while no
/// recording listens is only told to `heard`.
///
///     let signal = SignalTrigger { fired in if fired == 0 { print("SIGUSR2 ignored") } }
///     defer { signal.cancel() }
///     configuration.triggers = [signal]
public final class SignalTrigger: EventTrigger, Sendable {
  public let signal: Int32
  private let listening = Listening()
  private let listener: StopSignals

  /// The recordings a signal starts clips in, shared with the listener's thread.
  private final class Listening: Sendable {
    let recorders = Mutex<[EventRecorder]>([])
  }

  /// - Parameter heard: called on the listener's thread after each signal, with how
  ///   many recordings it started a clip in.
  public init(signal: Int32 = SIGUSR2, heard: @escaping @Sendable (_ fired: Int) -> Void = { _ in }) {
    self.signal = signal
    let listening = listening
    listener = StopSignals(signals: [signal], coalescing: 0) { _, _ in
      let recorders = listening.recorders.withLock { $0 }
      for events in recorders { events.trigger("signal") }
      heard(recorders.count)
    }
  }

  public func start(firing events: EventRecorder) throws {
    listening.recorders.withLock { $0.append(events) }
  }

  public func stop(firing events: EventRecorder) {
    listening.recorders.withLock { $0.removeAll { $0 === events } }
  }

  /// Stops catching the signal: its default action again.
  public func cancel() { listener.cancel() }
}
