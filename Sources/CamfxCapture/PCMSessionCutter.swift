import CamfxCore
import CamfxMedia

/// Cuts a stream of stamped PCM periods to a recording: audio before the session start
/// is dropped, and each call hands out what lies before an end that moves forward (the
/// video recorded so far), keeping the rest for the next call.
///
///     periods:   |----a----|----b----|----c----|
///     session:        start^              ^end        -> [start, end) of a and b, then
///     pending:                            |-c-|          c's tail waits for a later end
///
/// Cut points are rounded to the nearest sample frame, and a cut that would leave no
/// frame before `end` hands out nothing: the tail kept after a cut starts within half a
/// sample of that `end` (its time is truncated to whole nanoseconds), so asking again
/// with the same `end` must say "nothing yet", never return an empty buffer — a
/// recording's audio stage asks until it gets `nil` once the video has finished.
struct PCMSessionCutter {
  /// Where the session starts (its first video frame); `nil`: keep everything.
  var start: MediaTime?
  /// The captured period, or what is left of it, not yet handed out.
  private(set) var pending: PCMBuffer?

  init(start: MediaTime? = nil) {
    self.start = start
  }

  /// The next run of sample frames from the session start up to (not including) `end`,
  /// or `nil` when nothing before `end` has been captured yet.
  /// - Parameter pop: the next captured period, or `nil` when none is waiting.
  mutating func next(until end: MediaTime, pop: () throws -> PCMBuffer?) rethrows -> PCMBuffer? {
    while true {
      if pending == nil { pending = try pop() }
      guard let chunk = pending else { return nil }
      if let start {
        guard let kept = chunk.split(at: start).after else {
          pending = nil  // wholly before the session
          continue
        }
        pending = kept
      }
      let (before, after) = pending!.split(at: end)
      pending = after
      return before
    }
  }
}
