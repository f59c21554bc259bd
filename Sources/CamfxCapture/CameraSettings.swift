import CamfxCore

/// What the user asked of a camera: size or preset, rate, input format, controls and
/// warm-up frames. Anything left `nil` is chosen from what the camera offers.
public struct CameraSettings: Sendable {
  /// `--size`: an exact frame size; the camera must offer it.
  public var size: FrameGeometry?
  /// `--fps`: an exact rate; the camera must offer it. Without it camfx aims for 30 fps
  /// and takes the nearest rate offered.
  public var frameRate: FrameInterval?
  /// `--input-format`: the camera pixel format to capture in.
  public var pixelFormat: CameraPixelFormat?
  /// `--preset`: used when `size` is `nil`.
  public var preset: CapturePreset?
  /// `--control name=value`, applied in order before streaming starts.
  public var controls: [ControlAssignment]
  /// `--skip N`: frames discarded after streaming starts (auto-exposure warm-up).
  public var skipFrames: Int
  /// Driver buffers to map (at least 4).
  public var bufferCount: Int
  /// BGRA buffers in the source's pool: frames the pipeline may hold at once.
  public var poolCapacity: Int
  /// Only compressed formats (MJPEG, H.264) will do: `--video-codec copy` records the
  /// camera's own frames.
  public var compressedOnly = false

  public init(
    size: FrameGeometry? = nil, frameRate: FrameInterval? = nil, pixelFormat: CameraPixelFormat? = nil,
    preset: CapturePreset? = nil, controls: [ControlAssignment] = [], skipFrames: Int = 0,
    bufferCount: Int = 4, poolCapacity: Int = 8
  ) {
    self.size = size
    self.frameRate = frameRate
    self.pixelFormat = pixelFormat
    self.preset = preset
    self.controls = controls
    self.skipFrames = skipFrames
    self.bufferCount = max(bufferCount, 4)
    self.poolCapacity = max(poolCapacity, 2)
  }

  /// The rate aimed for when none is given.
  public static let defaultFrameRate = FrameInterval(framesPerSecond: 30)
  /// The size aimed for when neither size nor preset is given.
  public static let defaultSize = FrameGeometry(width: 640, height: 480)
}
