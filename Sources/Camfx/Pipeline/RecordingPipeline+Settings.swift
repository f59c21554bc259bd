import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxMedia

/// The settings a recording is built with, each checked and worked out before the
/// stage it is for: what does not go together, the timelapse, the chain, the encoders.
extension RecordingPipeline {
  /// Refuses settings that do not go together, before anything opens.
  /// - Returns: the limits to record by (a timelapse counts its frames for a duration).
  static func checkCombinations(_ configuration: Configuration) throws -> RecordingLimits {
    guard !configuration.video.copiesPackets else {
      throw RecordingOptionError(
        "video codec 'copy' records the source's own packets: a PacketCopySession does that (Recording chooses)")
    }
    var limits = configuration.limits
    if let interval = configuration.timelapse {
      guard interval.seconds > 0 else { throw RecordingOptionError("the timelapse interval must be longer than 0") }
      guard configuration.sound == .none || configuration.sound == .movie else {
        throw RecordingOptionError("a timelapse is silent: it cannot record sound")
      }
      let keepsLiveFrames: Bool
      switch configuration.source {
      case .live: keepsLiveFrames = true
      case .own(let source): keepsLiveFrames = source.isLive
      case .movie, .composition: keepsLiveFrames = configuration.realtime == true
      }
      if !keepsLiveFrames {
        throw RecordingOptionError("a timelapse keeps frames of a live source: a camera, testsrc, or a movie played in real time")
      }
      if let duration = limits.duration {
        // The duration is the source's; the movie holds one frame per interval of it.
        let kept = Int((duration.seconds / interval.seconds).rounded(.up))
        limits.framesAreTheDuration = kept < (limits.frames ?? .max)
        limits.frames = min(limits.frames ?? kept, kept)
        limits.duration = nil
      }
    }
    if !configuration.triggers.isEmpty && configuration.events == nil {
      throw RecordingOptionError("a trigger starts event clips: the recording needs events (a pre-record) for it")
    }
    switch configuration.source {
    case .live:
      if configuration.sound == .movie { throw RecordingOptionError("a live source has no sound track of its own") }
    case .own(let source) where !source.hasAudio:
      if configuration.sound == .movie { throw RecordingOptionError("this source has no sound track of its own") }
    case .movie, .composition, .own:
      if configuration.sound != .movie && configuration.sound != .none {
        throw RecordingOptionError("a movie brings its own sound: it cannot take a tone or a microphone as well")
      }
    }
    return limits
  }

  /// `opened`, kept at the timelapse's interval and played at its rate, when one is asked for.
  static func applyTimelapse(_ configuration: Configuration, to opened: OpenedInput) throws -> OpenedInput {
    guard let interval = configuration.timelapse else { return opened }
    var opened = opened
    let rate = configuration.framesPerSecond ?? 30
    guard (1...1000).contains(rate) else {
      throw RecordingOptionError("the timelapse's frame rate \(rate) must be in 1...1000")
    }
    // A timelapse keeps at most every frame: a shorter interval would want more frames
    // than the source makes, and the frame count that stands for --duration would take
    // longer than the duration to reach (--timelapse 1ms --duration 1s ran for 25 s).
    if let frameDuration = opened.input.frameDuration, interval < frameDuration {
      let milliseconds = frameDuration.seconds * 1000
      throw RecordingOptionError(
        "--timelapse \(RecordingStatusLine.fixed(interval.seconds * 1000, 1)) ms is shorter than the source's frame "
          + "interval, \(RecordingStatusLine.fixed(milliseconds, 1)) ms (\(RecordingStatusLine.fixed(1 / frameDuration.seconds, 2)) "
          + "fps): a timelapse keeps at most every frame; give --timelapse \(Int(milliseconds.rounded(.up)))ms or longer")
    }
    opened.input = TimelapseSource(opened.input, interval: interval, frameDuration: MediaTime(value: 1, timescale: Int32(rate)))
    opened.fps = Double(rate)
    return opened
  }

  /// The configuration's chain, after what turns a movie upright (its display matrix)
  /// and scales it, on the input's clock; not yet configured.
  static func fullChain(_ configuration: Configuration, for opened: OpenedInput) -> FilterChain {
    var chain = configuration.chain
    var prefix: [any VideoFilter] = []
    if configuration.autorotate, let angle = Rotate.Angle(rawValue: opened.displayRotation) { prefix.append(Rotate(angle: angle)) }
    if let scale = configuration.movieScale { prefix.append(scale) }
    if !prefix.isEmpty { chain = FilterChain(prefix + chain.filters) }
    chain.setClock(opened.clock)
    return chain
  }

