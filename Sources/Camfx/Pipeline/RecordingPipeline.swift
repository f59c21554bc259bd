import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxMedia

/// A whole recording assembled from a description of it: the input (a camera, testsrc,
/// a PNG, a movie), the filter chain, the sound, the encoders and every output, with tap
/// points where stills and previews take the filtered frames. It is what `camfx record`
/// and `camfx preview` run, and what a Swift program builds in their place (the model is
/// AVCaptureSession with its inputs, outputs and connections, made in one step):
///
///     var recording = RecordingPipeline.Configuration(source: .live(.testPattern))
///     recording.size = FrameGeometry(width: 1280, height: 720)
///     recording.chain = try FilterRegistry.builtin.makeChain(["mirror", "timestamp"])
///     recording.outputs = try RecordingOutputPlan(names: ["out.mp4", "rtmp://127.0.0.1/live/cam"])
///     recording.limits.duration = MediaTime(value: 10, timescale: 1)
///     let pipeline = try RecordingPipeline(recording)
///     pipeline.addTap(StillCapture(pattern: "still-%H%M%S.png") { print($0) })
///     let summary = try pipeline.run()
///
/// Everything is opened and checked by `init`, before any frame flows: a bad device, a
/// chain that does not fit the input or settings an encoder refuses throw there, and
/// movie files are only created when their first packet arrives.
///
/// `@unchecked Sendable`: `stop()` and the figures may be called from any thread (a
/// signal handler's, a status line's); the rest from the thread that built it.
public final class RecordingPipeline: RecordingJob, @unchecked Sendable {
  /// What to record and how.
  public struct Configuration {
    public enum Source {
      /// A live source: a camera, testsrc or a PNG (`nil`: the first camera, else testsrc).
      case live(SourceSpec?)
      /// A movie file, transcoded whole (or played on the wall clock with `realtime`).
      case movie(path: String)
      /// Movies and stills composed on a timeline (`camfx compose`), with their mixed sound.
      case composition(CompositionInput)
      /// A source a program made (any `MediaSource`: a `MosaicSource`, a network
      /// camera's reader, a generator), recorded like the built-in ones. A live one
      /// should lend out as many frames as `RecordingBuffering.live` gives for its size
      /// and rate, or it drops frames when the rings are deep.
      case own(any MediaSource<PCMBuffer>)
    }

    /// Where the sound comes from.
    public enum Sound: Sendable, Equatable {
      case none
      /// A sine tone of this frequency on the video's clock.
      case tone(frequency: Double)
      /// An ALSA capture device (`default`, `hw:1,0` ...).
      case microphone(device: String)
      /// A movie's own sound track, or a composition's mix (the default for both).
      case movie
    }

    public var source: Source
    /// The size a live source is asked for (default 640×480; a camera may adjust it).
    public var size: FrameGeometry?
    /// Frames per second of a live source (`nil`: 30, or a camera's rate nearest to 30).
    public var framesPerSecond: Int?
    /// A live source on the wall clock (the default), or a movie played like a camera.
    /// `false` for testsrc or a PNG makes frames as fast as they are encoded.
    public var realtime: Bool?
    public var camera = CameraSettings()
    /// Seconds to wait for a camera that went away; 0 ends the recording at once.
    public var reconnectTimeout: Double = 30
    /// A movie is turned upright as its display matrix says, before `movieScale` and the chain.
    public var autorotate = true
    /// What a movie is scaled to before the chain (`--size` with `--input`).
    public var movieScale: Scale?
    /// The filters, not yet configured (the pipeline configures them for the input).
    public var chain = FilterChain([])
    public var sound: Sound
    /// The encoder's settings; the size and rate are the pipeline's to fill in.
    public var video = VideoSettings(width: 2, height: 2)
    /// The sound encoder's settings: `nil` fields keep a movie's own rate and channels
    /// (else 48 kHz stereo), or take a microphone's.
    public var audio = AudioOptions()
    /// The movie files and streams; `nil` records nothing (a preview only).
    public var outputs: RecordingOutputPlan?
    /// Outputs of your own (any `MovieOutput`), on the same packet bus as `outputs`,
    /// each with its own queue and worker. More can attach to `bus` while it runs.
    public var ownOutputs: [any MovieOutput] = []
    /// Event clips from a pre-roll of packets (`--pre-record`), triggered through
    /// `events`; with or without `outputs`.
    public var events: EventRecorder.Options?
    /// What starts event clips besides motion: a signal, a program's own trigger
    /// (`EventTrigger`). Started when the recording starts, stopped when it ends; they
    /// need `events`.
    public var triggers: [any EventTrigger] = []
    /// Motion detection on the filtered frames (`MotionTap`): it triggers `events`
    /// when they are asked for, and its score is in `motion.latest` either way.
    public var motion: MotionDetector.Options?
    public var file = MovieFileOutput.Options()
    /// Cut the movie files into segments.
    public var segments: SegmentedMovieOutput.Options?
    public var limits = RecordingLimits()
    /// Keep one frame per interval of a live source, played at `framesPerSecond`
    /// (default 30); `limits.duration` stays the source's time.
    public var timelapse: MediaTime?

