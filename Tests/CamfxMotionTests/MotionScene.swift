import CamfxMotion
import Synchronization

/// A generated camera picture for the motion tests: a textured background with
/// sensor-like noise (Gaussian, σ = 3 luma levels, new every frame), a box that appears
/// at 6.0 s, moves right and leaves at 9.0 s, and changes of light.
struct MotionScene {
  enum Light {
    case steady
    /// Everything brighter by `levels` from `at` on.
    case step(at: Double, levels: Int)
    /// Brighter by `levels` in all, little by little from `from` to `to`.
    case ramp(from: Double, to: Double, levels: Int)
  }

  var width = 320
  var height = 240
  var framesPerSecond = 30.0
  var box: (from: Double, to: Double, y: Int, size: Int)? = (6.0, 9.0, 96, 48)
  var light = Light.steady
  var sigma = 3.0

  /// Noise values, looked up from a different place each frame: cheap, and the same
  /// every run.
  private static let noise: [Int8] = {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func uniform() -> Double {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return (Double(state >> 11) + 0.5) / Double(1 << 53)
    }
    return (0..<(1 << 20)).map { _ in
      let g = (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
      return Int8(max(-127, min(127, (g * 3).rounded())))
    }
  }()

  /// Where the box is at `time`, if it is there.
  func boxRect(at time: Double) -> (x: Int, y: Int, size: Int)? {
    guard let box, time >= box.from - 1e-9, time < box.to - 1e-9 else { return nil }
    return (40 + Int((time - box.from) * 60), box.y, box.size)
  }

  /// Frame `index`'s luma plane, `width` bytes a row.
  func luma(frame index: Int) -> [UInt8] {
    let key = "\(width)x\(height) \(box.map { "\($0)" } ?? "-") \(light) \(sigma) \(index)"
    if let cached = Self.cache.withLock({ $0[key] }) { return cached }
    let picture = render(frame: index)
    Self.cache.withLock { $0[key] = picture }
    return picture
  }

  /// The scenes' frames, made once per test run: several tests watch the same scene.
  private static let cache = Mutex<[String: [UInt8]]>([:])

  private func render(frame index: Int) -> [UInt8] {
    let time = Double(index) / framesPerSecond
    var lift = 0
    switch light {
    case .steady: break
    case .step(let at, let levels): lift = time >= at ? levels : 0
    case .ramp(let from, let to, let levels):
      lift = Int((Double(levels) * min(1, max(0, (time - from) / (to - from)))).rounded())
    }
    let start = (index &* 7919 &* 104_729) & ((1 << 20) - 1)
    let rect = boxRect(at: time) ?? (-1, -1, 0)
    let scale = Int(sigma.rounded())
    let width = width, height = height
    return [UInt8](unsafeUninitializedCapacity: width * height) { picture, count in
      Self.noise.withUnsafeBufferPointer { noise in
        for y in 0..<height {
          let inRows = y >= rect.y && y < rect.y + rect.size
          for x in 0..<width {
            var value = 60 + x >> 3 + y >> 3 + lift
            if inRows && x >= rect.x && x < rect.x + rect.size { value = 220 }
            value += Int(noise[(start + y * width + x) & ((1 << 20) - 1)]) * scale / 3
            picture[y * width + x] = UInt8(truncatingIfNeeded: max(0, min(255, value)))
          }
        }
      }
      count = width * height
    }
  }

  /// Runs `detector` over `seconds` of the scene.
  func run(_ detector: MotionDetector, seconds: Double = 14) -> [MotionFrame] {
    (0..<Int(seconds * framesPerSecond)).map { index in
      let picture = luma(frame: index)
      return picture.withUnsafeBufferPointer {
        detector.analyze(
          LumaPicture(base: $0.baseAddress!, width: width, height: height, bytesPerRow: width, layout: .luma),
          at: Double(index) / framesPerSecond)
      }
    }
  }
}

#if canImport(Glibc)
import Glibc
#endif
