import CamfxCore

/// A chunk of interleaved signed 16-bit PCM audio with the time of its first sample,
/// like a `CMSampleBuffer` of `AVAudioPCMBuffer` data.
///
///     samples: L0 R0 L1 R1 L2 R2 ...   (channels = 2; frameCount = samples.count / 2)
public struct PCMBuffer: Sendable, Equatable {
  /// Interleaved samples, `frameCount × channels` of them.
  public var samples: [Int16]
  /// Samples per frame (1 mono, 2 stereo).
  public var channels: Int
  /// Frames per second.
  public var sampleRate: Int
  /// When the first frame plays, on the same clock as the video frames.
  public var presentationTime: MediaTime

  public init(samples: [Int16], channels: Int, sampleRate: Int, presentationTime: MediaTime) {
    precondition(channels > 0 && sampleRate > 0 && samples.count % channels == 0)
    self.samples = samples
    self.channels = channels
    self.sampleRate = sampleRate
    self.presentationTime = presentationTime
  }

  /// Sample frames (one sample per channel) in this buffer.
  public var frameCount: Int { samples.count / channels }

  /// How long this buffer plays.
  public var duration: MediaTime { MediaTime(value: Int64(frameCount), timescale: Int32(sampleRate)) }
}
