#if canImport(Glibc)
import Glibc
#endif

/// Starts an event clip whenever the process gets a signal (SIGUSR2 by default), from
/// a thread of its own (`StopSignals`): `kill -USR2 $(pidof camfx)`.
public final class SignalTrigger: EventTrigger, @unchecked Sendable {
  // @unchecked Sendable: `listener` is set by `start` and cleared by `stop`, which a
  // recording calls from the thread that runs it, one after the other.
  public let signal: Int32
  private var listener: StopSignals?

  public init(signal: Int32 = SIGUSR2) {
    self.signal = signal
  }

  public func start(firing events: EventRecorder) throws {
    listener = StopSignals(signals: [signal], coalescing: 0) { _, _ in events.trigger("signal") }
  }

  public func stop() {
    listener?.cancel()
    listener = nil
  }
}
