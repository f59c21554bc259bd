import CamfxCore
import CamfxMedia

/// The sound of one composition item, cut to the sample at the item's start and
/// resampled to the mix: read forward only, sample `n` being `n / rate` seconds after
/// the cut's start. Where the source has no sound (a still, a silent movie, a gap in
/// the track, past its end) the samples are silence.
final class ItemSound {
  private let reader: AudioReader?
  private let start: MediaTime
  private let rate: Int
  private let channels: Int
  /// Interleaved samples from sample frame `bufferedFrom` on.
  private var buffer: [Int16] = []
  private var bufferedFrom: Int64 = 0
  private var ended = false

  init(_ placement: CompositionTimeline.Placement, mix: AudioMix) throws {
    rate = mix.sampleRate
    channels = mix.channels
    start = placement.sourceStart
    guard case .movie(let path) = placement.item.asset else {
      reader = nil
      return
    }
    // nil: a silent movie.
    reader = try AudioReader(path: path, sampleRate: mix.sampleRate, channels: mix.channels)
    if start > .zero { try reader?.seek(to: start) }
  }

  /// Adds `count` sample frames from `first` on (counted from the item's start),
  /// multiplied by `gain(frame)`, to `mix` (interleaved) from its sample frame `at` on.
  /// Calls go forward in time.
  func add(from first: Int64, count: Int, into mix: inout [Float], at: Int, gain: (Int64) -> Float) throws {
    guard let reader else { return }
    try fill(until: first + Int64(count), reader: reader)
    // Drop what is behind.
    if first > bufferedFrom {
      let drop = Int(min(first - bufferedFrom, Int64(buffer.count / channels)))
      buffer.removeFirst(drop * channels)
      bufferedFrom += Int64(drop)
    }
    let available = buffer.count / channels
    for i in 0..<count {
      let frame = first + Int64(i)
      let index = Int(frame - bufferedFrom)
      guard index >= 0, index < available else { continue }
      let g = gain(frame)
      for c in 0..<channels { mix[(at + i) * channels + c] += Float(buffer[index * channels + c]) * g }
    }
  }

  /// Decodes until the buffer reaches sample frame `end` or the source ends.
  private func fill(until end: Int64, reader: AudioReader) throws {
    while !ended && bufferEnd < end {
      guard let pcm = try reader.nextBuffer() else {
        ended = true
        return
      }
      // Where this block starts, in samples from the cut's start.
      let at = CompositionTimeline.samples(pcm.presentationTime - start, rate: rate)
      let frames = Int64(pcm.frameCount)
      if at + frames <= bufferEnd { continue }  // before the cut, or already had
      var samples = pcm.samples[...]
      if at < bufferEnd {
        samples = samples.dropFirst(Int(bufferEnd - at) * channels)
      } else if at > bufferEnd {
        // The track starts late or has a gap: silence, so later sound stays in step.
        buffer.append(contentsOf: repeatElement(0, count: Int(at - bufferEnd) * channels))
      }
      buffer.append(contentsOf: samples)
    }
  }

  /// The sample frame after the last one buffered.
  private var bufferEnd: Int64 { bufferedFrom + Int64(buffer.count / channels) }
}
