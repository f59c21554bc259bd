import ArgumentParser
import Camfx
import CamfxCore
import CamfxMedia
import CamfxPreview
import CamfxPreviewTLS

/// The preview server's options, shared by `record` and `preview`.
struct PreviewOptions: ParsableArguments {
  @Option(name: .customLong("preview-fps"), parsing: .unconditional, help: ArgumentHelp(
    "At most this many frames a second to preview viewers (default 15).", valueName: "n"))
  var previewFPS: Double = 15

  @Option(name: .customLong("preview-auth"), help: ArgumentHelp(
    "Ask preview clients for these HTTP Basic credentials.", valueName: "user:pass"))
  var previewAuth: String?

  @Option(name: .customLong("preview-tls"), parsing: .upToNextOption, help: ArgumentHelp(
    "Serve the preview over HTTPS and WSS with this certificate (chain) and private key, PEM files.",
    valueName: "cert key"))
  var previewTLS: [String] = []

  @Flag(name: .customLong("preview-motion-boxes"), help: ArgumentHelp(
    "Draw the motion detector's boxes on the preview's MJPEG stream (never on the recording or snapshots)."))
  var previewPixelRectanglees = false

  func validate() throws {
    guard previewFPS > 0, previewFPS <= 60 else { throw ValidationError("--preview-fps must be between 0 and 60") }
    if let previewAuth, !previewAuth.contains(":") || previewAuth.hasPrefix(":") {
      throw ValidationError("--preview-auth must be USER:PASS")
    }
    guard previewTLS.isEmpty || previewTLS.count == 2 else {
      throw ValidationError("--preview-tls takes two files: the certificate and the private key (PEM)")
    }
  }

  /// HTTPS with `--preview-tls`, read now; nil for plain HTTP.
  /// - Throws: `PreviewError` naming a file that cannot be read or used.
  func transport() throws(PreviewError) -> (any PreviewTransport)? {
    guard previewTLS.count == 2 else { return nil }
    return try PreviewTLS(certificate: previewTLS[0], key: previewTLS[1])
  }

  /// Starts serving the pipeline's filtered frames and figures on `address`; prints where.
  func start(at address: PreviewAddress, pipeline: RecordingPipeline) throws -> RunningPreview {
    try start(at: address, cameras: [(name: "camera", pipeline: pipeline)])
  }

  /// Starts one server for several pipelines (a job's cameras and its mosaic), each
  /// under its name: a page of them all, and each one's stream, snapshots, figures and
  /// events under `/cameras/NAME/`; prints where. With one, the one-camera paths too.
  func start(at address: PreviewAddress, cameras: [(name: String, pipeline: RecordingPipeline)]) throws -> RunningPreview {
    if previewPixelRectanglees, !cameras.contains(where: { $0.pipeline.motion != nil }) {
      throw RecordingOptionError("--preview-motion-boxes draws the motion detector's boxes: add --motion")
    }
    let preview = try PipelinePreview(
      address: address, cameras: cameras, framesPerSecond: previewFPS, credentials: previewAuth, transport: transport(),
      motionBoxes: previewPixelRectanglees)
    let server = preview.server
    RecordCommand.printToStderr("camfx: preview at \(server.url)\n")
    if server.isOpenToTheNetwork {
      RecordCommand.printToStderr(
        "camfx: warning: the preview listens on \(address.host), beyond this machine, without --preview-auth: anyone who can reach port \(server.port) sees the pictures\n")
    }
    return preview
  }
}

/// The running preview, as `record` knows it: a server and its taps, until `stop()`.
typealias RunningPreview = PipelinePreview
