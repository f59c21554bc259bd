import CamfxCore
import CamfxFrames
import CamfxMedia

/// The built-in test pattern (`--source testsrc`): colour bars, a grey ramp, the frame
/// number as 16 black/white cells, a six-digit frame counter and a box that moves a
/// few pixels every frame. Deterministic: frame `n` of a size is always the same
/// pixels, whatever the rate or timing.
///
/// See `TestPatternLayout` for where each part goes. Drawing copies a few precomputed
/// rows and fills small rectangles, so a 1920x1080 frame costs about one memcpy.
///
///     camfx snapshot --source testsrc --size 1280x720 --frame 42 -o frame42.png
///
/// Frames come from the source's own `PixelBufferPool`; their timestamps are
/// `n / frameRate`. A *live* source paces frames on the monotonic clock and never
/// waits for a buffer: if all are in use, or the caller is a whole frame late, the
/// frame is dropped and counted. A non-live source renders as fast as it is asked and
/// waits for a buffer to come back (keep fewer than `poolCapacity` frames alive).
/// A recording reads the drop counts through `MediaSource`.
public final class TestPatternSource: MediaSource {
  /// The size used when none is given.
  public static let defaultGeometry = FrameGeometry(width: 640, height: 480)

  public let geometry: FrameGeometry
  public let frameRate: Int
  public let isLive: Bool
  public var frameDuration: MediaTime? { MediaTime(value: 1, timescale: Int32(frameRate)) }
  /// The pool frames are drawn into.
  public let pool: PixelBufferPool

  /// Frames a live source skipped because the caller asked for them too late.
  public var framesSkippedLate: Int { frames.skippedLate }
  /// Frames a live source dropped because every pool buffer was still in use.
  public var framesDroppedOutOfBuffers: Int { frames.droppedOutOfBuffers }
  /// The number of the next frame `nextFrame()` will try to deliver.
  public var nextFrameNumber: Int64 { frames.nextFrameNumber }

  private var frames: GeneratedFrames
  let layout: TestPatternLayout
  // One precomputed row per constant part of the pattern, `width` pixels each.
  let barsRow: UnsafeMutablePointer<UInt32>
  let rampRow: UnsafeMutablePointer<UInt32>
  let bandRow: UnsafeMutablePointer<UInt32>

  static let white = BGRA(r: 255, g: 255, b: 255).packed
  static let black = BGRA(r: 0, g: 0, b: 0).packed
  static let bandColor = BGRA(r: 16, g: 16, b: 16).packed
  static let boxColor = BGRA(r: 255, g: 128, b: 0).packed
  /// 75% bars, left to right: white, yellow, cyan, green, magenta, red, blue.
  public static let barColors: [BGRA] = [
    BGRA(r: 191, g: 191, b: 191), BGRA(r: 191, g: 191, b: 0), BGRA(r: 0, g: 191, b: 191),
    BGRA(r: 0, g: 191, b: 0), BGRA(r: 191, g: 0, b: 191), BGRA(r: 191, g: 0, b: 0), BGRA(r: 0, g: 0, b: 191),
  ]

  /// - Parameters:
  ///   - geometry: frame size; any size from 1x1 to the maximum.
  ///   - frameRate: frames per second, at least 1.
  ///   - live: pace frames on the wall clock (for recording).
  ///   - firstFrame: the number of the first frame delivered (its timestamp is
  ///     `firstFrame / frameRate`).
  ///   - frameCount: how many frame numbers to run through before `nextFrame()`
  ///     returns `nil` (dropped ones included); `nil` for an endless source.
  ///   - poolCapacity: how many frames may be out of the source at once.
  public init(
    geometry: FrameGeometry, frameRate: Int = 30, live: Bool = false, firstFrame: Int64 = 0,
    frameCount: Int64? = nil, poolCapacity: Int = 8
  ) {
    precondition(geometry.width > 0 && geometry.height > 0, "test pattern needs a positive size")
    precondition(frameRate > 0 && frameRate <= Int(Int32.max), "frame rate must be positive")
    precondition(firstFrame >= 0 && (frameCount ?? 0) >= 0)
    self.geometry = geometry
    self.frameRate = frameRate
    self.isLive = live
    self.frames = GeneratedFrames(first: firstFrame, count: frameCount, frameRate: frameRate, live: live)
    self.layout = TestPatternLayout(geometry)
    self.pool = PixelBufferPool(geometry: geometry, capacity: poolCapacity)

    let w = geometry.width
    barsRow = .allocate(capacity: w)
    rampRow = .allocate(capacity: w)
    bandRow = .allocate(capacity: w)
    let bars = Self.barColors
    for x in 0..<w {
      barsRow[x] = bars[x * bars.count / w].packed
      let level = w > 1 ? UInt8(x * 255 / (w - 1)) : 0
      rampRow[x] = BGRA(r: level, g: level, b: level).packed
    }
    bandRow.initialize(repeating: Self.bandColor, count: w)
  }

  deinit {
    barsRow.deallocate()
    rampRow.deallocate()
    bandRow.deallocate()
  }

  /// The timestamp of frame `n`.
  public func presentationTime(ofFrame n: Int64) -> MediaTime {
    frames.presentationTime(ofFrame: n)
  }

  /// As a `MediaSource`: the next BGRA frame (no sound).
  public func nextSample() throws -> MediaSample<PCMBuffer>? {
    try nextFrame().map { .video(.bgra($0)) }
  }

  public func nextFrame() throws -> PixelBuffer? {
    guard let (n, buffer) = frames.next(from: pool) else { return nil }
    render(frameNumber: n, into: buffer)
    return buffer
  }
}
