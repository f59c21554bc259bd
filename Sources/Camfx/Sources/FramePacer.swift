import CamfxCore
#if canImport(Glibc)
import Glibc
#endif

/// Paces a live generator on the monotonic clock: frame `n` is due at
/// `start + n * frameDuration`, where `start` is when the first frame was asked for.
///
/// It behaves like a camera with `queueDepth` capture buffers: a camera keeps filling
/// its queued buffers while the application is busy, so a consumer that comes back a
/// few frames late still gets every frame, with its own timestamp. Only a consumer
/// later than the whole queue loses frames: the oldest ones are skipped (and counted by
/// the caller as dropped), and timestamps stay on the wall clock.
struct FramePacer {
  private let frameNanoseconds: Int64
  private let queueDepth: Int64
  private var start: Int64?
  private var firstFrame: Int64 = 0
  private let clock: () -> Int64

  /// - Parameters:
  ///   - queueDepth: frames that may be due at once before the oldest is lost (a V4L2
  ///     camera here has at least 4 buffers).
  ///   - clock: monotonic nanoseconds (a fake one in tests).
  init(frameDuration: MediaTime, queueDepth: Int = 4, clock: @escaping () -> Int64 = MonotonicClock.nanoseconds) {
    frameNanoseconds = max(1, frameDuration.value * 1_000_000_000 / Int64(frameDuration.timescale))
    self.queueDepth = Int64(max(1, queueDepth))
    self.clock = clock
  }

  /// Sleeps until frame `n` is due and returns `n`; or, when more than `queueDepth`
  /// frames are already due, returns the oldest of the newest `queueDepth` of them.
  mutating func waitForFrame(_ n: Int64) -> Int64 {
    let now = clock()
    guard let start else {
      self.start = now
      firstFrame = n
      return n
    }
    let due = start + (n - firstFrame) * frameNanoseconds
    let latestDue = firstFrame + (now - start) / frameNanoseconds
    if latestDue - n >= queueDepth {
      return latestDue - queueDepth + 1
    }
    MonotonicClock.sleep(untilNanoseconds: due)
    return n
  }
}
