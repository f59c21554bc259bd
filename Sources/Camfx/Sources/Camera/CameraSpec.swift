import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxMedia
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `--source /dev/video0`: a V4L2 camera (`V4L2Camera`), any path under /dev/ that is
/// not a PNG or a movie. Everything camera-specific a recording needs is here, not in
/// the pipeline that reads it: the camera options, the notes on what the driver
/// adjusted, and reconnecting (`ReconnectingCamera`) when it goes away.
public struct CameraSpec: LiveSourceSpec {
  public let device: String

  public init(device: String) {
    self.device = device
  }

  public static func parse(_ text: String) throws -> CameraSpec? {
    text.hasPrefix("/dev/") && !text.lowercased().hasSuffix(".png") ? CameraSpec(device: text) : nil
  }

  public var description: String { device }

  /// The device's own path: `/dev/v4l/by-id/…` and `/dev/video0` can be one camera (a
  /// device not here: its path tidied of `.` and `..`).
  public var exclusiveDevice: String? {
    guard let resolved = realpath(device, nil) else { return URL(fileURLWithPath: device).standardized.path }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The camera opened with `request.camera`'s settings, its notes told to
  /// `request.report`; with a `reconnectTimeout`, waited for when it goes away and
  /// opened again the same way (format, size, rate, controls) when it comes back.
  public func open(_ request: LiveSourceRequest) throws -> OpenedLiveSource {
    let opened = try openCamera(request, settings: request.camera)
    for note in opened.notes { request.report("\(opened.path): \(note)") }
    let rate = opened.format.frameIntervals.first?.framesPerSecond ?? Double(request.framesPerSecond ?? 30)
    guard request.reconnectTimeout > 0 else { return OpenedLiveSource(source: opened, framesPerSecond: rate) }
    // The same format, size and rate (and controls) again when the camera comes back.
    var again = request.camera
    again.poolCapacity = max(request.poolCapacity, 2)
    again.size = opened.geometry
    again.pixelFormat = opened.format.pixelFormat
    if let interval = opened.format.frameIntervals.first { again.frameRate = interval }
    again.preset = nil
    let path = opened.path
    let source = ReconnectingCamera(
      camera: opened, timeout: request.reconnectTimeout, reopen: { try V4L2Camera(path: path, settings: again) },
      report: request.report)
    return OpenedLiveSource(source: source, framesPerSecond: rate)
  }

  /// The camera's own H.264 or MJPEG frames (`--video-codec copy`): asked for H.264 or
  /// else MJPEG, or the compressed format `request.camera` names.
  public func openPackets(_ request: LiveSourceRequest) throws -> (any PacketSource)? {
    var settings = request.camera
    if let format = settings.pixelFormat, !format.isCompressed {
      throw RecordingOptionError(
        "--video-codec copy records compressed frames: --input-format \(format.name) is not, use h264 or mjpeg")
    }
    settings.compressedOnly = true
    var small = request
    small.poolCapacity = 2
    let camera = try openCamera(small, settings: settings)
    for note in camera.notes { request.report("\(camera.path): \(note)") }
    return try CameraPacketSource(camera: camera)
  }

  /// `V4L2Camera` with `settings`, `request`'s size, rate and pool winning.
  private func openCamera(_ request: LiveSourceRequest, settings camera: CameraSettings) throws -> V4L2Camera {
    var settings = camera
    if let size = request.size { settings.size = size }
    if let rate = request.framesPerSecond { settings.frameRate = FrameInterval(framesPerSecond: rate) }
    settings.poolCapacity = max(request.poolCapacity, 2)
    return try V4L2Camera(path: device, settings: settings)
  }
}

extension SourceSpec {
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
