import CCamfxSignals
import CamfxCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns signals (SIGINT and SIGTERM by default) into calls on a thread of its own, so
/// a recording can stop cleanly (drain, flush, finish the file) instead of dying
/// half-written.
///
/// A small C handler (`camfx_signal_route`) writes each signal's number and sender
/// (`si_pid`) to a pipe; a thread reads the pipe and runs `handler` outside signal
/// context, so the handler may do ordinary work. Signals from the same sender within
/// `coalescing` seconds count once: coreutils `timeout` sends SIGTERM to the process
/// and again to its group, which must not read as a second Ctrl-C. Keep the object
/// alive while recording; `cancel()` restores the default action.
///
/// `@unchecked Sendable`: `cancel()` only closes the pipe and restores the actions,
/// which is safe from any thread; the reader's state lives on its thread.
public final class StopSignals: @unchecked Sendable {
  private let signals: [Int32]
  private let writeEnd: Int32
  private let cancelled = Atomic<Bool>(false)
  private let coalescing: Double
  /// When the last signal that counted arrived (`MonotonicClock` nanoseconds; 0: none),
  /// written by the watcher thread.
  private let lastCounted = LastCounted()
  private final class LastCounted: Sendable {
    let nanoseconds = Atomic<Int64>(0)
  }

  /// - Parameters:
  ///   - coalescing: signals from one sender this close together count once (0: none).
  ///   - handler: called with the signal number and how many signals have counted so
  ///     far (1 for the first).
  public init(
    signals: [Int32] = [SIGINT, SIGTERM], coalescing: Double = 0.2, handler: @escaping @Sendable (Int32, Int) -> Void
  ) {
    self.signals = signals
    self.coalescing = coalescing
    var ends: [Int32] = [-1, -1]
    // A pipe cannot fail here short of running out of descriptors; then the signals
    // keep their default action, which still ends the process.
    guard pipe(&ends) == 0 else {
      writeEnd = -1
      return
    }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
    let readEnd = ends[0]
    let lastCounted = lastCounted
    let watcher = try? NamedThread("camfx.signals") {
      var lastFrom: [Int32: Double] = [:]
      var count = 0
      var record = camfx_signal_record()
      while true {
        let n = withUnsafeMutableBytes(of: &record) { read(readEnd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n == MemoryLayout<camfx_signal_record>.size else { break }
        let now = MonotonicClock.seconds()
        if let last = lastFrom[record.pid], now - last < coalescing { continue }
        lastFrom[record.pid] = now
        lastCounted.nanoseconds.store(MonotonicClock.nanoseconds(), ordering: .releasing)
        count += 1
        handler(record.signo, count)
      }
      close(readEnd)
    }
    guard let watcher else {
      // No thread to hear them: the signals keep their default action.
      close(readEnd)
      close(ends[1])
      writeEnd = -1
      return
    }
    writeEnd = ends[1]
    watcher.detach()
    for number in signals { _ = camfx_signal_route(number, writeEnd) }
  }

  /// Stops listening and restores the default action for the signals. When a signal
  /// counted less than `coalescing` seconds ago, it first waits out the rest of that
  /// window: a stop that finished at once must not be killed by the second signal of
  /// the same `timeout`, which would still have counted as the same stop.
  public func cancel() {
    guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let last = lastCounted.nanoseconds.load(ordering: .acquiring)
    if last > 0 { MonotonicClock.sleep(untilNanoseconds: last + Int64(coalescing * 1e9)) }
    for number in signals { _ = camfx_signal_unroute(number) }
    if writeEnd >= 0 { close(writeEnd) }
  }

  deinit { cancel() }
}
