#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock timing for the comparison tool (the ordo-one harness has its own).
public enum Stopwatch {
  /// CLOCK_MONOTONIC in nanoseconds.
  @inline(__always)
  public static func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }

  /// Runs `job` until at least `budgetNanoseconds` have passed (and at least 3 times).
  /// - Returns: the mean nanoseconds per call in that batch.
  public static func nanosecondsPerCall(budgetNanoseconds: UInt64, _ job: FrameJob) throws -> Double {
    var calls = 0
    let start = now()
    var elapsed: UInt64 = 0
    repeat {
      try job()
      calls += 1
      if calls & 3 == 3 || calls < 4 { elapsed = now() - start }
    } while elapsed < budgetNanoseconds || calls < 3
    elapsed = now() - start
    return Double(elapsed) / Double(calls)
  }
}
