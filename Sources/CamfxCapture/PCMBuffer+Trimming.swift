import CamfxCore
import CamfxMedia

extension PCMBuffer {
  /// This buffer without its first `frames` sample frames, its time moved on to match.
  func dropping(frames: Int) -> PCMBuffer {
    let n = min(max(frames, 0), frameCount)
    let shift = MediaTime(value: Int64(n) * 1_000_000_000 / Int64(sampleRate), timescale: 1_000_000_000)
    return PCMBuffer(
      samples: Array(samples[(n * channels)...]), channels: channels, sampleRate: sampleRate,
      presentationTime: presentationTime + shift)
  }

  /// The first `frames` sample frames of this buffer.
  func keeping(frames: Int) -> PCMBuffer {
    let n = min(max(frames, 0), frameCount)
    return PCMBuffer(
      samples: Array(samples[..<(n * channels)]), channels: channels, sampleRate: sampleRate,
      presentationTime: presentationTime)
  }
}
