#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC`, the clock camfx runs on (the camera's and the microphone's
/// timestamps, deadlines, waits): a vDSO read, cheap enough to take around every frame a
/// stage handles.
public enum MonotonicClock {
  public static func nanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }
}
