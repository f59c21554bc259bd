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
/// so that a few dropped frames are not one.
public struct GapDetector: Sendable {
  public private(set) var gaps: [CameraGap] = []
  private let thresholdSeconds: Double
  private var first: MediaTime?
  private var last: MediaTime?

  public init(frameDuration: MediaTime?) {
    thresholdSeconds = max(0.5, 3 * (frameDuration?.seconds ?? 0))
  }

  /// Notes the next frame's timestamp.
  public mutating func note(_ time: MediaTime) {
    if let first, let last, (time - last).seconds > thresholdSeconds {
      gaps.append(CameraGap(start: (last - first).seconds, seconds: (time - last).seconds))
    }
    if first == nil { first = time }
    last = time
  }
}
