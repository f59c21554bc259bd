import CamfxCore

/// One time a camera was gone, or a live source's frames stopped for a while, as
/// `--stats-json` lists it (`camera_gaps`).
public struct CameraGap: Sendable, Codable, Equatable {
  /// Seconds from the first frame to the last frame before the gap.
  public var start: Double
  /// Seconds from that frame to the first frame after it, or to the end of the
  /// recording when the camera did not come back.
  public var seconds: Double

  public init(start: Double, seconds: Double) {
    self.start = start
    self.seconds = seconds
  }
}

/// Finds the gaps in a live source's frames from their timestamps, for a source that
/// does not report them itself (`MediaSource.cameraGaps` nil): a synthetic source, a
/// movie played in real time, a source of a program's own. A gap is a step between two
/// frames' timestamps of more than three frame durations, and at least half a second,
/// so that a few dropped frames are not one. A source that knows when it stopped (a
/// camera unplugged) says so instead (`markedGapsOnly`, `breakAfterLastFrame()`).
public struct GapDetector: Sendable {
  public private(set) var gaps: [CameraGap] = []
  private let thresholdSeconds: Double
  private var first: MediaTime?
  private var last: MediaTime?
  /// Set by `breakAfterLastFrame()`: the next frame ends a gap, however short.
  private var broken = false

  public init(frameDuration: MediaTime?) {
    thresholdSeconds = max(0.5, 3 * (frameDuration?.seconds ?? 0))
  }

  private init(thresholdSeconds: Double) {
    self.thresholdSeconds = thresholdSeconds
  }

  /// A detector that finds only the gaps its source marks.
  public static var markedGapsOnly: GapDetector { GapDetector(thresholdSeconds: .infinity) }

  /// Notes the next frame's timestamp.
  /// - Returns: the gap this frame ends, if it ends one.
  @discardableResult
  public mutating func note(_ time: MediaTime) -> CameraGap? {
    var ended: CameraGap?
    if let first, let last, broken || (time - last).seconds > thresholdSeconds {
      ended = CameraGap(start: (last - first).seconds, seconds: (time - last).seconds)
      gaps.append(ended!)
    }
    broken = false
    if first == nil { first = time }
    last = time
    return ended
  }

  /// The source stopped after its last frame (a camera went away): the next frame
  /// ends a gap, however short.
  public mutating func breakAfterLastFrame() { broken = last != nil }

  /// The source stayed away until `time` (the recording ended first): a gap from its
  /// last frame to then.
  public mutating func endGap(at time: MediaTime) {
    guard let first, let last else { return }
    gaps.append(CameraGap(start: (last - first).seconds, seconds: max(0, (time - last).seconds)))
    broken = false
  }
}
