/// The PCM `MovieReader` delivers: interleaved S16 at a rate and channel count, each
/// `nil` meaning "as in the file" (like `AVAssetReaderAudioMixOutput`'s settings).
public struct AudioOutputSettings: Sendable, Equatable {
  public var sampleRate: Int?
  public var channels: Int?

  public init(sampleRate: Int? = nil, channels: Int? = nil) {
    self.sampleRate = sampleRate
    self.channels = channels
  }
}
