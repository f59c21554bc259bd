import CamfxCore

extension PixelConverter {
  /// Converts packed 24-bit RGB (`V4L2_PIX_FMT_RGB24`: bytes R, G, B) to BGRA.
  public static func convertRGB24(
    source: UnsafeRawPointer, sourceBytesPerRow: Int, to destination: PixelBuffer
  ) {
    convertPacked24(source: source, sourceBytesPerRow: sourceBytesPerRow, to: destination, redFirst: true)
  }

  /// Converts packed 24-bit BGR (`V4L2_PIX_FMT_BGR24`: bytes B, G, R) to BGRA.
  public static func convertBGR24(
    source: UnsafeRawPointer, sourceBytesPerRow: Int, to destination: PixelBuffer
  ) {
    convertPacked24(source: source, sourceBytesPerRow: sourceBytesPerRow, to: destination, redFirst: false)
  }

  @inline(__always)
  static func convertPacked24(
    source: UnsafeRawPointer, sourceBytesPerRow: Int, to destination: PixelBuffer, redFirst: Bool
  ) {
    let width = destination.width
    forEachRow(of: destination) { row, dst in
      let src = (source + row * sourceBytesPerRow).assumingMemoryBound(to: UInt8.self)
      let out = dst.assumingMemoryBound(to: UInt32.self)
      if redFirst {
        for x in 0..<width {
          let p = src + x * 3
          out[x] = UInt32(p[2]) | UInt32(p[1]) << 8 | UInt32(p[0]) << 16 | 0xFF00_0000
        }
      } else {
        for x in 0..<width {
          let p = src + x * 3
          out[x] = UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | 0xFF00_0000
        }
      }
    }
  }
}
