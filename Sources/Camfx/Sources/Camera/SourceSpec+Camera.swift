import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxMedia

extension SourceSpec {
  /// Opens the source, with the camera options (`--input-format`, `--preset`, `--skip`,
  /// `--control`) applied when it is a camera.
  ///
  /// - Parameters:
  ///   - frameRate: `--fps` when the user gave it: a camera must then offer exactly that
  ///     rate; `nil` lets a camera pick the nearest to 30 fps (and other sources use 30).
  ///   - camera: the camera options; `size`, `frameRate` and `poolCapacity` here win.
  /// - Throws: `V4L2Error` for a camera, else what `open(size:frameRate:…)` throws.
  public func open(
    size: FrameGeometry?, frameRate: Int?, live: Bool, poolCapacity: Int = 8, camera: CameraSettings
  ) throws -> any MediaSource<PCMBuffer> {
    guard case .camera(let device) = self else {
      return try open(size: size, frameRate: frameRate ?? 30, live: live, poolCapacity: poolCapacity)
    }
    return try Self.openCamera(device: device, size: size, frameRate: frameRate, poolCapacity: poolCapacity, camera: camera)
  }

  /// The camera branch of `open`: `V4L2Camera` with `camera` plus the common options
  /// (also how `--video-codec copy` opens its camera).
  public static func openCamera(
    device: String, size: FrameGeometry?, frameRate: Int?, poolCapacity: Int, camera: CameraSettings = CameraSettings()
  ) throws -> V4L2Camera {
    var settings = camera
    if let size { settings.size = size }
    if let frameRate {
      guard frameRate > 0 && frameRate <= 1000 else {
        throw SourceError(source: device, reason: "frame rate \(frameRate) must be in 1...1000")
      }
      settings.frameRate = FrameInterval(framesPerSecond: frameRate)
    }
    settings.poolCapacity = max(poolCapacity, 2)
    return try V4L2Camera(path: device, settings: settings)
  }

  /// A camera as a recording reads it: opened with `camera`'s settings (its notes, what
  /// the driver adjusted, told to `report`), and, with a `reconnectTimeout`, waited for
  /// when it goes away and opened again the same way (format, size, rate, controls) when
  /// it comes back. Everything camera-specific a recording needs is here, not in the
  /// pipeline that reads it.
  /// - Returns: the source and the frame rate the camera runs at.
  public static func openCameraForRecording(
    device: String, size: FrameGeometry?, frameRate: Int?, poolCapacity: Int, camera: CameraSettings,
    reconnectTimeout: Double, report: @escaping @Sendable (String) -> Void
  ) throws -> (source: any MediaSource<PCMBuffer>, framesPerSecond: Double) {
    let opened = try openCamera(device: device, size: size, frameRate: frameRate, poolCapacity: poolCapacity, camera: camera)
    for note in opened.notes { report("\(opened.path): \(note)") }
    let rate = opened.format.frameIntervals.first?.framesPerSecond ?? Double(frameRate ?? 30)
    guard reconnectTimeout > 0 else { return (opened, rate) }
    // The same format, size and rate (and controls) again when the camera comes back.
    var again = camera
    again.poolCapacity = max(poolCapacity, 2)
    again.size = opened.geometry
    again.pixelFormat = opened.format.pixelFormat
    if let interval = opened.format.frameIntervals.first { again.frameRate = interval }
    again.preset = nil
    let path = opened.path
    let source = ReconnectingCamera(
      camera: opened, timeout: reconnectTimeout, reopen: { try V4L2Camera(path: path, settings: again) }, report: report)
    return (source, rate)
  }

  /// What `--source` means when it is not given: the first camera. The test pattern
  /// only when there is no camera at all (`isFallback`, which the command says on its
  /// first line); a camera that exists but cannot be opened (no permission, busy) is
  /// that camera's error, never a silent test pattern.
  /// - Parameter directory: where the `video*` nodes are (`/dev`).
  /// - Throws: the first camera's `V4L2Error` when cameras exist and none opens.
  public static func defaultSource(in directory: String = "/dev") throws -> (spec: SourceSpec, isFallback: Bool) {
    let (cameras, problems) = CameraDevice.discover(in: directory)
    if let camera = cameras.first { return (.camera(device: camera.path), false) }
    if let problem = problems.first { throw problem }
    return (.testPattern, true)
  }

  /// The line a command prints first when it falls back to the test pattern.
  public static let fallbackNote = "camfx: no camera found; using the test pattern (--source testsrc)"
}