    public init(source: Source) {
      self.source = source
      switch source {
      case .live: sound = .none
      case .own(let source): sound = source.hasAudio ? .movie : .none
      case .movie: sound = .movie
      case .composition(let input): sound = input.hasAudio ? .movie : .none
      }
    }
  }

  /// The sound encoder's settings that a pipeline may leave to its input.
  public struct AudioOptions: Sendable, Equatable {
    public var codec = "aac"
    public var bitrate: Int?
    public var sampleRate: Int?
    public var channels: Int?
    public init() {}
  }

  public let configuration: Configuration
  public let session: RecordingSession<PCMBuffer>
  /// The encoders and outputs (`nil` for a preview without a recording).
  public let writer: MovieWriter?
  /// Where the encoders publish their packets: outputs attach here while the pipeline
  /// runs (`subscribe`) and leave again (`unsubscribe`). `nil` for a preview.
  public var bus: PacketBus? { writer?.bus }
  /// The event clips' recorder, when `configuration.events` asks for them: its
  /// `trigger` starts or extends a clip.
  public let events: EventRecorder?
  /// The motion detector, when `configuration.motion` asks for it.
  public let motion: MotionTap?
  public let outputs: [any MovieOutput]
  /// The size of the filtered frames (what the encoder and the taps get).
  public let outputGeometry: FrameGeometry
  public let microphone: ALSAMicrophone?
  /// The frame rate the encoder was told.
  public let framesPerSecond: Double
  /// The frames a movie or a composition will give (nil for a live source, or when the
  /// file does not say): what a progress bar counts towards.
  public let expectedFrames: Int?
  private let report: @Sendable (String) -> Void

