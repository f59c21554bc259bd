import CamfxCore

/// What the detector made of one frame.
public struct MotionFrame: Sendable, Equatable {
  /// The frame's time (seconds).
  public var time: Double
  /// Percent of the watched picture that changed: of the zone closest to its rule, when
  /// there are zones.
  public var score: Double
  /// The area that zone needs (percent): motion when `score` reaches it.
  public var threshold: Double
  /// The zone the score is of (`frame` when there are no zones).
  public var zone: String
  /// Luma levels a pixel had to change by (the zone's, or the detector's).
  public var pixelThreshold: Double
  /// The noise measured in the reduced picture (luma levels, one standard deviation).
  public var noise: Double
  /// How much the whole picture got brighter (+) or darker (−) than the background, in
  /// luma levels: taken out before pixels are compared, so that a light that dims
  /// slowly or a camera's exposure step is no motion.
  public var brightness: Double
  /// True when most of the picture changed at once (a light switched, an IR filter):
  /// the detector learned the picture again instead of firing.
  public var lightSwitch: Bool
  /// This frame passes its zone's rule.
  public var changed: Bool
  /// Within motion: a run of at least `frames` changed frames began, and no unchanged
  /// frame has come since.
  public var moving: Bool
  /// When motion began, on the frame that made the run long enough: the run's first
  /// frame's time.
  public var began: Double?
  /// When motion ended, on the first unchanged frame after it: that frame's time.
  public var ended: Double?
  /// Where the picture changed: a rectangle around each region, largest first (at
  /// most 8), in the frame's pixels.
  public var boxes: [PixelRectangle]

  public init(time: Double) {
    self.time = time
    score = 0
    threshold = 0
    zone = "frame"
    pixelThreshold = 0
    noise = 0
    brightness = 0
    lightSwitch = false
    changed = false
    moving = false
    boxes = []
  }
}
