import CamfxCore

extension PixelConverter {
  /// Converts packed YUYV 4:2:2 (`V4L2_PIX_FMT_YUYV`, FFmpeg `yuyv422`) to BGRA.
  ///
  ///     source row:  Y0 Cb Y1 Cr | Y2 Cb Y3 Cr | ...   (2 bytes per pixel)
  ///
  /// - Parameters:
  ///   - source: the first byte of the top row.
  ///   - sourceBytesPerRow: distance between rows (at least `2 * width`, rounded up to
  ///     whole pairs for odd widths).
  ///   - destination: the BGRA frame to fill; its width and height are the image size.
  public static func convertYUYV(
    source: UnsafeRawPointer, sourceBytesPerRow: Int, to destination: PixelBuffer
  ) {
    let width = destination.width
    let pairs = width / 2
    let vectorPairs = pairs & ~7
    forEachRow(of: destination) { row, dst in
      let src = source + row * sourceBytesPerRow
      var pair = 0
      while pair < vectorPairs {
        let words = src.loadUnaligned(fromByteOffset: pair * 4, as: SIMD8<UInt32>.self)
        let y0 = SIMD8<Int32>(truncatingIfNeeded: words & 0xFF)
        let cb = SIMD8<Int32>(truncatingIfNeeded: (words &>> 8) & 0xFF)
        let y1 = SIMD8<Int32>(truncatingIfNeeded: (words &>> 16) & 0xFF)
        let cr = SIMD8<Int32>(truncatingIfNeeded: words &>> 24)
        dst.storeBytes(of: bgra(y0: y0, y1: y1, cb: cb, cr: cr), toByteOffset: pair * 8, as: SIMD8<UInt64>.self)
        pair += 8
      }
      let out = dst.assumingMemoryBound(to: UInt32.self)
      while pair * 2 < width {
        let p = src + pair * 4
        let cb = Int32(p.load(fromByteOffset: 1, as: UInt8.self))
        let cr = Int32(p.load(fromByteOffset: 3, as: UInt8.self))
        out[pair * 2] = bgra(y: Int32(p.load(as: UInt8.self)), cb: cb, cr: cr)
        if pair * 2 + 1 < width {
          out[pair * 2 + 1] = bgra(y: Int32(p.load(fromByteOffset: 2, as: UInt8.self)), cb: cb, cr: cr)
        }
        pair += 1
      }
    }
  }

  /// Converts semi-planar NV12 4:2:0 (`V4L2_PIX_FMT_NV12`, FFmpeg `nv12`) to BGRA.
  ///
  ///     luma plane:    Y Y Y Y ...            one row per image row
  ///     chroma plane:  Cb Cr Cb Cr ...        one row per two image rows
  ///
  /// - Parameters:
  ///   - luma: first byte of the Y plane; `lumaBytesPerRow` apart.
  ///   - chroma: first byte of the interleaved CbCr plane; `chromaBytesPerRow` apart.
  ///   - destination: the BGRA frame to fill.
  public static func convertNV12(
    luma: UnsafeRawPointer, lumaBytesPerRow: Int,
    chroma: UnsafeRawPointer, chromaBytesPerRow: Int,
    to destination: PixelBuffer
  ) {
    let width = destination.width
    let vectorPairs = (width / 2) & ~7
    forEachRow(of: destination) { row, dst in
      let ySrc = luma + row * lumaBytesPerRow
      let cSrc = chroma + (row / 2) * chromaBytesPerRow
      var pair = 0
      while pair < vectorPairs {
        let ys = ySrc.loadUnaligned(fromByteOffset: pair * 2, as: SIMD8<UInt16>.self)
        let cs = cSrc.loadUnaligned(fromByteOffset: pair * 2, as: SIMD8<UInt16>.self)
        let y0 = SIMD8<Int32>(truncatingIfNeeded: ys & 0xFF)
        let y1 = SIMD8<Int32>(truncatingIfNeeded: ys &>> 8)
        let cb = SIMD8<Int32>(truncatingIfNeeded: cs & 0xFF)
        let cr = SIMD8<Int32>(truncatingIfNeeded: cs &>> 8)
        dst.storeBytes(of: bgra(y0: y0, y1: y1, cb: cb, cr: cr), toByteOffset: pair * 8, as: SIMD8<UInt64>.self)
        pair += 8
      }
      let out = dst.assumingMemoryBound(to: UInt32.self)
      var x = pair * 2
      while x < width {
        let cb = Int32(cSrc.load(fromByteOffset: (x / 2) * 2, as: UInt8.self))
        let cr = Int32(cSrc.load(fromByteOffset: (x / 2) * 2 + 1, as: UInt8.self))
        out[x] = bgra(y: Int32(ySrc.load(fromByteOffset: x, as: UInt8.self)), cb: cb, cr: cr)
        x += 1
      }
    }
  }

  /// Converts planar I420 4:2:0 (`V4L2_PIX_FMT_YUV420` "YU12", FFmpeg `yuv420p`) to BGRA.
  /// `swapChroma` reads the planes as YV12 (Cr plane first).
  public static func convertI420(
    luma: UnsafeRawPointer, lumaBytesPerRow: Int,
    cb: UnsafeRawPointer, cr: UnsafeRawPointer, chromaBytesPerRow: Int,
    to destination: PixelBuffer
  ) {
    let width = destination.width
    let vectorPairs = (width / 2) & ~7
    forEachRow(of: destination) { row, dst in
      let ySrc = luma + row * lumaBytesPerRow
      let cbSrc = cb + (row / 2) * chromaBytesPerRow
      let crSrc = cr + (row / 2) * chromaBytesPerRow
      var pair = 0
      while pair < vectorPairs {
        let ys = ySrc.loadUnaligned(fromByteOffset: pair * 2, as: SIMD8<UInt16>.self)
        let y0 = SIMD8<Int32>(truncatingIfNeeded: ys & 0xFF)
        let y1 = SIMD8<Int32>(truncatingIfNeeded: ys &>> 8)
        let u = SIMD8<Int32>(truncatingIfNeeded: cbSrc.loadUnaligned(fromByteOffset: pair, as: SIMD8<UInt8>.self))
        let v = SIMD8<Int32>(truncatingIfNeeded: crSrc.loadUnaligned(fromByteOffset: pair, as: SIMD8<UInt8>.self))
        dst.storeBytes(of: bgra(y0: y0, y1: y1, cb: u, cr: v), toByteOffset: pair * 8, as: SIMD8<UInt64>.self)
        pair += 8
      }
      let out = dst.assumingMemoryBound(to: UInt32.self)
      var x = pair * 2
      while x < width {
        let u = Int32(cbSrc.load(fromByteOffset: x / 2, as: UInt8.self))
        let v = Int32(crSrc.load(fromByteOffset: x / 2, as: UInt8.self))
        out[x] = bgra(y: Int32(ySrc.load(fromByteOffset: x, as: UInt8.self)), cb: u, cr: v)
        x += 1
      }
    }
  }
}
