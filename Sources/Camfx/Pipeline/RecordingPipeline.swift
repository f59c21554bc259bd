import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxMedia
import Synchronization

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
      /// A microphone another recording opened, heard a second time
      /// (`ALSAMicrophone.addReader`): a camera's sound in the mosaic it is part of.
      case microphoneReader(MicrophoneReader)
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
    /// Where every file this recording finishes goes (`--archive`): its movie files,
    /// segments and event clips with their sidecars and pictures. Loop recording
    /// deletes archived segments first, and unarchived ones only for `--min-free`.
    public var archive: (any FileArchive)?
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
  /// When the frame at `seconds` of the recording (a packet's time) was captured, in
  /// nanoseconds since 1970 (UTC): the wall clock at the first frame, plus `seconds`.
  /// Nil before the first frame.
  public func capturedNanoseconds(atSeconds seconds: Double) -> Int64? {
    let first = session.firstFrameWallNanoseconds.load(ordering: .acquiring)
    guard first != .min else { return nil }
    return first + Int64((seconds * 1e9).rounded())
  }
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
  /// What starts event clips: the configuration's, motion's, and those added.
  private var triggers: [any EventTrigger]

  /// Opens the input, configures the chain for it, opens the microphone, the encoders
  /// and the outputs.
  /// - Parameter report: told, one line at a time, what devices adjusted (a camera's
  ///   size, a microphone's rate) and when a stream loses or regains its server.
  /// - Throws: what opening the input, the devices or the encoders throws, or
  ///   `RecordingOptionError` for settings that do not go together.
  public init(_ configuration: Configuration, report: @escaping @Sendable (String) -> Void = { _ in }) throws {
    self.configuration = configuration
    self.report = report
    // 1. Settings that do not go together, before anything opens.
    let limits = try Self.checkCombinations(configuration)
    // 2. The source (the first camera when none is named), kept at a timelapse's interval.
    let opened = try Self.applyTimelapse(configuration, to: Self.openInput(configuration, report: report))
    // 3. The filters, configured for it: a movie turned upright and scaled first.
    var chain = Self.fullChain(configuration, for: opened)
    outputGeometry = try chain.configure(input: opened.input.geometry)
    framesPerSecond = opened.fps
    expectedFrames = opened.input.isLive || configuration.timelapse != nil ? nil : opened.expectedFrames
    // Checked before anything starts: a mask of another size, a zone outside the frame.
    if let options = configuration.motion {
      _ = try MotionDetector(width: outputGeometry.width, height: outputGeometry.height, options: options)
    }
    // 4. Nothing to record: the taps alone (a preview).
    guard configuration.outputs != nil || !configuration.ownOutputs.isEmpty || configuration.events != nil else {
      events = nil
      let geometry = outputGeometry
      motion = try configuration.motion.map { try MotionTap(geometry: geometry, options: $0) }
      microphone = nil
      writer = nil
      outputs = []
      triggers = []
      session = try RecordingSession<PCMBuffer>(
        input: opened.input, chain: chain, sink: DiscardingSink<PCMBuffer>(), limits: limits, buffering: opened.buffering)
      if let motion { session.taps.append(motion) }
      return
    }
    // 5. The encoders' settings and the sound's source.
    let video = try Self.videoSettings(configuration, geometry: outputGeometry, opened: opened)
    let (audio, microphone) = try Self.audioSettings(configuration, opened: opened, report: report)
    self.microphone = microphone
    let settings = MovieSettings(video: video, audio: audio)
    try settings.validate()
    var generator: (any AudioGenerator<PCMBuffer>)? = microphone
    if case .microphoneReader(let reader) = configuration.sound { generator = reader }
    if case .tone(let frequency) = configuration.sound, let audio {
      generator = SineToneGenerator(try SineAudioSource(
        frequency: frequency, sampleRate: audio.sampleRate, channels: audio.channels))
    }
    // 6. The outputs on the encoders' bus; the event clips and motion beside them.
    let outputs =
      try (configuration.outputs?.makeOutputs(file: configuration.archivedFile, segments: configuration.archivedSegments) ?? [])
      + configuration.ownOutputs
    self.outputs = outputs
    let writer = try MovieWriter(
      settings: settings, outputs: outputs, fileQueueLimits: opened.input.isLive ? .file : .fileFromStoredMedia,
      events: report)
    self.writer = writer
    do {
      let events = try configuration.archivedEvents.map { options in
        try EventRecorder(
          bus: writer.bus, options: options, clock: { writer.latestVideoSeconds }, report: report,
          liveSource: opened.input.isLive)
      }
      self.events = events
      let geometry = outputGeometry
      do {
        motion = try configuration.motion.map {
          try MotionTap(geometry: geometry, options: $0) { writer.currentSessionStart }
        }
      } catch {
        events?.finish()
        throw error
      }
    } catch {
      writer.cancel()
      throw error
    }
    triggers = configuration.triggers
    // Motion fires clips only when there are clips to fire.
    if events != nil, let motion { triggers.append(motion) }
    // A composition ends at its own length, which need not be whole frames.
    if case .composition(let composition) = configuration.source { writer.endSession(atSourceTime: composition.timeline.total) }
    // 7. The stages: source, filters, taps, writer.
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

  /// Adds a trigger of event clips (before `run`), started and stopped with the ones
  /// `configuration.triggers` names.
  /// - Throws: `RecordingOptionError` when the recording makes no event clips.
  public func addTrigger(_ trigger: any EventTrigger) throws {
    guard events != nil else {
      throw RecordingOptionError("a trigger starts event clips: the recording needs events (a pre-record) for it")
    }
    triggers.append(trigger)
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
    defer { if let events { for trigger in started { trigger.stop(firing: events) } } }
    do {
      try microphone?.start()
      if let events {
        for trigger in triggers {
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
    if case .microphoneReader(let reader) = configuration.sound {
      reader.close()
      if reader.silenceFilled >= 0.05 {
        report(
          "\(reader.microphone.device): \((reader.silenceFilled * 10).rounded() / 10) s of audio went missing here "
            + "(this recording fell behind the microphone it shares) and were replaced by silence")
      }
    }
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
}
