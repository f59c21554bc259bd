#if canImport(Glibc)
import Glibc
#endif
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

extension ReferenceKernels {
  /// Reads every byte of `source` (an OR of 64-byte loads) and fills `destination` with
  /// the result: the least any resizing kernel does, so what memory speed allows it.
  /// Rows are `(start, bytes per row, stride, count)`.
  public static func readThenWrite(
    source: [(UnsafeRawPointer, Int, Int, Int)], destination: [(UnsafeMutableRawPointer, Int, Int, Int)]
  ) {
    var seen = SIMD16<UInt32>(repeating: 0)
    var rest: UInt8 = 0
    for (base, rowBytes, stride, rows) in source {
      for y in 0..<rows {
        let row = base + y * stride
        var x = 0
        while x + 64 <= rowBytes {
          seen |= row.loadUnaligned(fromByteOffset: x, as: SIMD16<UInt32>.self)
          x += 64
        }
        while x < rowBytes {
          rest |= row.load(fromByteOffset: x, as: UInt8.self)
          x += 1
        }
      }
    }
    let fill = Int32(truncatingIfNeeded: seen.wrappedSum() ^ UInt32(rest)) & 0xFF
    for (base, rowBytes, stride, rows) in destination {
      for y in 0..<rows { memset(base + y * stride, fill, rowBytes) }
    }
  }

  /// `readThenWrite` for two BGRA frames.
  public static func readThenWrite(_ source: PixelBuffer, into destination: PixelBuffer) {
    source.withUnsafeBytes { s in
      destination.withUnsafeMutableBytes { d in
        readThenWrite(
          source: [(UnsafeRawPointer(s), source.width * 4, source.bytesPerRow, source.height)],
          destination: [(d, destination.width * 4, destination.bytesPerRow, destination.height)])
      }
    }
  }

  /// `readThenWrite` for two yuv420p pictures, plane by plane.
  public static func readThenWrite(_ source: PlanarImage, into destination: PlanarImage) {
    func rows(_ image: PlanarImage) -> [(UnsafeMutableRawPointer, Int, Int, Int)] {
      let cw = (image.width + 1) / 2, ch = (image.height + 1) / 2
      return [(image.width, image.height), (cw, ch), (cw, ch)].enumerated().map { i, size in
        (UnsafeMutableRawPointer(image.planes[i].baseAddress), size.0, image.strides[i], size.1)
      }
    }
    readThenWrite(source: rows(source).map { (UnsafeRawPointer($0.0), $0.1, $0.2, $0.3) }, destination: rows(destination))
  }
}
