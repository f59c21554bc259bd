import CamfxCapture

/// A camera's own drops reach the recording's statistics: frames the driver skipped or
/// flagged count as late (the pipeline did not take them in time), frames that found
/// the pool empty as out of buffers, damaged MJPEG or H.264 frames as corrupt.
extension V4L2Camera: LiveDropCounting {
  public var framesSkippedLate: Int { framesDroppedByDriver }
}
