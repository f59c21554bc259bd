import ArgumentParser
import CamfxArchive
import Camfx
import CamfxCapture
import CamfxMedia
import CamfxPreview
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `camfx record` (the default command): frames from a source or a movie file, through
/// the filter chain, into an H.264/AAC movie, on the staged `RecordingSession`.
///
///     camfx --filter watermark -o out.mp4                       # testsrc until Ctrl-C
///     camfx record --size 1280x720 --duration 10s --audio sine=440 --filter grayscale -o clip.mp4
///     camfx record --input in.mp4 --filter mirror -y -o mirrored.mp4
struct RecordCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Record a filtered movie (H.264/AAC in .mp4, .mov or .mkv).",
    discussion: """
      Stops at the first of --duration, --frames, --max-size, the end of --input, or \
      SIGINT/SIGTERM/SIGHUP (Ctrl-C), and always finishes a playable file; a second \
      Ctrl-C stops at once without draining the encoder, and still finishes the file. \
      Live sources never wait: frames the pipeline cannot take in time are dropped and \
      counted (late / out-of-buffers / corrupt). A file --input is transcoded whole, with its \
      sound, and nothing is dropped. The movie is written under its own name from the \
      first frame on, in fragments of --fragment (1 s) that each reach the disk, so a \
      crash, a power cut or a full disk loses at most the last fragment; a clean finish \
      turns it into a regular MP4 in place (camfx repair does the same after a crash).
      """)

  @Option(help: ArgumentHelp(
    "testsrc, a PNG file, a movie played like a camera (.mp4, .mkv, .nut ...), or a camera such as /dev/video0 "
      + "(default: the first camera, else testsrc). Give it again for "
      + "several cameras at once: each into its own -o (one per --source, in order), or all in one picture with --layout.",
    valueName: "source"))
  var source: [String] = []

  @Option(help: ArgumentHelp(
    "Record the --source cameras in one picture: grid, hstack, vstack, or pip=CAMERA[:corner=tl|tr|bl|br][:size=25%] "
      + "(CAMERA shown small over the other). Cameras are named after their source (video0, testsrc, photo); one "
      + "that goes away shows a 'no signal' card.", valueName: "layout"))
  var layout: String?

  @Option(name: .customLong("mosaic-size"), parsing: .unconditional, help: ArgumentHelp(
    "The --layout picture's size (default: the cameras' pictures side by side at their own size).", valueName: "WxH"))
  var mosaicSize: String?

  @Option(help: ArgumentHelp("A movie file to transcode (video and sound) instead of --source.", valueName: "file"))
  var input: String?

  @Option(parsing: .unconditional, help: ArgumentHelp(
    "Frame size of the test pattern or camera (default 640x480); with --input, the size the movie is scaled to before the filters (bicubic; -1 or -2 for a side keeps the aspect ratio).",
    valueName: "WxH"))
  var size: String?

  @Flag(name: .customLong("no-autorotate"), help: "Keep a movie --input as stored, instead of turning it upright as its display matrix says.")
  var noAutorotate = false

  @OptionGroup(title: "Camera options")
  var camera: CameraOptions

  @Option(parsing: .unconditional, help: ArgumentHelp(
    "Frames per second of a live source (default 30; without it a camera takes its rate nearest to 30).",
    valueName: "n"))
  var fps: Int?

  @Flag(inversion: .prefixedNo, help: ArgumentHelp(
    "Run testsrc or a PNG source on the wall clock, dropping frames the pipeline cannot take in time (the default). "
      + "--no-realtime generates frames as fast as they are encoded and drops none. "
      + "With --input, --realtime plays the movie on the wall clock like a camera (ffmpeg's -re)."))
  var realtime: Bool?

  @Option(help: ArgumentHelp(
    "none; sine[=FREQ]: a tone on the video's clock (default 440 Hz); default or hw:CARD,DEV[,SUB]: an ALSA microphone. "
      + "With --input the file's sound is kept unless none.",
    valueName: "audio"))
  var audio: String?

  // .unconditional: a value that starts with '-' (`-1s`) reaches the duration parser,
  // which says what is wrong with it, instead of being taken for an option.
  @Option(parsing: .unconditional, help: ArgumentHelp(
    "Stop after this long: 10s, 500ms, 90m, 1h30m, 1d, 1:30:00.", valueName: "time"))
  var duration: String?

  @Option(parsing: .unconditional, help: ArgumentHelp(
    "Write the movie in fragments of this much media, each made durable before the next (default 1s; 0, for "
      + ".mkv only: clusters as the muxer makes them, without syncs).", valueName: "time"))
  var fragment: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many frames.", valueName: "n"))
  var frames: Int?

  @Option(name: .customLong("max-size"), parsing: .unconditional, help: ArgumentHelp(
    "Stop once the file reaches this size: 50M, 1.5G, 64MiB (frames in flight still go in).", valueName: "bytes"))
  var maxSize: String?

  @Option(parsing: .unconditional, help: ArgumentHelp(
    "Start a new file every so long (10m, 1h): -o rec.mp4 gives rec-000.mp4, rec-001.mp4, ...; -o may hold strftime "
      + "fields ('cam-%Y%m%d-%H%M%S.mp4'). Each segment starts on a keyframe and plays alone.", valueName: "time"))
  var segment: String?

  @Option(name: .customLong("reconnect-timeout"), parsing: .unconditional, help: ArgumentHelp(
    "How long to wait for a camera that went away (unplugged, reset) to come back; the recording goes on in the "
      + "same file with a gap (default 30s; 0: finish at once).", valueName: "time"))
  var reconnect: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("Loop recording: keep only the newest N segments (needs --segment).", valueName: "n"))
  var keep: Int?

  @Option(name: .customLong("max-total"), parsing: .unconditional, help: ArgumentHelp(
    "Loop recording: keep the newest segments that fit in this many bytes: 20G (needs --segment).", valueName: "bytes"))
  var maxTotal: String?

  @Option(name: .customLong("min-free"), parsing: .unconditional, help: ArgumentHelp(
    "Before the free space on the output's disk falls below this (1G), delete the oldest segment of a loop "
      + "recording, or else finish the recording cleanly.", valueName: "bytes"))
  var minFree: String?

  @Option(name: .customLong("filter"), help: ArgumentHelp(
    "NAME or NAME=KEY=VALUE:KEY=VALUE; repeat to chain, in order (see `camfx filters`).", valueName: "spec"))
  var filters: [String] = []

  @OptionGroup(title: "Encoder")
  var encoding: EncoderOptions

  @Option(name: .customLong("audio-codec"), help: ArgumentHelp("aac (the default) or opus.", valueName: "codec"))
  var audioCodec: String?

  @Option(name: .customLong("audio-bitrate"), parsing: .unconditional, help: ArgumentHelp("AAC bit rate (default 128k).", valueName: "rate"))
  var audioBitrate: String?

  @Option(name: .customLong("sample-rate"), parsing: .unconditional, help: ArgumentHelp("Audio sample rate (default 48000).", valueName: "hz"))
  var sampleRate: Int?

  @Option(parsing: .unconditional, help: ArgumentHelp("Audio channels, 1 to 8 (default 2; a --input keeps its own up to 2).", valueName: "n"))
  var channels: Int?

  @Flag(help: "Put the MP4/MOV index at the front when finished (a second pass), for playback while downloading.")
  var faststart = false

  @Option(help: ArgumentHelp(
    "Where SIGUSR1 writes a PNG of the current filtered frame while recording, a strftime pattern "
      + "(default: still-%Y%m%d-%H%M%S.png next to the first movie file, else here).", valueName: "pattern"))
  var still: String?

  @Option(parsing: .unconditional, help: ArgumentHelp(
    "Keep one frame every so long from a live source and play them at --fps (default 30): --timelapse 10s "
      + "makes an hour 12 s. --duration still counts the source's time; no sound.", valueName: "time"))
  var timelapse: String?

  @Option(help: ArgumentHelp(
    "Serve a live preview page, MJPEG stream, snapshots and figures while recording: PORT (on 127.0.0.1) or "
      + "HOST:PORT (another address only when given).", valueName: "address"))
  var preview: String?

  @OptionGroup(title: "Event clips")
  var eventOptions: EventOptions

  @Flag(name: .customLong("motion"), help: ArgumentHelp(
    "Detect motion in the filtered frames: it triggers event clips (with --pre-record), and its score is in --stats-json and the preview's /state."))
  var motion = false

  @OptionGroup(title: "Motion detection")
  var motionOptions: MotionOptions

  @OptionGroup(title: "Preview")
  var previewOptions: PreviewOptions

  @Flag(help: "No status line (the final summary is still printed).")
  var quiet = false

  @Flag(name: .shortAndLong, help: ArgumentHelp(
    "Also print the path the video takes (its formats and filters, from the source to the encoder), and the errors "
      + "FFmpeg and the encoders (x264, x265, SVT-AV1) report themselves, which are otherwise kept off stderr."))
  var verbose = false

  @Option(name: .customLong("stats-json"), help: ArgumentHelp(
    "Write the final figures (frames in/out, drops by reason, duration, bytes) as JSON.", valueName: "file"))
  var statsJSON: String?

  @Flag(name: [.customShort("y"), .long], help: "Replace the output file if it exists.")
  var overwrite = false

  @OptionGroup(title: "Outputs")
  var outputOptions: OutputOptions

  @OptionGroup(title: "Archive")
  var archiveOptions: ArchiveOptions

  func validate() throws {
    if input != nil && !source.isEmpty { throw ValidationError("use either --source or --input, not both") }
    if layout != nil && source.count < 2 { throw ValidationError("--layout puts several cameras in one picture: give --source twice or more") }
    if mosaicSize != nil && layout == nil { throw ValidationError("--mosaic-size is the size of a --layout picture: add --layout") }
    if source.count > 1 && layout == nil {
      if outputOptions.output.count != source.count {
        throw ValidationError(
          "with \(source.count) --source and no --layout, give one -o per --source (in the same order), or --layout to "
            + "record them in one picture")
      }
      // Each camera would need names of its own for these: a YAML file gives them.
      let perCamera = [
        ("--pre-record", eventOptions.preRecord != nil), ("--motion", motion), ("--still", still != nil),
        ("--stats-json", statsJSON != nil),
      ]
      if let (name, _) = perCamera.first(where: \.1) {
        throw ValidationError(
          "\(name) with several --source needs --layout (it then applies to the picture of them all); for each camera "
            + "its own, describe them in a file for camfx run")
      }
    }
    if let frames, frames < 1 { throw ValidationError("--frames must be at least 1") }
    if segment == nil && (keep != nil || maxTotal != nil) {
      throw ValidationError("--keep and --max-total keep segments of a loop recording: add --segment")
    }
    if let keep, keep < 1 { throw ValidationError("--keep must be at least 1") }
  }

  /// Everything the options describe, checked without opening anything: the pipeline's
  /// configuration and what the command does around it (stills, preview, stats file).
  /// The one place a recording's options become a pipeline's description: `camfx record`
  /// runs one, and `camfx run` makes one per camera of its file from the same options.
  /// - Parameter report: told the default file's name when no `-o` was given (at the
  ///   point where `record` says so, before the other options are checked).
  /// - Throws: `RecordingOptionError` and the parsers' errors, naming the option.
  func setup(report: (String) -> Void = { _ in }) throws -> RecordingSetup {
    let events = try eventOptions.options(overwrite: overwrite)
    // Event clips alone record no continuous movie unless -o asks for one.
    let names = outputOptions.output.isEmpty && events == nil ? [DefaultOutputName.make()] : outputOptions.output
    if outputOptions.output.isEmpty && events == nil {
      report("camfx: recording to \(names[0]) (no -o given); Ctrl-C stops\n")
    }
    let limits = RecordingLimits(
      duration: try duration.map { try RecordingLimits.parseDuration($0, option: "--duration") },
      frames: frames,
      bytes: try maxSize.map { try RecordingLimits.parseByteCount($0, option: "--max-size") })
    if let bytes = limits.bytes, let text = maxSize, bytes < 16_000 {
      throw RecordingOptionError(
        "--max-size \(text) is too small for a movie: its header and first keyframe alone take more; give at least 16k")
    }
    let timelapseInterval = try timelapse.map { try RecordingLimits.parseDuration($0, option: "--timelapse") }
    if let interval = timelapseInterval, interval.seconds <= 0 {
      throw RecordingOptionError("--timelapse must be longer than 0, e.g. 10s")
    }
    if timelapseInterval != nil {
      if let audio, audio != "none" { throw RecordingOptionError("--timelapse makes a silent movie; drop --audio \(audio)") }
      if input != nil && realtime != true {
        throw RecordingOptionError("--timelapse keeps frames of a live source: a camera, testsrc, or --input with --realtime")
      }
    }
    let segmentInterval = try segment.map { try RecordingLimits.parseDuration($0, option: "--segment").seconds }
    let plan = try outputOptions.plan(names: names, overwrite: overwrite, segmented: segmentInterval != nil)
    if let input { try plan.requireDistinct(fromInput: input) }
    if let still {
      // A still is a PNG (StillCapture): a name that says otherwise would lie.
      guard still.lowercased().hasSuffix(".png") else {
        throw RecordingOptionError("--still '\(still)': stills are written as PNG; give a .png name")
      }
      try OutputFile.requireNamePattern(still, option: "--still")
    }
    if segmentInterval != nil && plan.files.isEmpty {
      throw RecordingOptionError("--segment cuts movie files: add -o with a .mp4, .mov or .mkv name")
    }
    let minimumFree = try minFree.map { try RecordingLimits.parseByteCount($0, option: "--min-free") }
    let fragmentInterval = try fragment.map { try RecordingLimits.parseDurationOrZero($0, option: "--fragment").seconds } ?? 1
    // An unfragmented MP4 has its index only at the end: a crash or a full disk before
    // then loses all of it, and the default ends as a regular MP4 anyway.
    if fragmentInterval == 0, let mp4 = plan.files.first(where: { (try? MovieContainer(path: $0))?.isISOBMFF == true }) {
      throw RecordingOptionError(
        "--fragment 0 would write '\(mp4)' with its index only at the end, so a crash or a full disk would lose all of it; "
          + "the default (--fragment 1s) already ends as a regular MP4")
    }
    let fileOptions = MovieFileOutput.Options(
      fragmentInterval: fragmentInterval,
      faststart: faststart, overwrite: overwrite,
      minimumFreeBytes: segmentInterval == nil ? minimumFree : nil,
      maximumBytes: segmentInterval == nil ? limits.bytes : nil)
    let archive = try archiveOptions.plan(
      folder: ArchiveOptions.folder(files: plan.files, eventPattern: events?.pattern))
    let segments = try segmentInterval.map {
      SegmentedMovieOutput.Options(
        interval: $0, keep: keep, maximumTotalBytes: try maxTotal.map { try RecordingLimits.parseByteCount($0, option: "--max-total") },
        minimumFreeBytes: minimumFree ?? Self.defaultMinimumFree(archive: archive, loops: keep != nil || maxTotal != nil, nextTo: plan.files.first),
        file: fileOptions)
    }
    let statsFile = try RecordingRunner.statsFile(statsJSON)
    if encoding.copies { try checkCopyOptions() }
    var recording = try configuration(limits: limits, timelapse: timelapseInterval)
    recording.outputs = names.isEmpty ? nil : plan
    recording.events = events
    if motion {
      recording.motion = try motionOptions.options()
    } else if let first = motionOptions.given.first {
      throw RecordingOptionError("\(first) tunes motion detection: add --motion")
    }
    recording.file = fileOptions
    recording.segments = segments
    let previewAddress = try preview.map { try PreviewAddress(parsing: $0) }
    return RecordingSetup(
      configuration: recording, names: names, plan: plan,
      stillPattern: still ?? Self.defaultStillPattern(nextTo: plan.files.first), previewAddress: previewAddress,
      statsFile: statsFile, archive: archive)
  }

  /// With an archive, loop recording keeps segments the store has not confirmed past
  /// `--keep` and `--max-total`: without `--min-free`, 2 % of the disk (at most 1 GB)
  /// is kept free, and the oldest unarchived segment goes only below that.
  static func defaultMinimumFree(archive: ArchivePlan?, loops: Bool, nextTo file: String?) -> Int64? {
    guard archive != nil, loops else { return nil }
    let folder = ArchiveOptions.folder(files: file.map { [$0] } ?? [], eventPattern: nil)
    var s = statvfs()
    guard statvfs(folder, &s) == 0 else { return nil }
    let size = Int64(s.f_blocks) * Int64(s.f_frsize)
    return min(1_000_000_000, size / 50)
  }

  func run() throws {
    FFmpegLogging.configure(verbose: verbose)
    // 1. Everything that can be checked without opening anything.
    let setup = try setup(report: Self.printToStderr)
    if source.count > 1 { return try recordSeveral(setup) }
    var recording = setup.configuration
    let statsFile = setup.statsFile
    let previewAddress = setup.previewAddress

    // 2. Signals are caught from here on, so that a stop always finishes the file, which
    // is created under its own name when the first packet reaches it.
    let runner = RecordingRunner(quiet: quiet, statsFile: statsFile)
    var stills: StillCapture? = nil
    var runningPreview: RunningPreview? = nil
    var stillSignal: StopSignals? = nil
    defer {
      stillSignal?.cancel()
      runningPreview?.stop()
    }
    // 3. Record: a transcode shows a progress bar, a live source the status line. A
    // copy has no pictures (checkCopyOptions turned down what needs them): no stills,
    // preview or events, and no figures to show while it runs. SIGUSR1 and SIGUSR2 are
    // always caught: their default action would end camfx without finishing the file.
    let report = runner.report
    let copies = recording.video.copiesPackets
    let eventSignal = SignalTrigger { fired in
      if fired == 0 { report(copies ? "SIGUSR2 ignored: a copy makes no event clips" : "SIGUSR2 ignored: event clips need --pre-record") }
    }
    defer { eventSignal.cancel() }
    if recording.events != nil { recording.triggers.append(eventSignal) }
    // The store is asked before anything is recorded: a wrong key or a missing bucket
    // is one line now, not a backlog found hours later.
    let archive = try setup.archive.map { try $0.start(report: report) }
    recording.archive = archive
    let job: any RecordingJob
    let display: RecordingRunner.Display
    switch try Recording(recording, report: report) {
    case .copying(let copy):
      stillSignal = StopSignals(signals: [SIGUSR1], coalescing: 0) { _, _ in
        report("SIGUSR1 ignored: a copy has no pictures to make a still of")
      }
      display = .nothing
      job = copy
    case .encoding(let pipeline):
      let capture = StillCapture(pattern: setup.stillPattern, report: report)
      pipeline.addTap(capture)
      stills = capture
      stillSignal = StopSignals(signals: [SIGUSR1], coalescing: 0) { _, _ in capture.request() }
      runningPreview = try previewAddress.map { address in try previewOptions.start(at: address, pipeline: pipeline) }
      display = pipeline.expectedFrames.map { .progress(frames: $0, frameSeconds: 1 / pipeline.framesPerSecond) } ?? .statusLine
      job = pipeline
    }
    let summary = try runner.run(job, display: display, verbose: verbose)
    stills?.waitUntilWritten()
    if let soundError = summary.soundError { Self.printToStderr("camfx: warning: \(soundError); the video went on\n") }

    // 4. What was written stays, whatever happened; the archive gets its last files.
    let outcome = setup.outcome(of: summary, outputs: job.outputReports)
    for line in outcome.lines { Self.printToStderr(line + "\n") }
    let archiveEnd = archive.map { $0.close(waitingAtMost: setup.archive?.waitSeconds ?? 0) }
    if let archiveEnd { Self.printToStderr("camfx: \(archiveEnd.line)\n") }
    if let failure = outcome.failure { throw RecordingFailure(message: failure) }
    if let failure = archiveEnd?.failure { throw RecordingFailure(message: failure) }
    try runner.requireStatsWritten()
  }

  /// The recording the options describe (without its outputs).
  private func configuration(limits: RecordingLimits, timelapse: MediaTime?) throws -> RecordingPipeline.Configuration {
    var recording: RecordingPipeline.Configuration
    if let input {
      recording = .init(source: .movie(path: input))
      recording.movieScale = try size.map(Self.inputScale)
      recording.autorotate = !noAutorotate
      if let audio, audio != "none" {
        throw RecordingOptionError("--audio \(audio) cannot be used with --input, which brings its own sound (--audio none drops it)")
      }
      if audio == "none" { recording.sound = .none }
    } else {
      recording = .init(source: .live(try source.first.map { try SourceSpec(parsing: $0) }))
      recording.size = try size.map { try FrameGeometry(parsing: $0, option: "--size") }
      if let device = audio.flatMap(MicrophoneOption.device) {
        recording.sound = .microphone(device: device)
      } else if let frequency = try audio.flatMap(AudioOption.parse) {
        recording.sound = .tone(frequency: frequency)
      }
    }
    recording.framesPerSecond = fps
    recording.realtime = realtime
    recording.camera = try camera.settings()
    recording.reconnectTimeout = try reconnect.map { try RecordingLimits.parseDurationOrZero($0, option: "--reconnect-timeout").seconds } ?? 30
    recording.chain = try FilterRegistry.builtin.makeChain(filters)
    try encoding.apply(to: &recording.video)
    // Live sources default to veryfast, as OBS does: what 1080p30 needs on small
    // machines, and x264's lookahead (what a kill can lose beyond the fragment) is 10
    // frames instead of medium's 40. A transcode keeps ffmpeg's medium.
    recording.video.realtime = input == nil || realtime == true
    if let audioCodec { recording.audio.codec = try AudioSettings.encoder(forCodec: audioCodec) }
    recording.audio.bitrate = try audioBitrate.map { try Bitrate.parse($0) }
    recording.audio.sampleRate = sampleRate
    recording.audio.channels = channels
    // Settings for a sound that is not there would be ignored without a word.
    let soundOptions = [
      ("--audio-codec", audioCodec != nil), ("--audio-bitrate", audioBitrate != nil), ("--sample-rate", sampleRate != nil),
      ("--channels", channels != nil),
    ]
    if recording.sound == .none, let (name, _) = soundOptions.first(where: \.1) {
      throw RecordingOptionError(
        input == nil
          ? "\(name) sets the sound, and this recording has none (add --audio sine, --audio default or --audio hw:CARD,DEV)"
          : "\(name) sets the sound, and --audio none drops the movie's")
    }
    recording.limits = limits
    recording.timelapse = timelapse
    return recording
  }

  static func writeStats(_ summary: RecordingSummary, to file: OutputFile) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try file.write(contents: Array(try encoder.encode(summary)))
  }

  /// `--video-codec copy` records a movie's or a camera's own packets: nothing that
  /// needs pictures.
  private func checkCopyOptions() throws {
    var needsPictures: [(String, Bool)] = [
      ("--filter", !filters.isEmpty), ("--timelapse", timelapse != nil), ("--still", still != nil),
      ("--preview", preview != nil), ("--realtime", realtime == true), ("--pre-record", eventOptions.preRecord != nil),
      ("--motion", motion),
    ] + encoding.given + [("--audio-codec", audioCodec != nil)]
    // A camera is asked for its size; a movie would have to be scaled.
    if input != nil { needsPictures.append(("--size", size != nil)) }
    if let (name, _) = needsPictures.first(where: \.1) {
      throw RecordingOptionError("\(name) needs decoded pictures or an encoder; --video-codec copy has neither")
    }
    if input == nil, let audio, audio != "none" {
      throw RecordingOptionError("--video-codec copy from a camera records no sound yet; drop --audio \(audio)")
    }
  }

  /// `still-%Y%m%d-%H%M%S.png` in the directory of `file` (or here).
  static func defaultStillPattern(nextTo file: String?) -> String {
    let name = "still-%Y%m%d-%H%M%S.png"
    guard let file, let slash = file.lastIndex(of: "/") else { return name }
    return String(file[...slash]) + name
  }

  /// The `scale` that `--size WxH` puts in front of a movie's filters; a side may be -1
  /// or -2 to keep the aspect ratio, as in `scale`.
  static func inputScale(_ text: String) throws -> Scale {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= -2, h >= -2 else {
      throw GeometryError(
        text: text, reason: "expected WIDTHxHEIGHT, e.g. 1280x720 (-1 or -2 for one side keeps the aspect ratio)", option: "--size")
    }
    if w > 0 && h > 0 { _ = try FrameGeometry(parsing: text, option: "--size") }
    do {
      return try Scale(width: w, height: h)
    } catch let error as FilterError {
      throw GeometryError(text: text, reason: error.reason, option: "--size")
    }
  }

  static func printToStderr(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
}

/// A recording that failed after it started; the message is the stage's error.
struct RecordingFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// `--audio`: `none`, `sine` or `sine=FREQ`; the frequency of the tone, or `nil`.
enum AudioOption {
  static func parse(_ text: String) throws -> Double? {
    if text == "none" { return nil }
    if text == "sine" { return 440 }
    if text.hasPrefix("sine="), let f = Double(text.dropFirst(5)), f.isFinite, f > 0 { return f }
    throw RecordingOptionError("invalid --audio '\(text)' (expected none, sine or sine=FREQ, e.g. sine=440)")
  }
}
