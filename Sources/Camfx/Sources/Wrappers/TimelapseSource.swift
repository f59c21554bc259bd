import CamfxCore
import CamfxFrames
import CamfxMedia
import Synchronization

/// A live source that keeps one frame every `interval` (by the source's clock) and
/// re-times the kept frames at `frameDuration` apart (`--timelapse 10s --fps 30`: an
/// hour becomes 12 s), as motion's and rpicam-still's timelapses do. The first frame
/// is kept; the source's sound, if it has any, is not (a timelapse is silent).
///
/// The frames it skips are the source's: it finds the source's gaps in their timestamps
/// (`GapDetector`) when the source does not report them, since the kept frames, re-timed,
/// no longer show them; and a stop ends it between any two of them.
public final class TimelapseSource<Audio: Sendable>: MediaSourceWrapper, @unchecked Sendable {
  public let inner: any MediaSource<Audio>
  public let interval: MediaTime
  public let frameDuration: MediaTime?
  private var nextKeep: MediaTime?
  private var kept: Int64 = 0
  private var gapDetector: GapDetector
  private let interrupted = Atomic<Bool>(false)

  /// - Parameters:
  ///   - interval: source time between kept frames.
  ///   - frameDuration: time between frames in the movie (1/fps).
  public init(_ inner: any MediaSource<Audio>, interval: MediaTime, frameDuration: MediaTime) {
    precondition(interval > .zero, "a timelapse interval must be positive")
    self.inner = inner
    self.interval = interval
    self.frameDuration = frameDuration
    gapDetector = GapDetector(frameDuration: inner.frameDuration)
  }

  public var hasAudio: Bool { false }
  public var cameraGaps: [CameraGap]? { inner.cameraGaps ?? gapDetector.gaps }

  public func interrupt() {
    interrupted.store(true, ordering: .releasing)
    inner.interrupt()
  }

  public func nextSample() throws -> MediaSample<Audio>? {
    while !interrupted.load(ordering: .acquiring), let sample = try inner.nextSample() {
      guard case .video(var frame) = sample else { continue }  // sound
      let time = frame.presentationTime
      gapDetector.note(time)
      if let next = nextKeep, time < next { continue }
      // The next keep time follows the schedule, not this frame, so that late frames
      // do not make the timelapse drift.
      var next = (nextKeep ?? time) + interval
      while next <= time { next = next + interval }
      nextKeep = next
      let retimed = MediaTime(value: kept * (frameDuration?.value ?? 1), timescale: frameDuration?.timescale ?? 30)
      kept += 1
      switch frame {
      case .bgra(var buffer):
        buffer.presentationTime = retimed
        frame = .bgra(buffer)
      case .yuv420(var picture):
        picture.presentationTime = retimed
        frame = .yuv420(picture)
      }
      return .video(frame)
    }
    return nil
  }
}
