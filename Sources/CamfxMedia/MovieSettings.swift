/// Everything `MovieWriter` needs to know about the file it writes.
public struct MovieSettings: Sendable, Equatable {
  public var video: VideoSettings
  /// `nil` for a movie without sound.
  public var audio: AudioSettings?
  /// Move the MP4/MOV index (`moov`) to the front after writing, so players can start
  /// before the whole file has arrived (`-movflags +faststart`, AVFoundation's
  /// `shouldOptimizeForNetworkUse`). Ignored for Matroska, whose index is already usable.
  public var faststart: Bool = false

  public init(video: VideoSettings, audio: AudioSettings? = nil, faststart: Bool = false) {
    self.video = video
    self.audio = audio
    self.faststart = faststart
  }

  /// Checks video and audio settings.
  /// - Throws: `MediaSettingsError` naming the first bad value.
  public func validate() throws(MediaSettingsError) {
    try video.validate()
    try audio?.validate()
  }
}
