/// One time a camera was gone, as `--stats-json` lists it (`camera_gaps`).
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
