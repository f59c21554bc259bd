import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxMedia

extension RecordingPipeline {
  /// What the source stage will read, and the frame rate to tell the encoder.
  struct OpenedInput {
    var input: any MediaSource<PCMBuffer>
    var fps: Double
    /// Frames between the stages; the input's pool was made big enough for them.
    var buffering: RecordingBuffering = .file
    /// The sound track's own rate and channels, for a movie file.
    var audioSampleRate: Int? = nil
    var audioChannels: Int? = nil
    /// The clockwise turn a movie's display matrix asks for (0 when none).
    var displayRotation = 0
    /// What the input's timestamps mean on the calendar (for `text` and `timestamp`).
    var clock = FrameClock.wallClockAtFirstFrame
    /// How many frames a movie or a composition holds, when known.
    var expectedFrames: Int? = nil
  }

  /// Opens the one input a recording reads: a movie file, a composition, a program's
  /// own source, or a live source of any kind (`LiveSourceSpec`: testsrc, a PNG, a
  /// camera, which comes back after an unplug within `reconnectTimeout`).
  static func openInput(_ configuration: Configuration, report: @escaping @Sendable (String) -> Void) throws -> OpenedInput {
    let fps = configuration.timelapse == nil ? configuration.framesPerSecond : nil
    switch configuration.source {
    case .movie(let path):
      let audio = configuration.sound == .movie ? AudioOutputSettings() : nil
      var buffering = RecordingBuffering.file
      var reader = try MovieReader(path: path, audio: audio, poolCapacity: buffering.poolCapacity)
      let duration = reader.frameDuration ?? MediaTime(value: 1, timescale: 30)
      let rate = Double(duration.timescale) / Double(duration.value)
      var opened: any MediaSource<PCMBuffer> = reader
      if configuration.realtime == true {
        // Played like a camera: a live input, with a live input's rings (and a pool
        // for them, so the reader is opened again now that its size is known).
        buffering = RecordingBuffering.live(geometry: reader.geometry, framesPerSecond: rate)
        reader = try MovieReader(path: path, audio: audio, poolCapacity: buffering.poolCapacity)
        opened = PacedSource(reader)
      }
      return OpenedInput(
        input: opened, fps: rate,
        buffering: buffering, audioSampleRate: reader.audioSampleRate, audioChannels: reader.audioChannels,
        displayRotation: reader.displayRotation,
        clock: reader.creationTime.map { .origin(epochSeconds: $0, at: reader.videoStartTime ?? .zero) } ?? .timestampOnly,
        expectedFrames: reader.statedFrameCount > 0
          ? reader.statedFrameCount : (reader.videoDuration ?? reader.duration).map { Int(($0.seconds * rate).rounded()) })
    case .own(let source):
      let duration = source.frameDuration ?? MediaTime(value: 1, timescale: Int32(fps ?? 30))
      let rate = Double(duration.timescale) / Double(duration.value)
      return OpenedInput(
        input: source, fps: rate,
        buffering: source.isLive ? RecordingBuffering.live(geometry: source.geometry, framesPerSecond: rate) : .file)
    case .composition(let composition):
      let duration = composition.video.frameDuration
      return OpenedInput(
        input: composition, fps: Double(duration.timescale) / Double(duration.value), buffering: .composition,
        audioSampleRate: composition.audio?.sampleRate, audioChannels: composition.audio?.channels, clock: .timestampOnly,
        expectedFrames: composition.frameCount)
    case .live(let chosen):
      let spec = try chosen ?? {
        let found = try SourceSpec.defaultSource()
        if found.isFallback { report(SourceSpec.fallbackNote.replacingPrefix("camfx: ")) }
        return found.spec
      }()
      let size = configuration.size
      // The pool is made before the source's real size is known (a PNG's, a camera's
      // negotiated one), so it is sized for the expected one and the rings are fitted to
      // it afterwards. Beyond the rings a live source drops frames instead of waiting.
      let expected = RecordingBuffering.live(
        geometry: size ?? FrameGeometry(width: 640, height: 480), framesPerSecond: Double(fps ?? 30))
      let opened = try spec.open(
        LiveSourceRequest(
          size: size, framesPerSecond: fps, live: configuration.realtime ?? true, poolCapacity: expected.poolCapacity,
          camera: configuration.camera, reconnectTimeout: configuration.reconnectTimeout, report: report))
      let buffering = opened.source.isLive
        ? RecordingBuffering.live(geometry: opened.source.geometry, framesPerSecond: opened.framesPerSecond)
          .fitting(pool: expected.poolCapacity)
        : RecordingBuffering.file
      return OpenedInput(input: opened.source, fps: opened.framesPerSecond, buffering: buffering)
    }
  }
}

extension String {
  fileprivate func replacingPrefix(_ prefix: String) -> String {
    hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
  }
}
