import CamfxCore
#if canImport(Glibc)
import Glibc
#endif

/// Paces a live generator on the monotonic clock: frame `n` is due at
/// `start + n * frameDuration`, where `start` is when the first frame was asked for.
///
/// When the consumer is so late that a later frame is already due, the frames in
/// between are skipped (and counted by the caller as dropped), as a camera drops
/// frames nobody dequeued: timestamps stay on the wall clock.
struct FramePacer {
  private let frameNanoseconds: Int64
  private var start: Int64?
  private var firstFrame: Int64 = 0

  init(frameDuration: MediaTime) {
    frameNanoseconds = max(1, frameDuration.value * 1_000_000_000 / Int64(frameDuration.timescale))
  }

  /// Sleeps until frame `n` is due and returns `n`, or returns the latest frame that
  /// is already due when that is later than `n`.
  mutating func waitForFrame(_ n: Int64) -> Int64 {
    let now = Self.now()
    guard let start else {
      self.start = now
      firstFrame = n
      return n
    }
    let due = start + (n - firstFrame) * frameNanoseconds
    if now >= due + frameNanoseconds {
      return firstFrame + (now - start) / frameNanoseconds
    }
    if now < due {
      var deadline = timespec(tv_sec: Int(due / 1_000_000_000), tv_nsec: Int(due % 1_000_000_000))
      // Absolute deadline: no drift, and EINTR just means sleep again.
      while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }
    return n
  }

  static func now() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }
}
