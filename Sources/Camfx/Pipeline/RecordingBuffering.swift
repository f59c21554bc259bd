import CamfxCore

/// How many frames may wait between the video stages of a `RecordingSession`, and so
/// how many pooled buffers its source needs.
///
/// A file input waits for the pipeline, so a little slack is enough. A live input
/// never waits: every moment the writer cannot take a frame (an x264 keyframe, its
/// threads crowding out the filter thread on two cores, a burst of other work on the
/// machine) must be absorbed by the rings, or frames are dropped. `live` therefore
/// buffers about a second in front of the writer, within a memory budget. The pool's
/// spare buffers take no RAM until a stall uses them (see `PixelStorage`).
public struct RecordingBuffering: Sendable, Equatable {
  /// Capacity of the ring from the source stage to the filter stage (a power of two).
  public var rawFrames: Int
  /// Capacity of the ring from the filter stage to the writer (a power of two).
  public var filteredFrames: Int
  /// Capacity of the ring from the filter stage to the tap stage (a power of two): the
  /// frames the taps (motion, stills, a preview) may fall behind the filters before a
  /// live input's frames are dropped for them (never for the file).
  public var tapFrames: Int

  public init(rawFrames: Int, filteredFrames: Int, tapFrames: Int = Self.defaultTapFrames) {
    self.rawFrames = rawFrames
    self.filteredFrames = filteredFrames
    self.tapFrames = tapFrames
  }

  /// A few frames of slack: the taps' work is short (motion analysis, a copy, a preview
  /// JPEG), and a longer stall (a PNG snapshot) costs the taps frames, not the file.
  public static let defaultTapFrames = 4

  /// Buffers the source's pool needs so that the rings, not the pool, run out first:
  /// every ring full plus one frame held by each stage (the source, the filters, the
  /// writer, the taps). The filtered frames may be the source's own pictures (filtered
  /// in place), which the tap stage holds as long as the writer does.
  public var poolCapacity: Int { rawFrames + filteredFrames + tapFrames + 4 }

  /// For a file input, which applies back-pressure instead of dropping: its frames
  /// are decoded pictures passed on by reference, so every frame in the rings holds a
  /// decoder buffer, and the shallowest rings keep memory near ffmpeg's for the same job
  /// without slowing it (the encoder is the slow stage).
  public static let file = RecordingBuffering(rawFrames: 2, filteredFrames: 2)
  /// A composition: decoded pictures too, as `file`.
  public static let composition = RecordingBuffering(rawFrames: 2, filteredFrames: 2)

  /// Most bytes of frames a live recording may hold in its rings (at 1920x1080 BGRA,
  /// about 60 frames).
  public static let liveMemoryBudget = 512 << 20

  /// For a live input of `geometry` at `framesPerSecond`: about a second in front of the
  /// writer and half that in front of the filters, made smaller until the whole pool
  /// fits `memoryBudget` (never below two frames per ring).
  public static func live(
    geometry: FrameGeometry, framesPerSecond: Double, memoryBudget: Int = liveMemoryBudget
  ) -> RecordingBuffering {
    let frameBytes = PixelBuffer.alignedBytesPerRow(width: geometry.width) * geometry.height
    let rate = framesPerSecond.isFinite && framesPerSecond > 0 ? framesPerSecond : 30
    let wanted = RecordingBuffering(
      rawFrames: powerOfTwo(atLeast: rate / 2, limit: 128), filteredFrames: powerOfTwo(atLeast: rate, limit: 256))
    return wanted.fitting(pool: memoryBudget / max(frameBytes, 1))
  }

  /// The same or smaller rings, so that `poolCapacity` is at most `pool` if it can be
  /// (each ring keeps at least two frames). The larger ring is halved first, the one in
  /// front of the filters on a tie, since the writer's stalls are the long ones.
  public func fitting(pool: Int) -> RecordingBuffering {
    var b = self
    while b.poolCapacity > pool && (b.filteredFrames > 2 || b.rawFrames > 2) {
      if b.rawFrames >= b.filteredFrames && b.rawFrames > 2 || b.filteredFrames <= 2 {
        b.rawFrames /= 2
      } else {
        b.filteredFrames /= 2
      }
    }
    return b
  }

  /// The smallest power of two ≥ `value` (at least 2), at most `limit`.
  static func powerOfTwo(atLeast value: Double, limit: Int) -> Int {
    var n = 2
    while Double(n) < value && n < limit { n *= 2 }
    return n
  }
}
