import CamfxCore

/// Where a source's YUV picture lies in memory (a camera's mapped buffer, a decoder's
/// frame), in one of the layouts camfx converts itself, both ways the pipeline may want
/// it: to BGRA for filters that need it, or straight to yuv420p (I420) for a chain and
/// an encoder that work on yuv420p, with no BGRA in between.
///
///     yuyv:  Y0 U0 Y1 V0 | Y2 U1 Y3 V1 ...        one row, two pixels per 4 bytes
///     nv12:  Y plane; then one row of U V U V ... per two rows of pixels
///     i420:  Y plane; U plane; V plane (half width, half height)
///
/// Going to yuv420p, Y is copied and each chroma sample of a 4:2:2 source (YUYV) is the
/// rounded mean of its two rows (`(a + b + 1) / 2`), as libyuv's `YUY2ToI420` takes it;
/// 4:2:0 sources keep their chroma as it is.
public enum YUVSourceLayout {
  case yuyv(UnsafeRawPointer, bytesPerRow: Int)
  case nv12(luma: UnsafeRawPointer, lumaBytesPerRow: Int, chroma: UnsafeRawPointer, chromaBytesPerRow: Int)
  case i420(luma: UnsafeRawPointer, lumaBytesPerRow: Int, cb: UnsafeRawPointer, cr: UnsafeRawPointer, chromaBytesPerRow: Int)

  /// Converts to BGRA, a frame of the picture's size.
  public func convert(to frame: PixelBuffer) {
    switch self {
    case .yuyv(let base, let stride):
      PixelConverter.convertYUYV(source: base, sourceBytesPerRow: stride, to: frame)
    case .nv12(let luma, let lumaStride, let chroma, let chromaStride):
      PixelConverter.convertNV12(luma: luma, lumaBytesPerRow: lumaStride, chroma: chroma, chromaBytesPerRow: chromaStride, to: frame)
    case .i420(let luma, let lumaStride, let cb, let cr, let chromaStride):
      PixelConverter.convertI420(luma: luma, lumaBytesPerRow: lumaStride, cb: cb, cr: cr, chromaBytesPerRow: chromaStride, to: frame)
    }
  }

