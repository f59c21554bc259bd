import CamfxCore
import CamfxFrames

extension PCMBuffer {
  /// This buffer without its first `frames` sample frames, its time moved on to match.
  func dropping(frames: Int) -> PCMBuffer {
    let n = min(max(frames, 0), frameCount)
    if n == 0 { return self }
    let shift = MediaTime(value: Int64(n) * 1_000_000_000 / Int64(sampleRate), timescale: 1_000_000_000)
    return PCMBuffer(
      samples: Array(samples[(n * channels)...]), channels: channels, sampleRate: sampleRate,
      presentationTime: presentationTime + shift)
  }

  /// The first `frames` sample frames of this buffer.
  func keeping(frames: Int) -> PCMBuffer {
    let n = min(max(frames, 0), frameCount)
    if n == frameCount { return self }
    return PCMBuffer(
      samples: Array(samples[..<(n * channels)]), channels: channels, sampleRate: sampleRate,
      presentationTime: presentationTime)
  }

  /// The sample frame `time` falls on, rounded to the nearest, clamped to
  /// `0...frameCount`: the frames before it play before `time`.
  func frameIndex(at time: MediaTime) -> Int {
    let nanos = (time - presentationTime).converted(to: 1_000_000_000).value
    if nanos <= 0 { return 0 }
    // Past the end (and no overflow below for times hours away).
    if nanos >= (Int64(frameCount) + 1) * 1_000_000_000 / Int64(sampleRate) { return frameCount }
    let index = (nanos * Int64(sampleRate) + 500_000_000) / 1_000_000_000
    return Int(min(index, Int64(frameCount)))
  }

  /// The frames before `time` and the frames from `time` on (to the nearest sample
  /// frame); either is `nil` when it would hold no frame.
  func split(at time: MediaTime) -> (before: PCMBuffer?, after: PCMBuffer?) {
    let index = frameIndex(at: time)
    return (index > 0 ? keeping(frames: index) : nil, index < frameCount ? dropping(frames: index) : nil)
  }
}
