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
    let stride = destination.bytesPerRow
    destination.withUnsafeMutableBytes { base in
      yuyvRows(
        source: source, sourceBytesPerRow: sourceBytesPerRow, width: width, height: destination.height,
        destination: base, destinationBytesPerRow: stride, kernel: YUVToBGRAKernel())
    }
  }

  @inline(never)
  static func yuyvRows(
    source: UnsafeRawPointer, sourceBytesPerRow: Int, width: Int, height: Int,
    destination: UnsafeMutableRawPointer, destinationBytesPerRow: Int, kernel: YUVToBGRAKernel
  ) {
    let vectorPairs = (width / 2) & ~7
    // The widest kernel the build has first; each narrower one takes what is left.
    #if CAMFX_AVX512 && arch(x86_64)
      // Its 64-pixel steps of every row first, two rows at a time.
      var pairRow = 0
      while pairRow < height {
        let second = pairRow + 1 < height ? pairRow + 1 : pairRow
        YUVToBGRAAVX512.yuyvRowPair(
          source0: source + pairRow * sourceBytesPerRow, source1: source + second * sourceBytesPerRow,
          destination0: destination + pairRow * destinationBytesPerRow,
          destination1: destination + second * destinationBytesPerRow, blocks: width / 64)
        pairRow += 2
      }
    #endif
    for row in 0..<height {
      let src = source + row * sourceBytesPerRow
      let dst = destination + row * destinationBytesPerRow
      var pair = 0
      #if CAMFX_AVX512 && arch(x86_64)
        pair = (width / 64) * 32
      #endif
      #if CAMFX_AVX2 && arch(x86_64)
        let blocks = (width - pair * 2) / 32
        YUVToBGRAAVX2.yuyvRow(source: src + pair * 4, destination: dst + pair * 8, blocks: blocks)
        pair += blocks * 16
      #endif
      while pair < vectorPairs {
        // 16 pixels in 32 bytes: Y0 Cb Y1 Cr | Y2 Cb Y3 Cr | ...
        let bytes = YUVToBGRAKernel.yuyvInKernelOrder(src.loadUnaligned(fromByteOffset: pair &* 4, as: SIMD32<UInt8>.self))
        let chroma = kernel.chroma(cb: YUVToBGRAKernel.yuyvChroma(bytes, at: 1), cr: YUVToBGRAKernel.yuyvChroma(bytes, at: 3))
        // Each pixel's Y moved to the high byte of its 16-bit lane (the chroma byte drops out).
        kernel.store16(luma: unsafeBitCast(bytes, to: SIMD16<UInt16>.self) &<< 8, chroma: chroma, to: dst, byteOffset: pair &* 8)
        pair &+= 8
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
    let width = destination.width, height = destination.height
    let stride = destination.bytesPerRow
    destination.withUnsafeMutableBytes { base in
      nv12Rows(
        luma: luma, lumaBytesPerRow: lumaBytesPerRow, chroma: chroma, chromaBytesPerRow: chromaBytesPerRow,
        width: width, height: height, destination: base, destinationBytesPerRow: stride, kernel: YUVToBGRAKernel())
    }
  }

  /// Converts two image rows per chroma row; the portable and AVX-512 loops compute the
  /// chroma terms once for four pixels, the AVX2 one once a row (see `YUVToBGRAAVX2.row32`).
  @inline(never)
  static func nv12Rows(
    luma: UnsafeRawPointer, lumaBytesPerRow: Int, chroma: UnsafeRawPointer, chromaBytesPerRow: Int,
    width: Int, height: Int, destination: UnsafeMutableRawPointer, destinationBytesPerRow: Int,
    kernel: YUVToBGRAKernel
  ) {
    let vectorPairs = (width / 2) & ~7
    var row = 0
    while row < height {
      let cSrc = chroma + (row / 2) * chromaBytesPerRow
      let ySrc0 = luma + row * lumaBytesPerRow, dst0 = destination + row * destinationBytesPerRow
      // A last odd row is converted twice into the same place.
      let second = row + 1 < height ? 1 : 0
      let ySrc1 = ySrc0 + second * lumaBytesPerRow, dst1 = dst0 + second * destinationBytesPerRow
      var pair = 0
      // The widest kernel the build has first; each narrower one takes what is left.
      #if CAMFX_AVX512 && arch(x86_64)
        YUVToBGRAAVX512.nv12RowPair(
          luma0: ySrc0, luma1: ySrc1, chroma: cSrc, destination0: dst0, destination1: dst1, blocks: width / 64)
        pair = (width / 64) * 32
      #endif
      #if CAMFX_AVX2 && arch(x86_64)
        let blocks = (width - pair * 2) / 32
        YUVToBGRAAVX2.nv12Row(luma: ySrc0 + pair * 2, chroma: cSrc + pair * 2, destination: dst0 + pair * 8, blocks: blocks)
        if second == 1 {
          YUVToBGRAAVX2.nv12Row(luma: ySrc1 + pair * 2, chroma: cSrc + pair * 2, destination: dst1 + pair * 8, blocks: blocks)
        }
        pair += blocks * 16
      #endif
      while pair < vectorPairs {
        // Eight chroma pairs Cb Cr for sixteen pixels, and sixteen Y of each row.
        let c = cSrc.loadUnaligned(fromByteOffset: pair &* 2, as: SIMD16<UInt8>.self)
        let cb = SIMD8<UInt8>(c[0], c[2], c[4], c[6], c[8], c[10], c[12], c[14])
        let cr = SIMD8<UInt8>(c[1], c[3], c[5], c[7], c[9], c[11], c[13], c[15])
        let terms = kernel.chroma(cb: YUVToBGRAKernel.pairedHighBytes(cb), cr: YUVToBGRAKernel.pairedHighBytes(cr))
        let y0 = ySrc0.loadUnaligned(fromByteOffset: pair &* 2, as: SIMD16<UInt8>.self)
        kernel.store16(luma: YUVToBGRAKernel.highBytes(y0), chroma: terms, to: dst0, byteOffset: pair &* 8)
        let y1 = ySrc1.loadUnaligned(fromByteOffset: pair &* 2, as: SIMD16<UInt8>.self)
        kernel.store16(luma: YUVToBGRAKernel.highBytes(y1), chroma: terms, to: dst1, byteOffset: pair &* 8)
        pair &+= 8
      }
      nv12Tail(luma: ySrc0, chroma: cSrc, from: pair * 2, width: width, to: dst0)
      nv12Tail(luma: ySrc1, chroma: cSrc, from: pair * 2, width: width, to: dst1)
      row += 2
    }
  }

  /// Converts a yuv420p picture to BGRA (`destination`'s size: the picture's).
  public static func convertI420(_ picture: YUV420Picture, to destination: PixelBuffer) {
    precondition(picture.width == destination.width && picture.height == destination.height, "buffer size differs from picture")
    convertI420(
      luma: picture.y, lumaBytesPerRow: picture.yStride, cb: picture.u, cr: picture.v, chromaBytesPerRow: picture.uStride,
      to: destination)
  }

  /// Converts planar I420 4:2:0 (`V4L2_PIX_FMT_YUV420` "YU12", FFmpeg `yuv420p`) to BGRA.
  /// `swapChroma` reads the planes as YV12 (Cr plane first).
  public static func convertI420(
    luma: UnsafeRawPointer, lumaBytesPerRow: Int,
    cb: UnsafeRawPointer, cr: UnsafeRawPointer, chromaBytesPerRow: Int,
    to destination: PixelBuffer
  ) {
    let width = destination.width, height = destination.height
    let stride = destination.bytesPerRow
    destination.withUnsafeMutableBytes { base in
      i420Rows(
        luma: luma, lumaBytesPerRow: lumaBytesPerRow, cb: cb, cr: cr, chromaBytesPerRow: chromaBytesPerRow,
        width: width, height: height, destination: base, destinationBytesPerRow: stride, kernel: YUVToBGRAKernel())
    }
  }

  /// Two image rows per chroma row, like `nv12Rows`.
  @inline(never)
  static func i420Rows(
    luma: UnsafeRawPointer, lumaBytesPerRow: Int, cb: UnsafeRawPointer, cr: UnsafeRawPointer,
    chromaBytesPerRow: Int, width: Int, height: Int,
    destination: UnsafeMutableRawPointer, destinationBytesPerRow: Int, kernel: YUVToBGRAKernel
  ) {
    let vectorPairs = (width / 2) & ~7
    var row = 0
    while row < height {
      let cbSrc = cb + (row / 2) * chromaBytesPerRow, crSrc = cr + (row / 2) * chromaBytesPerRow
      let ySrc0 = luma + row * lumaBytesPerRow, dst0 = destination + row * destinationBytesPerRow
      let second = row + 1 < height ? 1 : 0
      let ySrc1 = ySrc0 + second * lumaBytesPerRow, dst1 = dst0 + second * destinationBytesPerRow
      var pair = 0
      #if CAMFX_AVX512 && arch(x86_64)
        YUVToBGRAAVX512.i420RowPair(
          luma0: ySrc0, luma1: ySrc1, cb: cbSrc, cr: crSrc, destination0: dst0, destination1: dst1,
          blocks: width / 64)
        pair = (width / 64) * 32
      #endif
      #if CAMFX_AVX2 && arch(x86_64)
        let blocks = (width - pair * 2) / 32
        YUVToBGRAAVX2.i420Row(luma: ySrc0 + pair * 2, cb: cbSrc + pair, cr: crSrc + pair, destination: dst0 + pair * 8, blocks: blocks)
        if second == 1 {
          YUVToBGRAAVX2.i420Row(luma: ySrc1 + pair * 2, cb: cbSrc + pair, cr: crSrc + pair, destination: dst1 + pair * 8, blocks: blocks)
        }
        pair += blocks * 16
      #endif
      while pair < vectorPairs {
        let terms = kernel.chroma(
          cb: YUVToBGRAKernel.pairedHighBytes(cbSrc.loadUnaligned(fromByteOffset: pair, as: SIMD8<UInt8>.self)),
          cr: YUVToBGRAKernel.pairedHighBytes(crSrc.loadUnaligned(fromByteOffset: pair, as: SIMD8<UInt8>.self)))
        let y0 = ySrc0.loadUnaligned(fromByteOffset: pair &* 2, as: SIMD16<UInt8>.self)
        kernel.store16(luma: YUVToBGRAKernel.highBytes(y0), chroma: terms, to: dst0, byteOffset: pair &* 8)
        let y1 = ySrc1.loadUnaligned(fromByteOffset: pair &* 2, as: SIMD16<UInt8>.self)
        kernel.store16(luma: YUVToBGRAKernel.highBytes(y1), chroma: terms, to: dst1, byteOffset: pair &* 8)
        pair &+= 8
      }
      i420Tail(luma: ySrc0, cb: cbSrc, cr: crSrc, from: pair * 2, width: width, to: dst0)
      i420Tail(luma: ySrc1, cb: cbSrc, cr: crSrc, from: pair * 2, width: width, to: dst1)
      row += 2
    }
  }

  /// The scalar end of one NV12 row, from pixel `start`.
  @inline(__always)
  static func nv12Tail(
    luma: UnsafeRawPointer, chroma: UnsafeRawPointer, from start: Int, width: Int, to dst: UnsafeMutableRawPointer
  ) {
    let out = dst.assumingMemoryBound(to: UInt32.self)
    var x = start
    while x < width {
      let cb = Int32(chroma.load(fromByteOffset: (x / 2) * 2, as: UInt8.self))
      let cr = Int32(chroma.load(fromByteOffset: (x / 2) * 2 + 1, as: UInt8.self))
      out[x] = bgra(y: Int32(luma.load(fromByteOffset: x, as: UInt8.self)), cb: cb, cr: cr)
      x += 1
    }
  }

  /// The scalar end of one I420 row, from pixel `start`.
  @inline(__always)
  static func i420Tail(
    luma: UnsafeRawPointer, cb: UnsafeRawPointer, cr: UnsafeRawPointer, from start: Int, width: Int,
    to dst: UnsafeMutableRawPointer
  ) {
    let out = dst.assumingMemoryBound(to: UInt32.self)
    var x = start
    while x < width {
      let u = Int32(cb.load(fromByteOffset: x / 2, as: UInt8.self))
      let v = Int32(cr.load(fromByteOffset: x / 2, as: UInt8.self))
      out[x] = bgra(y: Int32(luma.load(fromByteOffset: x, as: UInt8.self)), cb: u, cr: v)
      x += 1
    }
  }
}
