import CamfxCore
import CamfxMedia

/// A music track under a composition (`compose --music`): its sound from START to END
/// (or its end), played again from START as often as the movie needs, resampled to
/// the mix. Read forward only.
final class MusicSound {
  private let reader: AudioReader
  private let start: MediaTime
  private let endSample: Int64?
  private let rate: Int
  private let channels: Int
  private var buffer: [Int16] = []
  /// Samples from START delivered in the current pass.
  private var position: Int64 = 0

  /// - Throws: what opening the file throws, or `RecordingOptionError` for a file with
  ///   no sound or a cut with nothing in it.
  init(_ music: Composition.Music, mix: AudioMix) throws {
    guard let reader = try AudioReader(path: music.path, sampleRate: mix.sampleRate, channels: mix.channels) else {
      throw RecordingOptionError("--music \(music.path): the file has no sound")
    }
    self.reader = reader
    start = music.start ?? .zero
    endSample = music.end.map { CompositionTimeline.samples($0 - (music.start ?? .zero), rate: mix.sampleRate) }
    rate = mix.sampleRate
    channels = mix.channels
    try rewind()
  }

  /// The next `count` sample frames, interleaved.
  func next(_ count: Int) throws -> ArraySlice<Int16> {
    var rewoundEmpty = false
    while buffer.count < count * channels {
      if let end = endSample, position >= end {
        try rewind()
        continue
      }
      guard let pcm = try reader.nextBuffer() else {
        // The end of the file: again from START (unless a pass gave nothing at all).
        if rewoundEmpty { break }
        rewoundEmpty = position == 0
        try rewind()
        continue
      }
      var samples = pcm.samples[...]
      // After a seek the first blocks may start before START.
      let at = CompositionTimeline.samples(pcm.presentationTime - start, rate: rate)
      if at < position {
        let skip = Int(min(position - at, Int64(pcm.frameCount)))
        samples = samples.dropFirst(skip * channels)
      }
      if let end = endSample {
        samples = samples.prefix(Int(max(0, end - position)) * channels)
      }
      buffer.append(contentsOf: samples)
      position += Int64(samples.count / channels)
    }
    let taken = buffer.prefix(count * channels)
    buffer.removeFirst(taken.count)
    if taken.count < count * channels {
      return (Array(taken) + repeatElement(0, count: count * channels - taken.count))[...]
    }
    return taken
  }

  private func rewind() throws {
    try reader.seek(to: start)
    position = 0
  }
}
