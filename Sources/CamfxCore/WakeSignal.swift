#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Lets a thread that has nothing to do sleep until another thread makes work for it,
/// without a lock on the paths that find work (an event count).
///
/// The thread that makes work publishes it (a ring's tail, a flag) and then calls
/// `notify()`, which costs one fence and one load while nobody sleeps. The thread that
/// waits calls `wait(until:)` with a test of that published state: it registers as a
/// sleeper, then tests under the mutex, so either the notifier sees the sleeper or the
/// sleeper's test sees the work (both sides order their store before their load), and
/// a wake-up is never lost.
///
/// Polling instead (spin, yield, sleep in steps) kept two of a live recording's threads
/// waking thousands of times a second between frames.
///
/// Both fences are full fences. Asymmetric ones (membarrier(2): only a compiler barrier
/// in `notify()`, a process-wide barrier in `wait`) made a ring several times faster
/// between two spinning threads, but cost a live recording more CPU than they saved: each
/// barrier interrupts every thread of the process, the encoder's included.
public final class WakeSignal: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>
  private let sleepers = Atomic<Int>(0)

  public init() {
    mutex = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    condition = .allocate(capacity: 1)
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(condition, &attributes)
    pthread_condattr_destroy(&attributes)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  /// Wakes every thread waiting on this signal. Call it after publishing the work.
  @inlinable @inline(__always)
  public func notify() {
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    if hasSleepers { wakeSleepers() }
  }

  @usableFromInline var hasSleepers: Bool { sleepers.load(ordering: .relaxed) != 0 }

  @usableFromInline func wakeSleepers() {
    pthread_mutex_lock(mutex)
    pthread_cond_broadcast(condition)
    pthread_mutex_unlock(mutex)
  }

  /// Sleeps until `isReady()` is true, a `notify()` came, or `timeoutNanoseconds`
  /// passed, whichever is first. Callers loop, so a time-out only bounds how late they
  /// notice a condition nobody notifies (a stop request).
  public func wait(timeoutNanoseconds: Int = 20_000_000, until isReady: () -> Bool) {
    sleepers.add(1, ordering: .sequentiallyConsistent)
    // Orders the test below after the increment, pairing with the fence in `notify()`.
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    defer { sleepers.subtract(1, ordering: .relaxed) }
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    if isReady() { return }
    // The condition variable runs on CLOCK_MONOTONIC (init).
    let end = MonotonicClock.nanoseconds() + Int64(timeoutNanoseconds)
    var deadline = timespec(tv_sec: Int(end / 1_000_000_000), tv_nsec: Int(end % 1_000_000_000))
    _ = pthread_cond_timedwait(condition, mutex, &deadline)
  }
}
