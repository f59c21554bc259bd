import CamfxCapture

/// A camera's own drops reach the recording's statistics: frames the driver skipped or
/// flagged (and corrupt MJPEG frames) count as late — the camera delivered them, the
/// pipeline did not take them in time or could not use them — and frames that found
/// the pool empty count as out of buffers.
extension V4L2Camera: LiveDropCounting {
  public var framesSkippedLate: Int { framesDroppedByDriver + framesCorrupt }
}
