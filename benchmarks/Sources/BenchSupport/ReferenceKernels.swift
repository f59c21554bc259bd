import Camfx

/// Memory-speed reference points: what any per-pixel kernel could at best reach.
public enum ReferenceKernels {
  /// Inverts B, G and R of every pixel in place, 64 bytes at a time: the cheapest
  /// possible in-place read-modify-write over a frame.
  public static func invertInPlace(_ frame: PixelBuffer) {
    let mask = SIMD16<UInt32>(repeating: 0x00FF_FFFF)
    frame.withUnsafeMutableBytes { base in
      let rowBytes = frame.width * 4
      for y in 0..<frame.height {
        let row = base + y * frame.bytesPerRow
        var x = 0
        while x + 64 <= rowBytes {
          let v = (row + x).loadUnaligned(as: SIMD16<UInt32>.self)
          (row + x).storeBytes(of: v ^ mask, as: SIMD16<UInt32>.self)
          x += 64
        }
        while x < rowBytes {
          let v = (row + x).load(as: UInt32.self)
          (row + x).storeBytes(of: v ^ 0x00FF_FFFF, as: UInt32.self)
          x += 4
        }
      }
    }
  }
}
