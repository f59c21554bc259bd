import CamfxCapture
import CamfxCore
import CamfxFrames
import CamfxMedia
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A camera input that rides out the camera going away (unplugged, a USB reset, a
/// driver error): it waits up to `timeout` for the device to come back, reopens it with
/// the same format, size and rate, and goes on. Frames keep the driver's monotonic
/// timestamps, so the timeline runs on through the gap: the video has a hole where the
/// camera was gone, and the movie goes on in the same file. A camera that does not
/// come back in time ends the input with the disconnection error, as without it.
///
/// `@unchecked Sendable`: everything but `interrupted` is used only by the source
/// stage's thread; `interrupt()` only sets that atomic.
public final class ReconnectingCamera: MediaSource, @unchecked Sendable {
  private var camera: V4L2Camera?
  /// The drops counted by the cameras before the current one.
  private var dropsBefore = (late: 0, outOfBuffers: 0, corrupt: 0)
  private let path: String
  private let reopen: () throws -> V4L2Camera
  private let timeout: Double
  private let report: (String) -> Void
  private let interrupted = Atomic<Bool>(false)
  public let geometry: FrameGeometry
  public let frameDuration: MediaTime?
  /// The times the camera was gone, as this input saw them go and come back.
  private var gapDetector = GapDetector.markedGapsOnly
  public var gaps: [CameraGap] { gapDetector.gaps }
  public var cameraGaps: [CameraGap]? { gaps }

  /// - Parameters:
  ///   - camera: the opened camera.
  ///   - timeout: seconds to wait for it to come back (0: end at once).
  ///   - reopen: opens the camera again with the same settings.
  ///   - report: receives one line per event ("camera ... was disconnected; waiting ...").
  public init(
    camera: V4L2Camera, timeout: Double, reopen: @escaping () throws -> V4L2Camera,
    report: @escaping (String) -> Void = { _ in }
  ) {
    self.camera = camera
    path = camera.path
    geometry = camera.geometry
    frameDuration = camera.frameDuration
    pixelFormatName = camera.pixelFormatName
    canDeliverYUV420Frames = camera.canDeliverYUV420Frames
    self.timeout = timeout
    self.reopen = reopen
    self.report = report
  }

  public var isLive: Bool { true }
  public let pixelFormatName: String
  public let canDeliverYUV420Frames: Bool
  /// Set once the session asked for yuv420p frames: a camera that comes back is asked too.
  private var deliversYUV420 = false

  public var framesSkippedLate: Int { dropsBefore.late + (camera?.framesSkippedLate ?? 0) }
  public var framesDroppedOutOfBuffers: Int { dropsBefore.outOfBuffers + (camera?.framesDroppedOutOfBuffers ?? 0) }
  public var framesCorrupt: Int { dropsBefore.corrupt + (camera?.framesCorrupt ?? 0) }

  public func deliverYUV420Frames() throws {
    try camera?.deliverYUV420Frames()
    deliversYUV420 = true
  }

  /// Given to every camera that comes back, too.
  private var bandFilters: FilterChain?

  public func filterWhileConverting(_ chain: FilterChain) {
    camera?.filterWhileConverting(chain)
    bandFilters = chain
  }

  public func interrupt() { interrupted.store(true, ordering: .releasing) }

  public func nextSample() throws -> MediaSample<PCMBuffer>? {
    while true {
      let error: V4L2Error
      switch readSample() {
      case .success(let sample): return sample
      case .failure(let e as V4L2Error) where e.kind == .disconnected && timeout > 0: error = e
      case .failure(let e): throw e
      }
      // No reference to the old camera may live on here: closing it is what lets the
      // driver (or a module reload) bring the device back.
      dropsBefore = (framesSkippedLate, framesDroppedOutOfBuffers, framesCorrupt)
      camera = nil
      report("camera \(path) was disconnected; waiting up to \(Self.seconds(timeout)) for it to come back")
      guard let camera = try waitForCamera() else {
        // Frames carry CLOCK_MONOTONIC times, the driver's or camfx's own: now is on
        // the same clock.
        gapDetector.endGap(at: MediaTime(value: MonotonicClock.nanoseconds() / 1000, timescale: 1_000_000))
        if interrupted.load(ordering: .acquiring) { return nil }
        throw V4L2Error(
          .disconnected, code: error.code, operation: error.operation, device: path,
          detail: "it did not come back within \(Self.seconds(timeout))")
      }
      guard camera.geometry == geometry else {
        throw V4L2Error(
          .failed, operation: "reopen", device: path,
          detail: "the camera came back with size \(camera.geometry) instead of \(geometry)")
      }
      guard camera.canDeliverYUV420Frames || !deliversYUV420 else {
        throw V4L2Error(
          .failed, operation: "reopen", device: path,
          detail: "the camera came back in format \(camera.pixelFormatName) instead of \(pixelFormatName)")
      }
      gapDetector.breakAfterLastFrame()
      if deliversYUV420 { try camera.deliverYUV420Frames() }
      if let bandFilters { camera.filterWhileConverting(bandFilters) }
      self.camera = camera
    }
  }

  /// The current camera's next sample (nil once it was given up), as a result.
  private func readSample() -> Result<MediaSample<PCMBuffer>?, any Error> {
    guard let camera else { return .success(nil) }
    do {
      let sample = try camera.nextSample()
      if case .video(let frame) = sample, let gap = gapDetector.note(frame.presentationTime) {
        report("camera \(path) is back after a gap of \(Self.seconds(gap.seconds)); recording goes on")
      }
      return .success(sample)
    } catch {
      return .failure(error)
    }
  }

  /// Tries to reopen the camera twice a second until `timeout` or an interrupt.
  private func waitForCamera() throws -> V4L2Camera? {
    let deadline = MonotonicClock.seconds() + timeout
    while !interrupted.load(ordering: .acquiring) {
      if let camera = try? reopen() { return camera }
      if MonotonicClock.seconds() >= deadline { return nil }
      MonotonicClock.sleep(seconds: 0.25)
    }
    return nil
  }

  static func seconds(_ s: Double) -> String {
    s >= 10 ? "\(Int(s.rounded())) s" : "\((s * 10).rounded() / 10) s"
  }
}
