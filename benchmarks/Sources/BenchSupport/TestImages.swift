import Camfx

/// The deterministic images every contender works on, so all of them see the same bytes.
public enum TestImages {
  /// The frame sizes of issue 5: 720p, 1080p and 2160p.
  public static let sizes = [
    FrameGeometry(width: 1280, height: 720), FrameGeometry(width: 1920, height: 1080),
    FrameGeometry(width: 3840, height: 2160),
  ]

  /// The watermark size of issue 5.
  public static let markGeometry = FrameGeometry(width: 256, height: 64)
  /// The watermark's margin from the bottom-right corner (camfx's default `margin`).
  public static let markMargin = 16

  /// A frame of camera-like noise (opaque), the same for every call with the same seed.
  public static func frame(_ geometry: FrameGeometry, seed: UInt64 = 0x5eed) -> PixelBuffer {
    let frame = PixelBuffer(width: geometry.width, height: geometry.height)
    var state = seed | 1
    frame.withUnsafeMutableBytes { base in
      for y in 0..<geometry.height {
        let row = (base + y * frame.bytesPerRow).bindMemory(to: UInt32.self, capacity: geometry.width)
        for x in 0..<geometry.width {
          state ^= state << 13; state ^= state >> 7; state ^= state << 17
          row[x] = UInt32(truncatingIfNeeded: state >> 16) | 0xFF00_0000
        }
      }
    }
    return frame
  }

  /// A smooth opaque frame (gradients in every channel, like a camera image of a
  /// plain scene): for output checks where noise would only compare chroma filters.
  public static func smoothFrame(_ geometry: FrameGeometry) -> PixelBuffer {
    let frame = PixelBuffer(width: geometry.width, height: geometry.height)
    let w = max(geometry.width - 1, 1), h = max(geometry.height - 1, 1)
    frame.withUnsafeMutableBytes { base in
      for y in 0..<geometry.height {
        let row = (base + y * frame.bytesPerRow).bindMemory(to: UInt32.self, capacity: geometry.width)
        for x in 0..<geometry.width {
          let r = UInt32(x * 255 / w), g = UInt32(y * 255 / h), b = UInt32((x + y) * 255 / (w + h))
          row[x] = b | g << 8 | r << 16 | 0xFF00_0000
        }
      }
    }
    return frame
  }

  /// A straight-alpha 256×64 mark: an orange bar whose alpha ramps from 0 to 255 left to
  /// right, with a fully transparent border, so every blend case (0, partial, 255) occurs.
  public static func mark() -> PixelBuffer {
    let g = markGeometry
    let mark = PixelBuffer(width: g.width, height: g.height)
    for y in 0..<g.height {
      for x in 0..<g.width {
        let inside = x >= 4 && x < g.width - 4 && y >= 4 && y < g.height - 4
        let alpha = inside ? UInt8(min(255, x * 255 / (g.width - 9))) : 0
        mark[x, y] = BGRA(r: 255, g: UInt8(128 + y), b: UInt8(x / 4), a: alpha)
      }
    }
    return mark
  }

  /// Where the mark's top-left lands on a frame (bottom-right corner, default margin).
  public static func markOrigin(on geometry: FrameGeometry) -> (x: Int, y: Int) {
    (geometry.width - markGeometry.width - markMargin, geometry.height - markGeometry.height - markMargin)
  }

  /// The crop of the benchmarks: the centred half-width, half-height rectangle.
  public static func cropRect(of geometry: FrameGeometry) -> (x: Int, y: Int, width: Int, height: Int) {
    let w = geometry.width / 2, h = geometry.height / 2
    return ((geometry.width - w) / 2, (geometry.height - h) / 2, w, h)
  }
}
