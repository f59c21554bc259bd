import ArgumentParser
import Camfx
import CamfxMedia
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `camfx compose`: movies (whole or cut) and stills, one after another, scaled to fit
/// one size and rate, with cross-fades, into one movie, through the recording pipeline's
/// filters, encoders and outputs.
///
///     camfx compose intro.png@2s a.mp4@5s..20s b.mkv --transition fade=0.5s --fade-out 1s -o film.mp4
struct ComposeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "compose",
    abstract: "Join, trim and cross-fade movies and stills into one movie.",
    discussion: """
      ITEM is a movie FILE[@START..END] (either bound may be left out: a.mp4@5s.., b.mkv@..1m30s, \
      c.mp4@1:02.5..1:10; END is exclusive) or a still FILE.png[@DURATION] (default 3s). Items play \
      in order, each scaled to fit --size and centred on --background; rates are converted by \
      timestamp (frames repeated or dropped). Cuts are exact to the frame and the sample.
      """)

  @Argument(help: ArgumentHelp("Movies and stills, in order.", valueName: "item"))
  var items: [String] = []

  @Option(parsing: .unconditional, help: ArgumentHelp("Render size (default: the first movie's, upright).", valueName: "WxH"))
  var size: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("Frame rate (default: the first movie's).", valueName: "n"))
  var fps: String?

  @Option(help: ArgumentHelp("Colour around items that do not fill the frame (default black).", valueName: "color"))
  var background: String = "black"

  @Option(help: ArgumentHelp("fade=TIME: cross-fade every pair of neighbours (shortens the total by TIME each).", valueName: "fade=time"))
  var transition: String?

  @Option(name: .customLong("fade-in"), parsing: .unconditional, help: ArgumentHelp("Fade in from the background and silence.", valueName: "time"))
  var fadeIn: String?

  @Option(name: .customLong("fade-out"), parsing: .unconditional, help: ArgumentHelp("Fade out to the background and silence.", valueName: "time"))
  var fadeOut: String?

  @Option(name: .customLong("sample-rate"), parsing: .unconditional, help: ArgumentHelp("Sound sample rate (default 48000).", valueName: "hz"))
  var sampleRate: Int = 48_000

  @Option(parsing: .unconditional, help: ArgumentHelp("Sound channels, 1 or 2 (default 2).", valueName: "n"))
  var channels: Int = 2

  @Flag(name: .customLong("no-audio"), help: "Write no sound track.")
  var noAudio = false

  @Option(help: ArgumentHelp(
    "A sound (or movie) file to play under the whole movie, FILE[@START..END]: looped or cut to its length, faded out with it.",
    valueName: "file"))
  var music: String?

  @Option(name: .customLong("music-volume"), parsing: .unconditional, help: ArgumentHelp(
    "The music's volume, 0 to 4 (default 0.3 over the items' sound, 1 with --music-mode replace).", valueName: "gain"))
  var musicVolume: Double?

  @Option(name: .customLong("music-mode"), help: ArgumentHelp(
    "mix (under the items' own sound, the default) or replace (instead of it).", valueName: "mode"))
  var musicMode: String = "mix"

  @Option(name: .customLong("filter"), help: ArgumentHelp(
    "NAME or NAME=KEY=VALUE:...; applied to the composed frames, in order (see `camfx filters`).", valueName: "spec"))
  var filters: [String] = []

  @Option(help: ArgumentHelp(
    "Export preset: \(ExportPreset.names.joined(separator: ", ")) (H.264 or HEVC with AAC, the size capped, never scaled up).",
    valueName: "name"))
  var preset: String?

  @OptionGroup(title: "Encoder")
  var encoding: EncoderOptions

  @Flag(help: "No progress bar (the summary is still printed).")
  var quiet = false

  @Option(name: .customLong("stats-json"), help: ArgumentHelp("Write the final figures as JSON.", valueName: "file"))
  var statsJSON: String?

  @Flag(name: [.customShort("y"), .long], help: "Replace the output file if it exists.")
  var overwrite = false

  @OptionGroup(title: "Outputs")
  var outputOptions: OutputOptions

  func run() throws {
    FFmpegLogging.configure(verbose: false)
    // 1. Everything that can be checked without reading the items' pictures.
    guard !items.isEmpty else { throw RecordingOptionError("nothing to compose: give movies and stills, e.g. camfx compose a.mp4 b.mp4 -o out.mp4") }
    guard !outputOptions.output.isEmpty else { throw RecordingOptionError("compose needs -o, e.g. -o out.mp4") }
    var composition = Composition(items: try items.map(CompositionItem.init(parsing:)))
    for item in composition.items { try Self.requireReadable(item.asset.path) }
    if let transition { composition.transition = try Self.fade(transition) }
    composition.fadeIn = try fadeIn.map { try RecordingLimits.parseDurationOrZero($0, option: "--fade-in") } ?? .zero
    composition.fadeOut = try fadeOut.map { try RecordingLimits.parseDurationOrZero($0, option: "--fade-out") } ?? .zero
    if let music {
      var track = try Composition.Music(parsing: music)
      try Self.requireReadable(track.path)
      switch musicMode {
      case "mix": track.replacesSound = false
      case "replace": track.replacesSound = true
      default: throw RecordingOptionError("invalid --music-mode '\(musicMode)' (expected mix or replace)")
      }
      track.volume = musicVolume ?? (track.replacesSound ? 1 : 0.3)
      guard (0...4).contains(track.volume) else { throw RecordingOptionError("--music-volume must be between 0 and 4") }
      if noAudio { throw RecordingOptionError("--music needs a sound track; drop --no-audio") }
      composition.music = track
    } else if musicVolume != nil || musicMode != "mix" {
      throw RecordingOptionError("--music-volume and --music-mode go with --music FILE")
    }
    let background = try BGRA(parsing: self.background)
    // --video-codec copy is the passthrough preset by another name.
    let passthrough = preset?.lowercased() == ExportPreset.passthrough || encoding.copies
    let exportPreset = passthrough ? nil : try preset.map(ExportPreset.init(parsing:))
    guard (1...2).contains(channels) else { throw RecordingOptionError("--channels must be 1 or 2") }
    let plan = try outputOptions.plan(names: outputOptions.output, overwrite: overwrite)
    for item in composition.items { try plan.requireDistinct(fromInput: item.asset.path, what: "the item '\(item.asset.path)'") }
    if let music = composition.music { try plan.requireDistinct(fromInput: music.path, what: "--music") }
    let statsFile = try RecordingRunner.statsFile(statsJSON)

    if passthrough {
      try runPassthrough(composition, plan: plan, statsFile: statsFile)
      return
    }

    // 2. Open the items: their lengths make the timeline, the first movie the defaults.
    let input = try CompositionInput(
      composition, size: try size.map { try FrameGeometry(parsing: $0, option: "--size") }, maximumSize: exportPreset?.maximumSize,
      frameDuration: try fps.map(Self.frameDuration), background: background,
      audio: noAudio ? nil : AudioMix(sampleRate: sampleRate, channels: channels))
    let timeline = input.timeline, renderSize = input.video.renderSize, frameDuration = input.video.frameDuration

    var recording = RecordingPipeline.Configuration(source: .composition(input))
    recording.chain = try FilterRegistry.builtin.makeChain(filters)
    try exportPreset?.apply(to: &recording.video, audio: &recording.audio)
    try encoding.apply(to: &recording.video)
    recording.audio.sampleRate = sampleRate
    recording.audio.channels = channels
    recording.outputs = plan
    recording.file = MovieFileOutput.Options(overwrite: overwrite)

    // 3. Compose; a signal stops it cleanly, and what was written is a playable movie.
    let runner = RecordingRunner(quiet: quiet, statsFile: statsFile)
    let pipeline = try RecordingPipeline(recording, report: runner.report)
    let summary = try runner.run(
      pipeline, display: .progress(frames: pipeline.expectedFrames ?? input.frameCount, frameSeconds: frameDuration.seconds))
    let name = pipeline.outputReports.first { $0.kind == "file" }?.name ?? plan.targets.map(\.displayName).joined(separator: ", ")
    RecordCommand.printToStderr(
      "composed \(timeline.placements.count) item(s), \(RecordingStatusLine.fixed(timeline.total.seconds, 3)) s at "
        + "\(renderSize) and \(RecordingStatusLine.fixed(1 / frameDuration.seconds, 3)) fps: "
        + RecordingStatusLine.summary(summary, output: name).replacingOccurrences(of: "recorded ", with: "wrote ") + "\n")
    if let error = summary.error { throw RecordingFailure(message: error) }
    try Self.requireComplete(summary, of: timeline.total.seconds, output: name)
    try runner.requireStatsWritten()
  }

  /// An interrupted composition is a partial movie: exit 1 so that a script knows.
  static func requireComplete(_ summary: RecordingSummary, of total: Double?, output: String) throws {
    guard summary.stopReason == .interrupted else { return }
    let of = total.map { " of the \(RecordingStatusLine.fixed($0, 1)) s composition" } ?? ""
    throw RecordingFailure(
      message: "interrupted: '\(output)' holds \(RecordingStatusLine.fixed(summary.durationSeconds, 1)) s\(of); it plays, but is partial")
  }

  /// `--preset passthrough`: the items' packets joined as they are.
  private func runPassthrough(_ composition: Composition, plan: RecordingOutputPlan, statsFile: OutputFile?) throws {
    let changes: [(String, Bool)] = [
      ("--size", size != nil), ("--fps", fps != nil), ("--filter", !filters.isEmpty),
      ("--video-codec", encoding.videoCodec != nil && !encoding.copies), ("--background", background != "black"),
    ] + encoding.given
    if let (name, _) = changes.first(where: \.1) {
      throw RecordingOptionError("--preset passthrough copies packets as they are: \(name) needs encoding")
    }
    var recording = RecordingPipeline.Configuration(source: .movie(path: composition.items[0].asset.path))
    recording.outputs = plan
    recording.file = MovieFileOutput.Options(overwrite: overwrite)
    let runner = RecordingRunner(quiet: quiet, statsFile: statsFile)
    let copy = try PacketCopySession(passthrough: composition, recording, audio: !noAudio, report: runner.report)
    let summary = try runner.run(copy, display: .nothing)
    let name = copy.outputReports.first { $0.kind == "file" }?.name ?? plan.targets.map(\.displayName).joined(separator: ", ")
    RecordCommand.printToStderr(
      "composed \(composition.items.count) item(s) by passthrough: "
        + RecordingStatusLine.summary(summary, output: name).replacingOccurrences(of: "recorded ", with: "copied ") + "\n")
    if let error = summary.error { throw RecordingFailure(message: error) }
    try Self.requireComplete(summary, of: nil, output: name)
    try runner.requireStatsWritten()
  }

  /// A one-line error for a file this process cannot read (missing, no permission).
  static func requireReadable(_ path: String) throws {
    guard access(path, R_OK) == 0 else {
      throw RecordingOptionError("cannot read '\(path)': \(String(cString: strerror(errno)))")
    }
  }

  /// `fade=0.5s`.
  static func fade(_ text: String) throws -> MediaTime {
    guard text.hasPrefix("fade=") else {
      throw RecordingOptionError("invalid --transition '\(text)' (expected fade=TIME, e.g. fade=0.5s)")
    }
    return try RecordingLimits.parseDurationOrZero(String(text.dropFirst(5)), option: "--transition")
  }

  /// `30`, `25`, `29.97` or `30000/1001` frames per second as one frame's duration.
  static func frameDuration(_ text: String) throws -> MediaTime {
    let bad = RecordingOptionError("invalid --fps '\(text)' (expected a rate such as 30, 29.97 or 30000/1001)")
    if let slash = text.firstIndex(of: "/") {
      guard let n = Int32(text[..<slash]), let d = Int64(text[text.index(after: slash)...]), n > 0, n <= 1000, d > 0 else { throw bad }
      return MediaTime(value: d, timescale: n)
    }
    if let whole = Int32(text), whole > 0, whole <= 1000 { return MediaTime(value: 1, timescale: whole) }
    if text == "29.97" { return MediaTime(value: 1001, timescale: 30000) }
    if text == "23.976" { return MediaTime(value: 1001, timescale: 24000) }
    if text == "59.94" { return MediaTime(value: 1001, timescale: 60000) }
    guard let rate = Double(text), rate > 0, rate <= 1000 else { throw bad }
    return MediaTime(value: 1000, timescale: Int32((rate * 1000).rounded()))
  }
}
