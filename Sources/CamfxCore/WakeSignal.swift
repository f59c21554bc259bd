import CCamfxLinux
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
/// The two fences that make this safe are asymmetric where the kernel allows
/// (membarrier(2)): `notify()`, which runs on every push and pop of a ring, only keeps
/// the compiler from reordering, and `wait` (a few hundred times a second at most) makes
/// every thread of the process pass a full barrier before it tests, so a notifier's
/// store is visible to the test or the notifier sees the sleeper. A full fence on every
/// push and pop cut a ring's throughput about six times. Without membarrier both sides
/// fence.
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
    if hasProcessWideBarriers {
      camfx_compiler_barrier()
    } else {
      atomicMemoryFence(ordering: .sequentiallyConsistent)
    }
    if hasSleepers { wakeSleepers() }
  }

  /// True once the process is registered for membarrier(2)'s expedited barriers; kept
  /// per signal too, so that `notify()` reads a field rather than a lazily made global.
  static let processWideBarriers = camfx_membarrier_register() == 0
  @usableFromInline let hasProcessWideBarriers = WakeSignal.processWideBarriers

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
    // Orders the test below after the increment, pairing with `notify()`: every other
    // thread passes a full barrier too (so a notifier's store before its check of the
    // sleepers is visible below), or, without membarrier, this thread fences and so
    // does every notify.
    if !hasProcessWideBarriers || camfx_membarrier() != 0 {
      atomicMemoryFence(ordering: .sequentiallyConsistent)
    }
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
