import CamfxCore
import CamfxMotion
import CamfxPNG

/// A picture of the score against its threshold over time, for tuning:
///
///     ┌──────────────────────────────────────────┐
///     │          ░░░░░░░░░░          score (blue) │
///     │ ─ ─ ─ ─ ─░─/\──/\─░─ ─ ─ ─  threshold (red)│
///     │ ~~~~~~~~~░/    \/ \░~~~~~~~~~~~~~~~~~~~~~ │
///     └┴────┴────┴────┴────┴────┴────┴────┴────┴─┘  a tick every second (or 2, 5, 10 …)
///
/// Frames in motion are shaded pink; the score is drawn up to twice the highest
/// threshold, or 10 % above the highest score when that is more.
public enum MotionPlot {
  public static let background = BGRA(b: 255, g: 255, r: 255, a: 255)
  public static let axis = BGRA(b: 0, g: 0, r: 0, a: 255)
  public static let scoreColor = BGRA(b: 200, g: 60, r: 20, a: 255)
  public static let thresholdColor = BGRA(b: 30, g: 30, r: 220, a: 255)
  public static let motionShade = BGRA(b: 225, g: 220, r: 255, a: 255)

  /// The plot of `frames` as a `width`×`height` picture.
  public static func draw(_ frames: [MotionFrame], width: Int, height: Int, duration: Double) -> PixelBuffer {
    let picture = PixelBuffer(width: width, height: height)
    picture.fill(background)
    let left = 8, right = width - 8, top = 8, bottom = height - 14
    // Time from the first frame: a stream whose clock starts late still fills the plot.
    let first = frames.first?.time ?? 0
    let span = max(duration - first, (frames.last?.time ?? 0) - first, 1e-3)
    let highest = max(
      2 * (frames.map(\.threshold).max() ?? 1), 1.1 * (frames.map(\.score).max() ?? 0), 1e-3)
    let x = { (t: Double) in left + Int(((t - first) / span * Double(right - left)).rounded()) }
    let y = { (v: Double) in bottom - Int((min(v, highest) / highest * Double(bottom - top)).rounded()) }
    picture.withUnsafeMutableBytes { base in
      let pixels = base.assumingMemoryBound(to: BGRA.self)
      let stride = picture.bytesPerRow / 4
      func set(_ px: Int, _ py: Int, _ color: BGRA) {
        guard px >= 0, px < width, py >= 0, py < height else { return }
        pixels[py * stride + px] = color
      }
      // Motion shading, behind everything.
      for (index, frame) in frames.enumerated() where frame.moving {
        let next = index + 1 < frames.count ? frames[index + 1].time : first + span
        for px in x(frame.time)...max(x(frame.time), x(next)) {
          for py in top...bottom { set(px, py, motionShade) }
        }
      }
      // Axes and a tick every second.
      for px in left...right { set(px, bottom + 1, axis) }
      for py in top...(bottom + 1) { set(left - 1, py, axis) }
      // Ticks a second apart, or further apart so that they stay at least 8 pixels apart.
      let step = [1.0, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400]
        .first { span / $0 * 8 <= Double(right - left) } ?? span
      var tick = 0.0
      while tick <= span {
        for py in (bottom + 2)...(bottom + 5) { set(x(first + tick), py, axis) }
        tick += step
      }
      // The threshold, frame by frame (zones may differ), then the score over it.
      var previous: (Int, Int)? = nil
      for frame in frames {
        let point = (x(frame.time), y(frame.threshold))
        line(from: previous ?? point, to: point, thickness: 1) { set($0, $1, thresholdColor) }
        previous = point
      }
      previous = nil
      for frame in frames {
        let point = (x(frame.time), y(frame.score))
        line(from: previous ?? point, to: point, thickness: 1) { set($0, $1, scoreColor) }
        previous = point
      }
    }
    return picture
  }

  /// Writes the plot as a PNG at `path`.
  public static func write(_ frames: [MotionFrame], width: Int, height: Int, duration: Double, to path: String) throws {
    let picture = draw(frames, width: width, height: height, duration: duration)
    let file = try OutputFile(path: path, overwrite: true)
    try file.write { temporary in try PNGFile.write(picture, to: temporary, alpha: false) }
  }

  /// The pixels of a straight line, `thickness` more on each side across it.
  private static func line(from a: (Int, Int), to b: (Int, Int), thickness: Int, _ plot: (Int, Int) -> Void) {
    let steps = max(abs(b.0 - a.0), abs(b.1 - a.1), 1)
    for step in 0...steps {
      let px = a.0 + (b.0 - a.0) * step / steps, py = a.1 + (b.1 - a.1) * step / steps
      for d in -thickness...thickness { plot(px, py + d) }
    }
  }
}