  /// Opens the input, configures the chain for it, opens the microphone, the encoders
  /// and the outputs.
  /// - Parameter report: told, one line at a time, what devices adjusted (a camera's
  ///   size, a microphone's rate) and when a stream loses or regains its server.
  /// - Throws: what opening the input, the devices or the encoders throws, or
  ///   `RecordingOptionError` for settings that do not go together.
  public init(_ configuration: Configuration, report: @escaping @Sendable (String) -> Void = { _ in }) throws {
    guard !configuration.video.copiesPackets else {
      throw RecordingOptionError(
        "video codec 'copy' records the source's own packets: a PacketCopySession does that (Recording chooses)")
    }
    self.configuration = configuration
    self.report = report
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

    var opened = try Self.openInput(configuration, report: report)
    if let interval = configuration.timelapse {
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
    }
    // A movie is turned upright (its display matrix), then scaled, then filtered.
    var chain = configuration.chain
    var prefix: [any VideoFilter] = []
    if configuration.autorotate, let angle = Rotate.Angle(rawValue: opened.displayRotation) { prefix.append(Rotate(angle: angle)) }
    if let scale = configuration.movieScale { prefix.append(scale) }
    if !prefix.isEmpty { chain = FilterChain(prefix + chain.filters) }
    chain.setClock(opened.clock)
    outputGeometry = try chain.configure(input: opened.input.geometry)
    framesPerSecond = opened.fps
    expectedFrames = opened.input.isLive || configuration.timelapse != nil ? nil : opened.expectedFrames

    // Checked before anything starts: a mask of another size, a zone outside the frame.
    if let options = configuration.motion {
      _ = try MotionDetector(width: outputGeometry.width, height: outputGeometry.height, options: options)
    }
    guard configuration.outputs != nil || !configuration.ownOutputs.isEmpty || configuration.events != nil else {
      events = nil
      let geometry = outputGeometry
      motion = try configuration.motion.map { try MotionTap(geometry: geometry, options: $0, recorder: nil) }
      microphone = nil
      writer = nil
      outputs = []
      session = try RecordingSession<PCMBuffer>(
        input: opened.input, chain: chain, sink: DiscardingSink<PCMBuffer>(), limits: limits, buffering: opened.buffering)
      if let motion { session.taps.append(motion) }
      return
    }
    var video = configuration.video
    video.width = outputGeometry.width
    video.height = outputGeometry.height
    video.fps = opened.fps
    if let events = configuration.events {
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
    }
    let (audio, microphone) = try Self.audioSettings(configuration, opened: opened, report: report)
    self.microphone = microphone
    let settings = MovieSettings(video: video, audio: audio)
    try settings.validate()
    var generator: (any AudioGenerator<PCMBuffer>)? = microphone
    if case .tone(let frequency) = configuration.sound, let audio {
      generator = SineToneGenerator(try SineAudioSource(
        frequency: frequency, sampleRate: audio.sampleRate, channels: audio.channels))
    }
    let outputs =
      try (configuration.outputs?.makeOutputs(file: configuration.file, segments: configuration.segments) ?? [])
      + configuration.ownOutputs
    self.outputs = outputs
    let writer = try MovieWriter(
      settings: settings, outputs: outputs, fileQueueLimits: opened.input.isLive ? .file : .fileFromStoredMedia,
      events: report)
    self.writer = writer
    do {
      let events = try configuration.events.map { options in
        try EventRecorder(
          bus: writer.bus, options: options, clock: { writer.latestVideoSeconds }, report: report,
          liveSource: opened.input.isLive)
      }
      self.events = events
      let geometry = outputGeometry
      do {
        motion = try configuration.motion.map {
          try MotionTap(geometry: geometry, options: $0, recorder: events) { writer.currentSessionStart }
        }
      } catch {
        events?.finish()
        throw error
      }
    } catch {
      writer.cancel()
      throw error
    }
    // A composition ends at its own length, which need not be whole frames.
    if case .composition(let composition) = configuration.source { writer.endSession(atSourceTime: composition.timeline.total) }
    do {
      session = try RecordingSession<PCMBuffer>(
        input: opened.input, chain: chain, generator: generator, sink: MovieWriterSink(writer: writer), limits: limits,
        buffering: opened.buffering)
      if let events { session.taps.append(events.pictureTap) }
      if let motion { session.taps.append(motion) }
    } catch {
      events?.finish()
      writer.cancel()
      throw error
    }
  }

  /// Gives `tap` every filtered frame it asks for, on the tap stage (before `run`).
  public func addTap(_ tap: any FrameTap) { session.taps.append(tap) }

  /// The path the video takes: formats and filters from the source to the encoder.
  public var videoPath: String { session.videoPath }

  /// How each output is doing.
  public var outputReports: [OutputReport] { writer?.outputReports ?? [] }

  /// Why an output asked the recording to end (`--min-free`), if one did.
  public var stopRequest: String? { writer?.stopRequest }

