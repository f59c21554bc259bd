import ArgumentParser
import Camfx
import CamfxCapture
import CamfxMedia
import CamfxPreview
#if canImport(Glibc)
import Glibc
#endif

/// `camfx preview`: the recording pipeline without a recording: a source through the
/// filter chain to the preview server only (a page, MJPEG, snapshots, figures).
///
///     camfx preview --listen 127.0.0.1:8080 --filter timestamp
///     camfx preview --source /dev/video0 --listen 0.0.0.0:8080 --preview-auth me:secret
struct PreviewCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "preview",
    abstract: "Serve a live preview of a filtered source over HTTP, without recording.",
    discussion: """
      Serves / (a page with the picture and figures), /stream.mjpeg, /snapshot.jpg, /snapshot.png \
      and /state until --duration or Ctrl-C. Listens on 127.0.0.1 unless another address is given.
      """)

  @Option(help: ArgumentHelp(
    "testsrc, a PNG file, or a camera such as /dev/video0 (default: the first camera, else testsrc).", valueName: "source"))
  var source: String?

  @Option(parsing: .unconditional, help: ArgumentHelp("Frame size of the test pattern or camera (default 640x480).", valueName: "WxH"))
  var size: String?

  @OptionGroup(title: "Camera options")
  var camera: CameraOptions

  @Option(parsing: .unconditional, help: ArgumentHelp("Frames per second of the source (default 30).", valueName: "n"))
  var fps: Int?

  @Option(name: .customLong("filter"), help: ArgumentHelp(
    "NAME or NAME=KEY=VALUE:KEY=VALUE; repeat to chain, in order (see `camfx filters`).", valueName: "spec"))
  var filters: [String] = []

  @Option(help: ArgumentHelp(
    "Where to listen: PORT (on 127.0.0.1) or HOST:PORT (default 127.0.0.1:8080).", valueName: "address"))
  var listen: String = "127.0.0.1:8080"

  @OptionGroup(title: "Preview")
  var previewOptions: PreviewOptions

  @Flag(name: .customLong("motion"), help: ArgumentHelp(
    "Run the motion detector: its score and boxes in /state and on the page (tune the --motion-* options live)."))
  var motion = false

  @OptionGroup(title: "Motion detection")
  var motionOptions: MotionOptions

  @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this long (default: until Ctrl-C).", valueName: "time"))
  var duration: String?

  func run() throws {
    FFmpegLogging.configure(verbose: false)
    let address = try PreviewAddress(parsing: listen)
    var recording = RecordingPipeline.Configuration(source: .live(try source.map { try SourceSpec(parsing: $0) }))
    recording.size = try size.map { try FrameGeometry(parsing: $0, option: "--size") }
    recording.framesPerSecond = fps
    recording.camera = try camera.settings()
    recording.chain = try FilterRegistry.builtin.makeChain(filters)
    recording.limits = RecordingLimits(duration: try duration.map { try RecordingLimits.parseDuration($0, option: "--duration") })
    if motion {
      recording.motion = try motionOptions.options()
    } else if let first = motionOptions.given.first {
      throw RecordingOptionError("\(first) tunes motion detection: add --motion")
    }
    let runner = RecordingRunner(quiet: true, statsFile: nil)
    let pipeline = try RecordingPipeline(recording, report: runner.report)
    let preview = try previewOptions.start(at: address, pipeline: pipeline)
    defer { preview.stop() }
    let summary: RecordingSummary
    do {
      summary = try runner.run(pipeline, display: .nothing)
    } catch let error as RecordingOptionError where error.description.hasPrefix("interrupted before") {
      return
    }
    RecordCommand.printToStderr(
      "previewed \(summary.framesOut) frames in \(RecordingStatusLine.fixed(summary.elapsedSeconds, 1)) s; "
        + "\(preview.tap.viewerFrames) sent to viewers\n")
    if let error = summary.error { throw RecordingFailure(message: error) }
  }
}
