/// What one `BenchCase` measured.
public struct BenchResult: Sendable {
  public var name: String
  public var size: FrameGeometry
  public var bytesPerFrame: Int
  /// Frames processed in the timed part (after warm-up).
  public var frames: Int
  /// The fastest and the median per-frame time over the timed batches, in seconds.
  public var bestSeconds: Double
  public var medianSeconds: Double
  /// Frames per second of memcpy of a frame of the same size, when that row was run
  /// (from the same pool: hot with hot, cold with cold).
  public var memcpyFramesPerSecond: Double?
  /// Where the frames came from: one frame in the cache, or a pool larger than it.
  public var source: BenchFrames = .hot

  /// Frames per second from the best batch: on a shared machine the fastest batch is
  /// the one least disturbed by other work.
  public var framesPerSecond: Double { 1 / bestSeconds }
  /// Bytes processed per second, in 10^9; `nil` for operations that move no bytes.
  public var gigabytesPerSecond: Double? { bytesPerFrame > 0 ? Double(bytesPerFrame) / bestSeconds / 1e9 : nil }
  /// How many times faster than memcpy of the same frame (> 1 is faster).
  public var ratioToMemcpy: Double? { memcpyFramesPerSecond.map { framesPerSecond / $0 } }
}
