/// A live video source that drops frames itself (a camera whose driver dropped them, a
/// real-time generator that found no free buffer) and counts them, so the recording's
/// statistics include drops that happened before a frame reached the pipeline.
public protocol LiveDropCounting: AnyObject {
  /// Frames skipped because they were taken too late (the consumer fell behind).
  var framesSkippedLate: Int { get }
  /// Frames dropped because every buffer of the source's pool was in use.
  var framesDroppedOutOfBuffers: Int { get }
  /// Frames dropped because they were damaged (a camera's MJPEG or H.264).
  var framesCorrupt: Int { get }
}

extension LiveDropCounting {
  public var framesCorrupt: Int { 0 }
}
