import CamfxCore
import CamfxFrames
import CamfxMedia
import CamfxMotion
import Synchronization

/// Runs the motion detector on every filtered frame, on the tap stage, and, started as
/// a trigger (`EventTrigger`), makes event clips of what it finds: motion that begins
/// triggers a clip from the frame where it began (`EventRecorder.trigger(…, duration:
/// .infinity)`), its scores keep the peak and its picture, and motion that ends releases
/// the clip into its post-roll. Not started, it only measures (`latest`, `figures`).
///
/// `@unchecked Sendable`: the detector is used by the tap stage alone (`take`); what
/// others read (`latest`, `figures`) and the recorder it fires are under mutexes.
public final class MotionTap: FrameTap, EventTrigger, @unchecked Sendable {
  /// What the detector has done so far.
  public struct Figures: Sendable, Equatable {
    public var frames = 0
    /// Times motion began.
    public var motions = 0
    public var lightSwitches = 0
    /// Mean and longest time the detector took per frame (µs).
    public var meanMicroseconds = 0.0
    public var longestMicroseconds = 0.0
  }

  private let detector: MotionDetector
  private let recorder = Mutex<EventRecorder?>(nil)
  /// The source time that is zero in the recording (the writer's session start): the
  /// clips are cut on the recording's timeline, the frames come on the source's.
  private let recordingStart: @Sendable () -> MediaTime?
  private struct Shared {
    var latest: MotionFrame?
    var figures = Figures()
    var totalNanoseconds: Int64 = 0
  }
  private let shared = Mutex(Shared())

  /// - Throws: `MotionOptionError` when the options do not fit frames of `geometry`.
  /// - Parameters:
  ///   - recordingStart: the source time that is zero in the recording
  ///     (`MovieWriter.currentSessionStart`); nil until the writer has seen a frame.
  public init(
    geometry: FrameGeometry, options: MotionDetector.Options, recordingStart: @escaping @Sendable () -> MediaTime? = { nil }
  ) throws(MotionOptionError) {
    detector = try MotionDetector(width: geometry.width, height: geometry.height, options: options)
    self.recordingStart = recordingStart
  }

  public func start(firing events: EventRecorder) throws { recorder.withLock { $0 = events } }

  public func stop(firing events: EventRecorder) {
    recorder.withLock { if $0 === events { $0 = nil } }
  }

  /// The last frame's result.
  public var latest: MotionFrame? { shared.withLock { $0.latest } }
  public var figures: Figures { shared.withLock { $0.figures } }

  public var wantsFrame: Bool { true }

  public func take(_ frame: VideoFrame) {
    let started = MonotonicClock.nanoseconds()
    let time = frame.presentationTime.seconds
    let result = detector.analyze(frame)
    if let recorder = recorder.withLock({ $0 }), result.began != nil || result.moving || result.ended != nil {
      let offset = recordingStart()?.seconds ?? 0
      if let began = result.began { recorder.trigger("motion", at: began - offset, duration: .infinity) }
      if result.moving {
        recorder.observe(score: result.score, boxes: result.boxes, at: time - offset) {
          StillCapture.copy(frame, reusing: $0)
        }
      }
      if let ended = result.ended { recorder.release(at: ended - offset) }
    }
    let elapsed = MonotonicClock.nanoseconds() - started
    shared.withLock { s in
      s.latest = result
      s.figures.frames += 1
      if result.began != nil { s.figures.motions += 1 }
      if result.lightSwitch { s.figures.lightSwitches += 1 }
      s.totalNanoseconds += elapsed
      s.figures.meanMicroseconds = Double(s.totalNanoseconds) / Double(s.figures.frames) / 1000
      s.figures.longestMicroseconds = max(s.figures.longestMicroseconds, Double(elapsed) / 1000)
    }
  }
}

extension MotionDetector {
  /// Looks at a pipeline frame: a yuv420p frame's Y plane as it is, BGRA through its
  /// luma, at the frame's own time.
  public func analyze(_ frame: VideoFrame) -> MotionFrame {
    let time = frame.presentationTime.seconds
    switch frame {
    case .yuv420(let picture):
      return analyze(
        LumaPicture(
          base: UnsafePointer(picture.y), width: picture.width, height: picture.height, bytesPerRow: picture.yStride,
          layout: .luma),
        at: time)
    case .bgra(let buffer):
      return buffer.withUnsafeBytes { base in
        analyze(
          LumaPicture(
            base: base.assumingMemoryBound(to: UInt8.self), width: buffer.width, height: buffer.height,
            bytesPerRow: buffer.bytesPerRow, layout: .bgra),
          at: time)
      }
    }
  }
}
