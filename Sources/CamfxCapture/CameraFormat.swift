import CamfxCore

/// One way a camera can deliver frames: a pixel format at one size, with the frame
/// rates it offers there, like an entry of `AVCaptureDevice.formats`.
public struct CameraFormat: Sendable, Hashable, CustomStringConvertible {
  public var pixelFormat: CameraPixelFormat
  /// The driver's name for the pixel format (`VIDIOC_ENUM_FMT` description).
  public var formatDescription: String
  public var size: FrameGeometry
  /// The frame intervals offered at this size, fastest first; empty when the driver
  /// does not enumerate intervals.
  public var frameIntervals: [FrameInterval]
  /// True when libv4l2 converts to this format in software (`V4L2_FMT_FLAG_EMULATED`);
  /// camfx prefers the camera's native formats.
  public var isEmulated: Bool

  public init(
    pixelFormat: CameraPixelFormat, formatDescription: String = "", size: FrameGeometry,
    frameIntervals: [FrameInterval], isEmulated: Bool = false
  ) {
    self.pixelFormat = pixelFormat
    self.formatDescription = formatDescription
    self.size = size
    self.frameIntervals = frameIntervals
    self.isEmulated = isEmulated
  }

  /// `YUYV 640x480 @ 30, 25, 15`.
  public var description: String {
    let rates = frameIntervals.isEmpty ? "" : " @ " + frameIntervals.map(\.description).joined(separator: ", ")
    return "\(pixelFormat.code) \(size)\(rates)"
  }
}
