import CamfxCore
import CamfxFrames

/// Cuts a stream of stamped PCM periods to a recording: audio before the session start
/// is dropped, and each call hands out what lies before an end that moves forward (the
/// video recorded so far), keeping the rest for the next call.
///
///     periods:   |----a----|----b----|    (lost)   |----c----|
///     session:        start^                           ^end
///     handed out:     |-a--|----b----|-- silence --|-c-|        c's tail waits
///
/// What is handed out is one gapless run of samples on the periods' own timeline: a
/// movie writer lays audio end to end from its first sample, so audio lost to an
/// overrun is filled with silence (and periods stamped earlier than the audio already
/// handed out lose the overlap), or everything after it would play early — A/V drift.
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
  /// A period waiting behind the silence that fills the gap before it.
  private var held: PCMBuffer?
  /// The time just after the last sample frame handed out.
  private var nextTime: MediaTime?
  /// Sample frames of silence inserted for lost audio, in all.
  private(set) var framesFilled = 0
  /// Sample frames dropped because they overlapped audio already handed out.
  private(set) var framesOverlapped = 0

  init(start: MediaTime? = nil) {
    self.start = start
  }

  /// The next run of sample frames from the session start up to (not including) `end`,
  /// or `nil` when nothing before `end` has been captured yet. Never empty.
  /// - Parameter pop: the next captured period, or `nil` when none is waiting.
  mutating func next(until end: MediaTime, pop: () throws -> PCMBuffer?) rethrows -> PCMBuffer? {
    while true {
      if pending == nil {
        let popped: PCMBuffer?
        if let waiting = held {
          held = nil
          popped = waiting
        } else {
          popped = try pop()
        }
        guard let chunk = popped else { return nil }
        pending = placed(chunk)
        if pending == nil { continue }
      }
      if let start {
        guard let kept = pending!.split(at: start).after else {
          pending = nil  // wholly before the session
          continue
        }
        pending = kept
      }
      let (before, after) = pending!.split(at: end)
      pending = after
      if let before {
        nextTime = before.presentationTime
          + MediaTime(value: Int64(before.frameCount) * 1_000_000_000 / Int64(before.sampleRate), timescale: 1_000_000_000)
      }
      return before
    }
  }

  /// Silence from the end of the audio handed out (or the session start) up to `end`,
  /// at most 10 s of it; `nil` when there is no gap. For a device that stopped
  /// delivering: the audio keeps up with the video, and if the device comes back, its
  /// periods overlap this silence and lose the overlap (`placed`), so they keep their time.
  mutating func silence(until end: MediaTime, channels: Int, sampleRate: Int) -> PCMBuffer? {
    guard pending == nil, held == nil, let from = nextTime ?? start else { return nil }
    let nanos = min((end - from).converted(to: 1_000_000_000).value, 10_000_000_000)
    let frames = Int((nanos * Int64(sampleRate) + 500_000_000) / 1_000_000_000)
    guard frames > 0 else { return nil }
    framesFilled += frames
    nextTime = from + MediaTime(value: Int64(frames) * 1_000_000_000 / Int64(sampleRate), timescale: 1_000_000_000)
    return PCMBuffer(
      samples: [Int16](repeating: 0, count: frames * channels), channels: channels, sampleRate: sampleRate,
      presentationTime: from)
  }

  /// `chunk` joined onto what was handed out (or onto the session start): silence (at most a second at a time;
  /// `chunk` is held behind it) when it starts later, its overlapping head dropped when
  /// it starts earlier; `nil` when all of it overlaps.
  private mutating func placed(_ chunk: PCMBuffer) -> PCMBuffer? {
    // Before anything was handed out, the session start is where audio must begin: a
    // device that starts late gets leading silence, so the sound does not play early.
    guard let nextTime = nextTime ?? start else { return chunk }
    let rate = Int64(chunk.sampleRate)
    // Clamped to ±3 hours so that the product below cannot overflow.
    let nanos = min(max((chunk.presentationTime - nextTime).converted(to: 1_000_000_000).value, -10_800_000_000_000), 10_800_000_000_000)
    let frames = (nanos * rate + (nanos >= 0 ? 500_000_000 : -500_000_000)) / 1_000_000_000
    if frames > 0 {
      let n = Int(min(frames, rate))
      framesFilled += n
      held = chunk
      return PCMBuffer(
        samples: [Int16](repeating: 0, count: n * chunk.channels), channels: chunk.channels, sampleRate: chunk.sampleRate,
        presentationTime: nextTime)
    }
    if frames < 0 {
      let overlap = Int(min(-frames, Int64(chunk.frameCount)))
      framesOverlapped += overlap
      return overlap == chunk.frameCount ? nil : chunk.dropping(frames: overlap)
    }
    return chunk
  }
}