  /// Records until a limit, the end of the input, `session.stop()` or a failure, calling
  /// `status` every `statusInterval` seconds meanwhile; finishes every output.
  /// - Returns: the final figures, with what the outputs hold; `error` is set if the
  ///   recording failed (what was written is kept).
  /// - Throws: `ALSAError` when the microphone does not start (nothing was recorded).
  public func run(
    statusInterval: Double = 0.5, status: (RecordingStatistics.Snapshot, Double) -> Void = { _, _ in }
  ) throws -> RecordingSummary {
    var started: [any EventTrigger] = []
    defer { for trigger in started { trigger.stop() } }
    do {
      try microphone?.start()
      if let events {
        for trigger in configuration.triggers {
          try trigger.start(firing: events)
          started.append(trigger)
        }
      }
    } catch {
      microphone?.stop()
      events?.finish()
      writer?.cancel()
      throw error
    }
    session.start()
    var summary = session.waitUntilFinished(statusInterval: statusInterval, status: status)
    if let motion { summary.motion = RecordingSummary.MotionSummary(motion.figures, last: motion.latest) }
    if let events {
      events.finish()
      summary.events = events.events
    }
    microphone?.stop()
    if let microphone, microphone.overruns > 0 {
      report("\(microphone.device): \(microphone.overruns) overrun(s) recovered; some audio was lost")
    }
    if let microphone, microphone.silenceFilled >= 0.05 {
      let seconds = (microphone.silenceFilled * 10).rounded() / 10
      report(
        "\(microphone.device): \(seconds) s of audio went missing (device overruns or stalls, or a machine too busy to "
          + "keep up) and were replaced by silence to keep sound and picture in sync")
    }
    if let writer {
      summary.packetBus = RecordingSummary.PacketBusSummary(writer.bus.figures)
      summary.add(measuredOutputs: writer.measuredOutputReports)
    }
    let file = outputs.first { !$0.isLive }
    if outputs.count > 1 || (file == nil && !outputs.isEmpty) { summary.outputs = outputReports }
    if let figures = file?.fileFigures { summary.add(figures) }
    if summary.stopReason == .maxSize, summary.framesOut == 0, summary.error == nil {
      summary.error = "the size limit left no room for a single frame; nothing was recorded"
    }
    // Outputs that all ended because they failed (not a pipe whose reader left) leave
    // nothing of the recording anywhere: that is a failure, whatever was sent.
    if summary.stopReason == .outputsEnded, summary.error == nil,
      let failed = outputReports.first(where: { $0.state == .failed })
    {
      summary.error = "\(failed.name): \(failed.error ?? "failed")"
    }
    summary.failWhenNothingWasKept(outputs: outputReports, framesEncoded: session.statistics.snapshot.framesWritten)
    if case .composition(let composition) = configuration.source, summary.error == nil {
      summary.durationSeconds = min(summary.durationSeconds, composition.timeline.total.seconds)
    }
    return summary
  }

  /// Ends every output at once, keeping what was written (a pipeline that never ran).
  public func cancel() {
    events?.finish()
    writer?.cancel()
  }

  public func stopAtOnce() {
    session.abort(error: RecordingOptionError("interrupted twice: stopped at once, without the frames still in the encoder"))
    // The writer stage may be finishing, in the encoder's drain, where no stage's flag
    // reaches it (at x264's placebo a second Ctrl-C waited for the frames of its
    // lookahead, and then said they were left out).
    writer?.interrupt()
  }

  /// The sound track's settings, and the microphone that records it.
  private static func audioSettings(
    _ configuration: Configuration, opened: OpenedInput, report: @Sendable (String) -> Void
  ) throws -> (AudioSettings?, ALSAMicrophone?) {
    let hasSound: Bool
    switch configuration.sound {
    case .none: hasSound = false
    case .tone, .microphone: hasSound = true
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
    guard case .microphone(let device) = configuration.sound else { return (audio, nil) }
    // The device may run at another rate or channel count; the movie takes its own.
    let microphone = try ALSAMicrophone(device: device, sampleRate: audio.sampleRate, channels: audio.channels)
    for note in microphone.notes { report("\(device): \(note)") }
    audio.sampleRate = microphone.sampleRate
    audio.channels = microphone.channels
    return (audio, microphone)
  }
}
