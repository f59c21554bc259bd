import CamfxCore
import CamfxFrames
import CamfxMosaic
import CamfxPixelFormats
import Synchronization

/// A mosaic of cameras as a live source: on its own clock, each frame is the mosaic as
/// it is at that moment (`Mosaic.compose`), each cell its camera's newest picture
/// (handed over by a `MosaicFeed` on that camera's recording) or its "no signal" card.
/// A recording of it is a recording like any other: its chain, its encoder, its
/// outputs, its sound (a microphone or a tone of its own).
///
///     let source = try MosaicSource(
///       layout: MosaicLayout(parsing: "hstack", cameras: ["left", "right"]), cameras: ["left", "right"],
///       size: FrameGeometry(width: 2560, height: 720), framesPerSecond: 30)
///     leftPipeline.addTap(try MosaicFeed(camera: "left", into: source.mosaic, geometry: leftPipeline.outputGeometry))
///     var recording = RecordingPipeline.Configuration(source: .own(source))
///
/// Its frames are yuv420p, the mosaic's own; a chain that needs BGRA gets them
/// converted. Like a camera, it never waits for the recording: a frame it cannot make
/// in time is skipped and counted.
public final class MosaicSource: MediaSource {
  public let mosaic: Mosaic
  public let geometry: FrameGeometry
  public let frameDuration: MediaTime?
  public var isLive: Bool { true }
  public var pixelFormatName: String { "yuv420p" }
  public var canDeliverYUV420Frames: Bool { true }
  public private(set) var framesSkippedLate = 0
  public private(set) var framesDroppedOutOfBuffers = 0

  private let framesPerSecond: Int
  private var pacer: FramePacer
  private var nextFrameNumber: Int64 = 0
  private var deliversYUV420 = false
  /// BGRA copies, made only for a chain that needs them.
  private var bgraPool: PixelBufferPool?
  private let interrupted = Atomic<Bool>(false)

  /// - Parameters:
  ///   - layout, cameras, size: the mosaic's (`Mosaic.init`).
  ///   - framesPerSecond: the mosaic's own rate, whatever the cameras' are.
  ///   - staleAfter: how long a camera may send nothing before its card shows.
  /// - Throws: `MosaicError` for a bad layout, size or rate; what `Mosaic.init` throws.
  public init(
    layout: MosaicLayout, cameras: [String], size: FrameGeometry, framesPerSecond: Int = 30,
    staleAfter: MediaTime = MediaTime(value: 2, timescale: 1)
  ) throws {
    guard (1...240).contains(framesPerSecond) else {
      throw MosaicError(
        layout: layout.text(cameras: cameras), subject: "frame rate", value: String(framesPerSecond), reason: "must be in 1...240")
    }
    // Pictures for the recording's rings, as many as a camera of this size would have.
    let buffering = RecordingBuffering.live(geometry: size, framesPerSecond: Double(framesPerSecond))
    mosaic = try Mosaic(
      layout: layout, cameras: cameras, size: size, staleAfter: staleAfter, poolCapacity: buffering.poolCapacity)
    geometry = size
    self.framesPerSecond = framesPerSecond
    frameDuration = MediaTime(value: 1, timescale: Int32(framesPerSecond))
    pacer = FramePacer(frameDuration: frameDuration)
  }

  public func deliverYUV420Frames() throws { deliversYUV420 = true }

  public func interrupt() { interrupted.store(true, ordering: .relaxed) }

  public func nextSample() throws -> MediaSample<PCMBuffer>? {
    while !interrupted.load(ordering: .relaxed) {
      let n = pacer.waitForFrame(nextFrameNumber)
      framesSkippedLate += Int(n - nextFrameNumber)
      nextFrameNumber = n + 1
      // Stamped on the monotonic clock, as a camera's frames are: a microphone's sound
      // (captured on that clock) then lines up with the picture.
      // The first frame's instant, then whole frame durations from it (exact, as a
      // camera's driver stamps them, so that --duration 2s is 60 frames at 30 fps).
      let origin = MediaTime(value: (pacer.dueNanoseconds(ofFrame: 0) ?? MonotonicClock.nanoseconds()) / 1000, timescale: 1_000_000)
      var frame = try mosaic.compose(at: Mosaic.now())
      frame.presentationTime = origin + MediaTime(value: n, timescale: Int32(framesPerSecond)).converted(to: 1_000_000)
      if deliversYUV420 { return .video(.yuv420(frame)) }
      let pool = bgraPool ?? PixelBufferPool(
        geometry: geometry,
        capacity: RecordingBuffering.live(geometry: geometry, framesPerSecond: Double(framesPerSecond)).poolCapacity)
      bgraPool = pool
      guard let buffer = pool.tryAcquire(presentationTime: frame.presentationTime) else {
        framesDroppedOutOfBuffers += 1
        continue
      }
      PixelConverter.convertI420(frame.picture, to: buffer)
      return .video(.bgra(buffer))
    }
    return nil
  }
}
