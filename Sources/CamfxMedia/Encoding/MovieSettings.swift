/// What a `MovieWriter`'s encoders make: video (required) and audio (optional).
/// Where the packets go, and how, is each output's own business (`MovieFileOutput.Options`).
public struct MovieSettings: Sendable, Equatable {
  public var video: VideoSettings
  /// `nil` for a movie without sound.
  public var audio: AudioSettings?

  public init(video: VideoSettings, audio: AudioSettings? = nil) {
    self.video = video
    self.audio = audio
  }

  /// Checks video and audio settings.
  /// - Throws: `MediaSettingsError` naming the first bad value.
  public func validate() throws(MediaSettingsError) {
    try video.validate()
    try audio?.validate()
  }
}
