/// How the audio track is encoded: AAC by default, like `AVFormatIDKey: kAudioFormatMPEG4AAC`.
///
/// PCM appended to the writer may have any rate and channel count; it is resampled
/// (libswresample) to these.
public struct AudioSettings: Sendable, Equatable {
  /// FFmpeg encoder name; `aac` is FFmpeg's native AAC encoder.
  public var codec: String = "aac"
  /// Average bits per second (`--audio-bitrate`, e.g. `128k`).
  public var bitrate: Int = 128_000
  /// Samples per second per channel (`--sample-rate`).
  public var sampleRate: Int = 48_000
  /// 1 (mono) to 8 (7.1) (`--channels`).
  public var channels: Int = 2

  public init(codec: String = "aac", bitrate: Int = 128_000, sampleRate: Int = 48_000, channels: Int = 2) {
    self.codec = codec
    self.bitrate = bitrate
    self.sampleRate = sampleRate
    self.channels = channels
  }

  /// The short codec names `--audio-codec` takes, and the encoder each one means.
  public static let encoders: KeyValuePairs<String, String> = ["aac": "aac", "opus": "libopus"]

  /// The encoder an `--audio-codec` name means.
  /// - Throws: `MediaSettingsError` listing the names for an unknown one.
  public static func encoder(forCodec name: String) throws(MediaSettingsError) -> String {
    guard let encoder = encoders.first(where: { $0.key == name.lowercased() })?.value else {
      throw MediaSettingsError("unknown --audio-codec '\(name)' (expected \(encoders.map(\.key).joined(separator: " or ")))")
    }
    return encoder
  }

  /// Rates the Opus encoder accepts.
  public static let opusSampleRates = [48000, 24000, 16000, 12000, 8000]

  /// Rates the AAC encoder accepts.
  public static let aacSampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

  /// Checks every field and names the first bad one.
  /// - Throws: `MediaSettingsError`.
  public func validate() throws(MediaSettingsError) {
    guard bitrate >= 1000, bitrate <= 1_000_000 else {
      throw MediaSettingsError("invalid audio bitrate \(Bitrate.format(bitrate)): must be between 1k and 1000k")
    }
    guard sampleRate > 0, sampleRate <= 384_000 else {
      throw MediaSettingsError("invalid sample rate \(sampleRate)")
    }
    if codec == "aac", !Self.aacSampleRates.contains(sampleRate) {
      throw MediaSettingsError(
        "AAC does not support sample rate \(sampleRate) (use one of \(Self.aacSampleRates.map(String.init).joined(separator: ", ")))")
    }
    if codec == "libopus", !Self.opusSampleRates.contains(sampleRate) {
      throw MediaSettingsError(
        "Opus does not support sample rate \(sampleRate) (use one of \(Self.opusSampleRates.map(String.init).joined(separator: ", ")))")
    }
    guard channels >= 1, channels <= 8 else {
      throw MediaSettingsError("invalid channel count \(channels): must be between 1 and 8")
    }
  }
}
