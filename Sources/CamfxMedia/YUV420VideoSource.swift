import CamfxCore

/// A video source that can hand its pictures on as yuv420p frames instead of BGRA,
/// converted straight from its own format (a camera's YUYV or NV12), for a pipeline
/// whose filters and encoder all take yuv420p.
public protocol YUV420VideoSource: VideoSource {
  /// True when this source's format has a direct conversion to yuv420p.
  var canDeliverYUV420Frames: Bool { get }
  /// From now on, `nextVideoFrame()` gives yuv420p frames.
  /// - Precondition: `canDeliverYUV420Frames`.
  func deliverYUV420Frames() throws
  /// The next frame in the format asked for (BGRA until `deliverYUV420Frames()`).
  func nextVideoFrame() throws -> VideoFrame?
}
