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
      let pairs = (width + 1) / 2
      var row = 0
      while row < height {
        let top = (base + row * stride).assumingMemoryBound(to: UInt8.self)
        let bottom = row + 1 < height ? (base + (row + 1) * stride).assumingMemoryBound(to: UInt8.self) : top
        let y0 = picture.y + row * picture.yStride
        let y1 = row + 1 < height ? picture.y + (row + 1) * picture.yStride : y0
        let u = picture.u + (row / 2) * picture.uStride, v = picture.v + (row / 2) * picture.vStride
        for pair in 0..<pairs {
          let t = top + pair * 4, b = bottom + pair * 4
          let x = pair * 2
          y0[x] = t[0]
          y1[x] = b[0]
          if x + 1 < width {
            y0[x + 1] = t[2]
            y1[x + 1] = b[2]
          }
          u[pair] = UInt8((UInt16(t[1]) + UInt16(b[1]) + 1) >> 1)
          v[pair] = UInt8((UInt16(t[3]) + UInt16(b[3]) + 1) >> 1)
        }
        row += 2
      }
    case .nv12(let luma, let lumaStride, let chroma, let chromaStride):
      copyPlane(luma, stride: lumaStride, to: picture.y, stride: picture.yStride, width: width, height: height)
      for row in 0..<picture.chromaHeight {
        let from = (chroma + row * chromaStride).assumingMemoryBound(to: UInt8.self)
        let u = picture.u + row * picture.uStride, v = picture.v + row * picture.vStride
        for x in 0..<picture.chromaWidth {
          u[x] = from[2 * x]
          v[x] = from[2 * x + 1]
        }
      }
    case .i420(let luma, let lumaStride, let cb, let cr, let chromaStride):
      copyPlane(luma, stride: lumaStride, to: picture.y, stride: picture.yStride, width: width, height: height)
      copyPlane(cb, stride: chromaStride, to: picture.u, stride: picture.uStride, width: picture.chromaWidth, height: picture.chromaHeight)
      copyPlane(cr, stride: chromaStride, to: picture.v, stride: picture.vStride, width: picture.chromaWidth, height: picture.chromaHeight)
    }
  }

  private func copyPlane(
    _ from: UnsafeRawPointer, stride: Int, to: UnsafeMutablePointer<UInt8>, stride toStride: Int, width: Int, height: Int
  ) {
    for row in 0..<height {
      (to + row * toStride).update(from: (from + row * stride).assumingMemoryBound(to: UInt8.self), count: width)
    }
  }
}