  /// Converts to yuv420p, a picture of the picture's size. Allocates nothing.
  public func convert(to picture: YUV420Picture) {
    let width = picture.width, height = picture.height
    switch self {
    case .yuyv(let base, let stride):
      var row = 0
      while row < height {
        let bottomRow = min(row + 1, height - 1)
        Self.yuyvRowPair(
          top: base + row * stride, bottom: base + bottomRow * stride, width: width,
          yTop: picture.y + row * picture.yStride, yBottom: picture.y + bottomRow * picture.yStride,
          u: picture.u + (row / 2) * picture.uStride, v: picture.v + (row / 2) * picture.vStride)
        row += 2
      }
    case .nv12(let luma, let lumaStride, let chroma, let chromaStride):
      copyPlane(luma, stride: lumaStride, to: picture.y, stride: picture.yStride, width: width, height: height)
      for row in 0..<picture.chromaHeight {
        let line = chroma + row * chromaStride
        let from = line.assumingMemoryBound(to: UInt8.self)
        let u = picture.u + row * picture.uStride, v = picture.v + row * picture.vStride
        var x = 0
        #if CAMFX_AVX2 && arch(x86_64)
        x = Self.deinterleaveAVX2(line, u: u, v: v, pairs: picture.chromaWidth)
        #endif
        // 16 U V pairs per step: each pair is one 16-bit lane, U its low byte.
        while x + 16 <= picture.chromaWidth {
          let pairs = line.loadUnaligned(fromByteOffset: x * 2, as: SIMD16<UInt16>.self)
          UnsafeMutableRawPointer(u + x).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: pairs), as: SIMD16<UInt8>.self)
          UnsafeMutableRawPointer(v + x).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: pairs &>> 8), as: SIMD16<UInt8>.self)
          x += 16
        }
        while x < picture.chromaWidth {
          u[x] = from[2 * x]
          v[x] = from[2 * x + 1]
          x += 1
        }
      }
    case .i420(let luma, let lumaStride, let cb, let cr, let chromaStride):
      copyPlane(luma, stride: lumaStride, to: picture.y, stride: picture.yStride, width: width, height: height)
      copyPlane(cb, stride: chromaStride, to: picture.u, stride: picture.uStride, width: picture.chromaWidth, height: picture.chromaHeight)
      copyPlane(cr, stride: chromaStride, to: picture.v, stride: picture.vStride, width: picture.chromaWidth, height: picture.chromaHeight)
    }
  }

  /// Converts to yuv420p like `convert(to:)`, and runs `chain` on each band of
  /// `YUV420Picture.bandRows` rows as soon as it is converted, while it is still in the
  /// core's cache: the same samples as converting the whole picture and then running the
  /// chain on it, without that second pass over a picture that has left the cache.
  /// Allocates nothing.
  /// - Precondition: `chain.runsOnYUV420Bands`, configured for the picture's size.
  public func convert(to picture: YUV420Picture, filteringBandsWith chain: FilterChain) {
    precondition(chain.runsOnYUV420Bands && chain.inputGeometry == picture.geometry, "a chain for yuv420p bands of \(picture.geometry)")
    picture.forEachBand { band, firstRow in
      rows(from: firstRow).convert(to: band)
      chain.process(yuv420Band: band, firstRow: firstRow)
    }
  }

  /// The same picture from row `row` (even) on.
  func rows(from row: Int) -> YUVSourceLayout {
    switch self {
    case .yuyv(let base, let stride):
      return .yuyv(base + row * stride, bytesPerRow: stride)
    case .nv12(let luma, let lumaStride, let chroma, let chromaStride):
      return .nv12(luma: luma + row * lumaStride, lumaBytesPerRow: lumaStride, chroma: chroma + row / 2 * chromaStride, chromaBytesPerRow: chromaStride)
    case .i420(let luma, let lumaStride, let cb, let cr, let chromaStride):
      return .i420(
        luma: luma + row * lumaStride, lumaBytesPerRow: lumaStride, cb: cb + row / 2 * chromaStride, cr: cr + row / 2 * chromaStride,
        chromaBytesPerRow: chromaStride)
    }
  }

  /// Two rows of YUYV into two rows of Y and one of U and V. Sixteen pixels per step in
  /// 16-bit lanes, no shuffles: each pixel pair's bytes `Y0 U Y1 V` are two 16-bit lanes,
  /// whose low bytes are the Ys and high bytes U and V; the rows' U/V lanes are averaged
  /// (rounding up at .5, as `pavgb`), and U and V are the low and high halves of each
  /// 32-bit lane. The rest of the row goes pixel pair by pixel pair. With AVX2, 32 pixels
  /// a step go first (`YUVSourceLayout+AVX2.swift`): LLVM makes long shuffle sequences of
  /// the truncations here, which left this loop behind libyuv's `YUY2ToI420`.
  static func yuyvRowPair(
    top: UnsafeRawPointer, bottom: UnsafeRawPointer, width: Int,
    yTop: UnsafeMutablePointer<UInt8>, yBottom: UnsafeMutablePointer<UInt8>,
    u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>
  ) {
    typealias Lanes = SIMD16<UInt16>
    let pairs = (width + 1) / 2
    var pair = 0
    #if CAMFX_AVX2 && arch(x86_64)
    pair = yuyvRowPairAVX2(top: top, bottom: bottom, pairs: width / 2, yTop: yTop, yBottom: yBottom, u: u, v: v)
    #endif
    // 8 pairs (16 pixels, 32 bytes) per step, while they are whole pixels of the row.
    // The top row's Y first, then the bottom row's with U and V, as the AVX2 loop: a
    // frame from memory (a camera's) converts faster with fewer streams at a time; a
    // frame in the cache, where this loop's arithmetic is the slower part, loses a little.
    let first = pair
    while pair + 8 <= width / 2 {
      let t = top.loadUnaligned(fromByteOffset: pair * 4, as: Lanes.self)
      UnsafeMutableRawPointer(yTop + pair * 2).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: t), as: SIMD16<UInt8>.self)
      pair += 8
    }
    pair = first
    while pair + 8 <= width / 2 {
      let t = top.loadUnaligned(fromByteOffset: pair * 4, as: Lanes.self)
      let b = bottom.loadUnaligned(fromByteOffset: pair * 4, as: Lanes.self)
      UnsafeMutableRawPointer(yBottom + pair * 2).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: b), as: SIMD16<UInt8>.self)
      let chroma = ((t &>> 8) &+ (b &>> 8) &+ 1) &>> 1  // U0 V0 U1 V1 ... as 16-bit lanes
      let words = unsafeBitCast(chroma, to: SIMD8<UInt32>.self)
      UnsafeMutableRawPointer(u + pair).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: words), as: SIMD8<UInt8>.self)
      UnsafeMutableRawPointer(v + pair).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: words &>> 16), as: SIMD8<UInt8>.self)
      pair += 8
    }
    let t = top.assumingMemoryBound(to: UInt8.self), b = bottom.assumingMemoryBound(to: UInt8.self)
    while pair < pairs {
      let x = pair * 2, p = pair * 4
      yTop[x] = t[p]
      yBottom[x] = b[p]
      if x + 1 < width {
        yTop[x + 1] = t[p + 2]
        yBottom[x + 1] = b[p + 2]
      }
      u[pair] = UInt8((UInt16(t[p + 1]) + UInt16(b[p + 1]) + 1) >> 1)
      v[pair] = UInt8((UInt16(t[p + 3]) + UInt16(b[p + 3]) + 1) >> 1)
      pair += 1
    }
  }

  /// Rows one by one, or the whole plane in one `memcpy` where both planes' rows are
  /// back to back (a camera's and the pool's usually are): libc copies a large block
  /// with `rep movsb` or streaming stores, which write whole cache lines without reading
  /// them first; a row at a time it takes plain vector stores, and each cold destination
  /// line is read before it is written (measured: `camfx-compare`'s nv12-to-yuv420p).
  private func copyPlane(
    _ from: UnsafeRawPointer, stride: Int, to: UnsafeMutablePointer<UInt8>, stride toStride: Int, width: Int, height: Int
  ) {
    if stride == width && toStride == width {
      to.update(from: from.assumingMemoryBound(to: UInt8.self), count: width * height)
      return
    }
    for row in 0..<height {
      (to + row * toStride).update(from: (from + row * stride).assumingMemoryBound(to: UInt8.self), count: width)
    }
  }
}
