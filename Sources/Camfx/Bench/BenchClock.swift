#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock the benchmark reads (`CLOCK_MONOTONIC`), in seconds.
enum BenchClock {
  static func now() -> Double {
    var ts = timespec()
    // clock_gettime(CLOCK_MONOTONIC) cannot fail on Linux for a valid pointer.
    _ = clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
  }
}
