import CamfxCore

/// The frames a generator (testsrc, a PNG) hands out, numbered from its first: on the
/// wall clock when live (`FramePacer`: a late consumer loses the oldest frames, counted
/// as skipped, as a camera's would), each in a buffer from the pool, or as fast as asked.
/// What the generators share, so that they count their drops one way.
struct GeneratedFrames {
  /// The number of the next frame to make.
  private(set) var nextFrameNumber: Int64
  /// Frames not made because the consumer was later than the pacer's queue.
  private(set) var skippedLate = 0
  /// Frames not made because every buffer of the pool was still in use (live only).
  private(set) var droppedOutOfBuffers = 0
  private let endFrame: Int64?
  private let live: Bool
  private let timescale: Int32
  private var pacer: FramePacer

  /// - Parameters:
  ///   - count: frames before the end; nil for endless.
  init(first: Int64 = 0, count: Int64?, frameRate: Int, live: Bool) {
    nextFrameNumber = first
    endFrame = count.map { first + $0 }
    self.live = live
    timescale = Int32(frameRate)
    pacer = FramePacer(frameDuration: MediaTime(value: 1, timescale: timescale))
  }

  /// The timestamp of frame `n`.
  func presentationTime(ofFrame n: Int64) -> MediaTime { MediaTime(value: n, timescale: timescale) }

  /// The next frame's number and an empty buffer for it, stamped; nil at the end (or,
  /// not live, when the pool was closed).
  mutating func next(from pool: PixelBufferPool) -> (number: Int64, buffer: PixelBuffer)? {
    while true {
      var n = nextFrameNumber
      if let endFrame, n >= endFrame { return nil }
      guard live else {
        nextFrameNumber = n + 1
        return pool.acquire(presentationTime: presentationTime(ofFrame: n)).map { (n, $0) }
      }
      n = pacer.waitForFrame(n)
      if let endFrame, n >= endFrame {
        skippedLate += Int(endFrame - nextFrameNumber)
        nextFrameNumber = endFrame
        return nil
      }
      skippedLate += Int(n - nextFrameNumber)
      nextFrameNumber = n + 1
      if let buffer = pool.tryAcquire(presentationTime: presentationTime(ofFrame: n)) { return (n, buffer) }
      droppedOutOfBuffers += 1
    }
  }
}
