import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into calls on a dispatch queue, so a recording can stop
/// cleanly (drain, flush, finish the file) instead of dying half-written.
///
/// The process-level disposition is set to ignore; libdispatch notices the signal
/// (signalfd-style) and runs `handler` on its own queue, outside signal context, so the
/// handler may do ordinary work. Keep the object alive while recording; `cancel()`
/// restores the default disposition.
///
/// `@unchecked Sendable`: the dispatch sources are set up in `init` and only cancelled
/// afterwards, which libdispatch allows from any thread.
public final class StopSignals: @unchecked Sendable {
  private let sources: [any DispatchSourceSignal]
  private let signals: [Int32]

  /// - Parameter handler: called with the signal number and how many stop signals have
  ///   arrived so far (1 for the first).
  public init(signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32, Int) -> Void) {
    self.signals = signals
    let counter = SignalCounter()
    var sources: [any DispatchSourceSignal] = []
    let queue = DispatchQueue(label: "camfx.signals")
    for number in signals {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler { handler(number, counter.next()) }
      source.resume()
      sources.append(source)
    }
    self.sources = sources
  }

  /// Stops listening and restores the default action for the signals.
  public func cancel() {
    for source in sources { source.cancel() }
    for number in signals { signal(number, SIG_DFL) }
  }
}

/// Counts signals on the serial signal queue.
/// `@unchecked Sendable`: only ever touched from that one serial queue.
private final class SignalCounter: @unchecked Sendable {
  private var count = 0
  func next() -> Int {
    count += 1
    return count
  }
}
