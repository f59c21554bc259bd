import ArgumentParser
import Camfx
import CamfxCore
import CamfxMedia
import CamfxPreview

/// The preview server's options, shared by `record` and `preview`.
struct PreviewOptions: ParsableArguments {
  @Option(name: .customLong("preview-fps"), parsing: .unconditional, help: ArgumentHelp(
    "At most this many frames a second to preview viewers (default 15).", valueName: "n"))
  var previewFPS: Double = 15

  @Option(name: .customLong("preview-auth"), help: ArgumentHelp(
    "Ask preview clients for these HTTP Basic credentials.", valueName: "user:pass"))
  var previewAuth: String?

  @Flag(name: .customLong("preview-motion-boxes"), help: ArgumentHelp(
    "Draw the motion detector's boxes on the preview's MJPEG stream (never on the recording or snapshots)."))
  var previewPixelRectanglees = false

  func validate() throws {
    guard previewFPS > 0, previewFPS <= 60 else { throw ValidationError("--preview-fps must be between 0 and 60") }
    if let previewAuth, !previewAuth.contains(":") || previewAuth.hasPrefix(":") {
      throw ValidationError("--preview-auth must be USER:PASS")
    }
  }

  /// Starts serving the pipeline's filtered frames and figures on `address`; prints where.
  func start(at address: PreviewAddress, pipeline: RecordingPipeline) throws -> RunningPreview {
    let tap = PreviewTap(geometry: pipeline.outputGeometry, framesPerSecond: previewFPS)
    let writer = pipeline.writer
    let state = PreviewState(
      statistics: pipeline.session.statistics, viewers: { tap.viewers }, motion: pipeline.motion,
      geometry: pipeline.outputGeometry
    ) {
      writer?.outputReports ?? []
    }
    if previewPixelRectanglees {
      guard let motion = pipeline.motion else {
        throw RecordingOptionError("--preview-motion-boxes draws the motion detector's boxes: add --motion")
      }
      tap.boxes = { motion.latest?.boxes ?? [] }
    }
    let server = PreviewServer(address: address, tap: tap, credentials: previewAuth) { state.json() }
    if let recorder = pipeline.events {
      server.events = { @Sendable (request: EventRequest) in
        switch request {
        case .start(let duration): recorder.trigger("http", duration: duration ?? 0)
        case .stop: recorder.stopEvent()
        }
      }
    }
    try server.start()
    try tap.start()
    pipeline.addTap(tap)
    RecordCommand.printToStderr("camfx: preview at \(server.url)\n")
    if server.isOpenToTheNetwork {
      RecordCommand.printToStderr(
        "camfx: warning: the preview listens on \(address.host), beyond this machine, without --preview-auth: anyone who can reach port \(server.port) sees the pictures\n")
    }
    return RunningPreview(tap: tap, server: server)
  }
}

/// A preview server and its tap, until `stop()`.
struct RunningPreview {
  let tap: PreviewTap
  let server: PreviewServer
  func stop() {
    server.stop()
    tap.stop()
  }
}