  /// The video encoder's settings for frames of `geometry`: with event clips, keyframes
  /// at least as often as the pre-roll, and a pre-roll the memory bound can hold.
  static func videoSettings(_ configuration: Configuration, geometry: FrameGeometry, opened: OpenedInput) throws -> VideoSettings {
    var video = configuration.video
    video.width = geometry.width
    video.height = geometry.height
    video.fps = opened.fps
    guard let events = configuration.events else { return video }
    // Clips and segments named from one pattern would take each other's names (with
    // overwrite, a segment could replace a finished clip).
    let clips = OutputFile.canonicalPath(of: events.pattern)
    if let file = configuration.outputs?.files.first(where: { OutputFile.canonicalPath(of: $0) == clips }) {
      throw RecordingOptionError(
        "--event-output '\(events.pattern)' is the name of -o '\(file)' too: give the clips names of their own, "
          + "e.g. 'event-%Y%m%d-%H%M%S.mp4'")
    }
    // A clip starts at the keyframe at or before its pre-roll: keyframes come at
    // least that often, so a clip starts at most one interval early.
    let limit = max(1, Int((events.preRecord * opened.fps).rounded(.down)))
    if let gop = video.gop, gop > limit {
      throw RecordingOptionError(
        "--gop \(gop) is longer than --pre-record \(RecordingStatusLine.fixed(events.preRecord, 1)) s (\(limit) frames "
          + "at \(RecordingStatusLine.fixed(opened.fps, 2)) fps): an event clip could start up to \(gop) frames before "
          + "it; give --gop \(limit) or less")
    }
    video.gop = min(video.effectiveGOP, limit)
    if case .bitrate(let bitsPerSecond) = video.rateControl,
      Double(bitsPerSecond) / 8 * events.preRecord > Double(events.maximumPreRecordBytes)
    {
      let megabytes = Double(bitsPerSecond) / 8 * events.preRecord / 1e6
      throw RecordingOptionError(
        "--pre-record \(RecordingStatusLine.fixed(events.preRecord, 1)) s at \(bitsPerSecond / 1000) kbit/s keeps about "
          + "\(RecordingStatusLine.fixed(megabytes, 1)) MB of packets, more than --pre-record-max allows "
          + "(\(RecordingStatusLine.fixed(Double(events.maximumPreRecordBytes) / 1e6, 1)) MB): give a larger "
          + "--pre-record-max or a shorter --pre-record")
    }
    return video
  }

  /// The sound track's settings, and the microphone that records it.
  static func audioSettings(
    _ configuration: Configuration, opened: OpenedInput, report: @Sendable (String) -> Void
  ) throws -> (AudioSettings?, ALSAMicrophone?) {
    let hasSound: Bool
    switch configuration.sound {
    case .none: hasSound = false
    case .tone, .microphone, .microphoneReader: hasSound = true
    case .movie: hasSound = opened.input.hasAudio
    }
    guard hasSound else { return (nil, nil) }
    let options = configuration.audio
    var audio = AudioSettings()
    audio.codec = options.codec
    // A transcode keeps the file's rate and channels unless told otherwise.
    let rates = audio.codec == "libopus" ? AudioSettings.opusSampleRates : AudioSettings.aacSampleRates
    if let rate = opened.audioSampleRate, rates.contains(rate) { audio.sampleRate = rate }
    if let n = opened.audioChannels, (1...2).contains(n) { audio.channels = n }
    if let bitrate = options.bitrate { audio.bitrate = bitrate }
    if let rate = options.sampleRate { audio.sampleRate = rate }
    if let channels = options.channels { audio.channels = channels }
    if case .microphoneReader(let reader) = configuration.sound {
      // The device runs as the recording that opened it asked.
      audio.sampleRate = reader.microphone.sampleRate
      audio.channels = reader.microphone.channels
      return (audio, nil)
    }
    guard case .microphone(let device) = configuration.sound else { return (audio, nil) }
    // The device may run at another rate or channel count; the movie takes its own.
    let microphone = try ALSAMicrophone(device: device, sampleRate: audio.sampleRate, channels: audio.channels)
    for note in microphone.notes { report("\(device): \(note)") }
    audio.sampleRate = microphone.sampleRate
    audio.channels = microphone.channels
    return (audio, microphone)
  }
}
