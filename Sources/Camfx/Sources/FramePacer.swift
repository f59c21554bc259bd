import CamfxCore
#if canImport(Glibc)
import Glibc
#endif

/// The one pacer of live sources on the monotonic clock, in two forms:
///
/// - by frame number, for a generator (testsrc, a PNG): frame `n` is due at
///   `start + n * frameDuration`, where `start` is when the first frame was asked for;
/// - by timestamp, for a file played like a camera (`PacedSource`): a frame stamped `t`
///   is due `t - t₀` after the first one, stamped `t₀`, was asked for.
///
/// By frame number it behaves like a camera with `queueDepth` capture buffers: a camera keeps filling
/// its queued buffers while the application is busy, so a consumer that comes back a
/// few frames late still gets every frame, with its own timestamp. Only a consumer
/// later than the whole queue loses frames: the oldest ones are skipped (and counted by
/// the caller as dropped), and timestamps stay on the wall clock.
struct FramePacer {
  private let frameNanoseconds: Int64
  private let queueDepth: Int64
  private var start: Int64?
  private var firstFrame: Int64 = 0
  private var firstTime = MediaTime.zero
  private let clock: () -> Int64

  /// - Parameters:
  ///   - queueDepth: frames that may be due at once before the oldest is lost (a V4L2
  ///     camera here has at least 4 buffers).
  ///   - clock: monotonic nanoseconds (a fake one in tests).
  init(frameDuration: MediaTime?, queueDepth: Int = 4, clock: @escaping () -> Int64 = MonotonicClock.nanoseconds) {
    frameNanoseconds = frameDuration.map { max(1, $0.value * 1_000_000_000 / Int64($0.timescale)) } ?? 1
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

  /// When frame `n` is (or was) due on the monotonic clock, in nanoseconds; nil before
  /// the first frame was asked for.
  func dueNanoseconds(ofFrame n: Int64) -> Int64? {
    start.map { $0 + (n - firstFrame) * frameNanoseconds }
  }

  /// Sleeps until the frame stamped `time` is due (the first one at once), or until
  /// `isInterrupted()` turns true; `wakeUp` is notified when it does, so that a stop
  /// ends a wait however far off the frame is. Absolute deadlines: no drift.
  mutating func waitForFrame(at time: MediaTime, wakeUp: WakeSignal, isInterrupted: () -> Bool) {
    guard let start else {
      start = clock()
      firstTime = time
      return
    }
    let due = start + (time - firstTime).converted(to: 1_000_000_000).value
    while !isInterrupted() {
      let left = due - clock()
      if left <= 0 { return }
      wakeUp.wait(timeoutNanoseconds: Int(min(left, 1_000_000_000)), until: isInterrupted)
    }
  }
}
