import Camfx
import CamfxPreview

/// The preview server of `camfx run`: one page of every camera the run records (the
/// mosaic too), at the file's `preview:` address, served again whenever a reload
/// changes the cameras or the address.
///
/// A tap cannot join a pipeline that already runs, so every camera's tap joins its
/// pipeline when the camera starts, whether or not the file has a preview now. A tap
/// nobody watches takes no frames, and a reload that adds `preview:` needs no camera
/// started again.
final class RunPreview {
  private var cameras: [String: PreviewCamera] = [:]
  private var server: PreviewServer?
  private var served: (address: PreviewAddress, names: [String])?
  /// A camera joined or left since the server was made.
  private var joined = false

  /// Adds a tap to `recording`'s pipeline (before it runs), with the camera's own
  /// `preview-fps` and `preview-motion-boxes`.
  /// - Throws: `PreviewError` when the tap's encoder cannot be made.
  func join(_ recording: CameraRecording) throws {
    guard let pipeline = recording.pipeline else { return }
    let options = recording.camera.command.previewOptions
    let camera = try PipelinePreview.camera(
      name: recording.camera.name, pipeline: pipeline, framesPerSecond: options.previewFPS,
      motionBoxes: options.previewPixelRectanglees)
    try camera.tap.start()
    pipeline.addTap(camera.tap)
    cameras[recording.camera.name] = camera
    joined = true
  }

  /// The cameras that ended: their pages go at the next `serve`.
  func leave(_ names: Set<String>) {
    for name in names {
      cameras[name]?.tap.stop()
      cameras[name] = nil
    }
    joined = true
  }

  /// Serves `names` (those that joined) at `address`, or stops serving for nil: a new
  /// server when the address or the cameras changed, and the old one stopped first.
  /// - Parameters:
  ///   - credentials: `USER:PASS` (the first camera's `preview-auth`).
  ///   - transport: TLS (the first camera's `preview-tls`), or nil for HTTP.
  /// - Returns: the address it now serves at, when it started a server.
  /// - Throws: `PreviewError` when the address cannot be served (nothing is served then).
  @discardableResult
  func serve(
    at address: PreviewAddress?, names: [String], credentials: String?, transport: (any PreviewTransport)? = nil
  ) throws -> String? {
    let shown = names.filter { cameras[$0] != nil }
    guard let address, !shown.isEmpty else {
      stop()
      return nil
    }
    if let served, !joined, served.address == address, served.names == shown { return nil }
    stop()
    let next = try PreviewServer(
      address: address, cameras: shown.compactMap { cameras[$0] }, credentials: credentials, transport: transport)
    try next.start()
    server = next
    served = (address, shown)
    joined = false
    return next.url
  }

  /// Stops serving (the taps stay on their pipelines, taking no frames).
  func stop() {
    server?.stop()
    server = nil
    served = nil
  }
}
