#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC`, the one clock camfx times things with: the camera's and the
/// microphone's timestamps, deadlines, waits, pacing, benchmarks. A vDSO read, cheap
/// enough to take around every frame a stage handles.
public enum MonotonicClock {
  public static func nanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }

  /// Sleeps until the clock reads `deadline` nanoseconds (at once when it has passed).
  /// An absolute deadline does not drift however long each wake-up takes, and a signal
  /// (EINTR) just means sleeping again.
  public static func sleep(untilNanoseconds deadline: Int64) {
    guard deadline > nanoseconds() else { return }
    var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
  }

  /// Sleeps for `seconds`.
  public static func sleep(seconds: Double) {
    sleep(untilNanoseconds: nanoseconds() + Int64(seconds * 1e9))
  }
}
