import CamfxCore
import CamfxFrames
import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// A generated sine tone (`--audio sine=440`), delivered as S16 PCM chunks stamped on
/// the same clock as the test video source: sample `n` plays at `n / sampleRate` s.
///
/// Each sample is computed from its index, not accumulated, so the phase never drifts.
public struct SineAudioSource: Sendable {
  public let frequency: Double
  public let sampleRate: Int
  public let channels: Int
  /// Peak level as a fraction of full scale.
  public let amplitude: Double
  /// Index of the next sample frame to generate.
  public private(set) var position: Int64 = 0

  /// - Parameters:
  ///   - frequency: Hz, above 0 and below `sampleRate / 2`.
  ///   - sampleRate: frames per second.
  ///   - channels: the same tone on every channel.
  ///   - amplitude: 0...1 of full scale (default 0.5, -6 dBFS).
  public init(frequency: Double = 440, sampleRate: Int = 48_000, channels: Int = 2, amplitude: Double = 0.5) throws(MediaSettingsError) {
    guard frequency.isFinite, frequency > 0, frequency < Double(sampleRate) / 2 else {
      throw MediaSettingsError("invalid sine frequency '\(frequency)': must be between 0 and \(sampleRate / 2) Hz")
    }
    guard sampleRate > 0, channels >= 1, channels <= 8, amplitude >= 0, amplitude <= 1 else {
      throw MediaSettingsError("invalid sine settings: \(channels) channels at \(sampleRate) Hz, amplitude \(amplitude)")
    }
    self.frequency = frequency
    self.sampleRate = sampleRate
    self.channels = channels
    self.amplitude = amplitude
  }

  /// The time of the next sample.
  public var presentationTime: MediaTime { MediaTime(value: position, timescale: Int32(sampleRate)) }

  /// The next `frameCount` sample frames.
  public mutating func nextBuffer(frameCount: Int) -> PCMBuffer {
    precondition(frameCount >= 0)
    var samples = [Int16](repeating: 0, count: frameCount * channels)
    let step = 2 * Double.pi * frequency / Double(sampleRate)
    let scale = amplitude * 32767
    samples.withUnsafeMutableBufferPointer { out in
      for i in 0..<frameCount {
        // Reduce the index modulo the sample rate first, so the argument stays small and exact.
        let n = (position + Int64(i)) % Int64(sampleRate)
        let whole = (position + Int64(i)) / Int64(sampleRate)
        let phase = step * Double(n) + 2 * Double.pi * (frequency * Double(whole)).truncatingRemainder(dividingBy: 1)
        let s = Int16((sin(phase) * scale).rounded())
        for c in 0..<channels { out[i * channels + c] = s }
      }
    }
    let buffer = PCMBuffer(samples: samples, channels: channels, sampleRate: sampleRate, presentationTime: presentationTime)
    position += Int64(frameCount)
    return buffer
  }

  /// Every sample frame from the current position up to (not including) `time`, or
  /// `nil` if there is none: call it with each video frame's time to keep the tone in
  /// step with the picture.
  public mutating func nextBuffer(upTo time: MediaTime) -> PCMBuffer? {
    let end = MovieWriter.ticks(time, timescale: Int32(sampleRate))
    guard end > position else { return nil }
    return nextBuffer(frameCount: Int(end - position))
  }
}
