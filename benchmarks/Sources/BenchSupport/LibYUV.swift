import Camfx
import CPeers

/// libyuv's functions on camfx buffers. libyuv's "ARGB" is camfx's BGRA byte order.
public enum LibYUV {
  /// `ARGBGray`, in place.
  public static func gray(_ frame: PixelBuffer) throws(PeerError) {
    let code = frame.withUnsafeMutableBytes {
      camfx_yuv_gray($0.assumingMemoryBound(to: UInt8.self), Int32(frame.bytesPerRow), Int32(frame.width), Int32(frame.height))
    }
    try PeerError.check(code, "ARGBGray")
  }

  /// `ARGBMirror`, from `source` into `destination` (libyuv cannot mirror in place).
  public static func mirror(_ source: PixelBuffer, into destination: PixelBuffer) throws(PeerError) {
    try frameToFrame(camfx_yuv_mirror, source, into: destination, "ARGBMirror")
  }

  /// `ARGBCopy` of all of `source` (already narrowed to the rectangle) into `destination`.
  public static func copy(_ source: PixelBuffer, into destination: PixelBuffer) throws(PeerError) {
    try frameToFrame(camfx_yuv_copy, source, into: destination, "ARGBCopy")
  }

  /// `ARGBBlend` of premultiplied `mark` over `frame` at (x, y), in place.
  public static func blend(_ mark: PixelBuffer, over frame: PixelBuffer, x: Int, y: Int) throws(PeerError) {
    var target = frame
    target.crop(x: x, y: y, width: mark.width, height: mark.height)
    let code = mark.withUnsafeBytes { fg in
      target.withUnsafeMutableBytes { bg in
        camfx_yuv_blend(
          fg.assumingMemoryBound(to: UInt8.self), Int32(mark.bytesPerRow),
          bg.assumingMemoryBound(to: UInt8.self), Int32(target.bytesPerRow),
          bg.assumingMemoryBound(to: UInt8.self), Int32(target.bytesPerRow),
          Int32(mark.width), Int32(mark.height))
      }
    }
    try PeerError.check(code, "ARGBBlend")
  }

  /// `ARGBAttenuate`: a premultiplied copy of a straight-alpha image.
  public static func premultiplied(_ image: PixelBuffer) throws(PeerError) -> PixelBuffer {
    let result = PixelBuffer(width: image.width, height: image.height)
    try frameToFrame(camfx_yuv_attenuate, image, into: result, "ARGBAttenuate")
    return result
  }

  /// `ARGBToI420`.
  public static func toI420(_ frame: PixelBuffer, into image: PlanarImage) throws(PeerError) {
    let p = image.planes, s = image.strides
    let code = frame.withUnsafeBytes {
      camfx_yuv_argb_to_i420(
        $0.assumingMemoryBound(to: UInt8.self), Int32(frame.bytesPerRow),
        p[0].baseAddress, Int32(s[0]), p[1].baseAddress, Int32(s[1]), p[2].baseAddress, Int32(s[2]),
        Int32(frame.width), Int32(frame.height))
    }
    try PeerError.check(code, "ARGBToI420")
  }

  /// `YUY2ToARGB`.
  public static func fromYUY2(_ image: PlanarImage, into frame: PixelBuffer) throws(PeerError) {
    let code = frame.withUnsafeMutableBytes {
      camfx_yuv_yuy2_to_argb(
        image.planes[0].baseAddress, Int32(image.strides[0]),
        $0.assumingMemoryBound(to: UInt8.self), Int32(frame.bytesPerRow), Int32(frame.width), Int32(frame.height))
    }
    try PeerError.check(code, "YUY2ToARGB")
  }

  /// `YUY2ToI420`.
  public static func yuy2ToI420(_ image: PlanarImage, into planes: PlanarImage) throws(PeerError) {
    let p = planes.planes, s = planes.strides
    let code = camfx_yuv_yuy2_to_i420(
      image.planes[0].baseAddress, Int32(image.strides[0]),
      p[0].baseAddress, Int32(s[0]), p[1].baseAddress, Int32(s[1]), p[2].baseAddress, Int32(s[2]),
      Int32(image.width), Int32(image.height))
    try PeerError.check(code, "YUY2ToI420")
  }

  /// `NV12ToI420`.
  public static func nv12ToI420(_ image: PlanarImage, into planes: PlanarImage) throws(PeerError) {
    let p = planes.planes, s = planes.strides
    let code = camfx_yuv_nv12_to_i420(
      image.planes[0].baseAddress, Int32(image.strides[0]), image.planes[1].baseAddress, Int32(image.strides[1]),
      p[0].baseAddress, Int32(s[0]), p[1].baseAddress, Int32(s[1]), p[2].baseAddress, Int32(s[2]),
      Int32(image.width), Int32(image.height))
    try PeerError.check(code, "NV12ToI420")
  }

  /// `NV12ToARGB`.
  public static func fromNV12(_ image: PlanarImage, into frame: PixelBuffer) throws(PeerError) {
    let code = frame.withUnsafeMutableBytes {
      camfx_yuv_nv12_to_argb(
        image.planes[0].baseAddress, Int32(image.strides[0]), image.planes[1].baseAddress, Int32(image.strides[1]),
        $0.assumingMemoryBound(to: UInt8.self), Int32(frame.bytesPerRow), Int32(frame.width), Int32(frame.height))
    }
    try PeerError.check(code, "NV12ToARGB")
  }

  /// `I420ToARGB`.
  public static func fromI420(_ image: PlanarImage, into frame: PixelBuffer) throws(PeerError) {
    let code = frame.withUnsafeMutableBytes {
      camfx_yuv_i420_to_argb(
        image.planes[0].baseAddress, Int32(image.strides[0]), image.planes[1].baseAddress, Int32(image.strides[1]),
        image.planes[2].baseAddress, Int32(image.strides[2]),
        $0.assumingMemoryBound(to: UInt8.self), Int32(frame.bytesPerRow), Int32(frame.width), Int32(frame.height))
    }
    try PeerError.check(code, "I420ToARGB")
  }
  /// `ARGBScale` from `source` into `destination` (their own sizes).
  public static func scale(_ source: PixelBuffer, into destination: PixelBuffer, method: camfx_peer_scale_method) throws(PeerError) {
    let code = source.withUnsafeBytes { src in
      destination.withUnsafeMutableBytes { dst in
        camfx_yuv_argb_scale(
          src.assumingMemoryBound(to: UInt8.self), Int32(source.bytesPerRow), Int32(source.width), Int32(source.height),
          dst.assumingMemoryBound(to: UInt8.self), Int32(destination.bytesPerRow), Int32(destination.width),
          Int32(destination.height), method)
      }
    }
    try PeerError.check(code, "ARGBScale")
  }

  /// `I420Scale` from `source` into `destination` (their own sizes).
  public static func scale(_ source: PlanarImage, into destination: PlanarImage, method: camfx_peer_scale_method) throws(PeerError) {
    let code = withPlanes(source, destination) { src, srcStride, dst, dstStride in
      camfx_yuv_i420_scale(
        src, srcStride, Int32(source.width), Int32(source.height), dst, dstStride, Int32(destination.width),
        Int32(destination.height), method)
    }
    try PeerError.check(code, "I420Scale")
  }

  /// `ARGBRotate` clockwise by `degrees`.
  public static func rotate(_ source: PixelBuffer, into destination: PixelBuffer, degrees: Int32) throws(PeerError) {
    let code = source.withUnsafeBytes { src in
      destination.withUnsafeMutableBytes { dst in
        camfx_yuv_argb_rotate(
          src.assumingMemoryBound(to: UInt8.self), Int32(source.bytesPerRow), dst.assumingMemoryBound(to: UInt8.self),
          Int32(destination.bytesPerRow), Int32(source.width), Int32(source.height), degrees)
      }
    }
    try PeerError.check(code, "ARGBRotate")
  }

  /// `I420Rotate` clockwise by `degrees`.
  public static func rotate(_ source: PlanarImage, into destination: PlanarImage, degrees: Int32) throws(PeerError) {
    let code = withPlanes(source, destination) { src, srcStride, dst, dstStride in
      camfx_yuv_i420_rotate(src, srcStride, dst, dstStride, Int32(source.width), Int32(source.height), degrees)
    }
    try PeerError.check(code, "I420Rotate")
  }

  /// The three planes and strides of two yuv420p images as C arrays, on the stack.
  private static func withPlanes(
    _ source: PlanarImage, _ destination: PlanarImage,
    _ body: (UnsafePointer<UnsafePointer<UInt8>?>, UnsafePointer<Int32>, UnsafePointer<UnsafeMutablePointer<UInt8>?>, UnsafePointer<Int32>) -> Int32
  ) -> Int32 {
    let s = source.planes, d = destination.planes
    var src: (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) =
      (UnsafePointer(s[0].baseAddress), UnsafePointer(s[1].baseAddress), UnsafePointer(s[2].baseAddress))
    var dst: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) =
      (d[0].baseAddress, d[1].baseAddress, d[2].baseAddress)
    var srcStride = (Int32(source.strides[0]), Int32(source.strides[1]), Int32(source.strides[2]))
    var dstStride = (Int32(destination.strides[0]), Int32(destination.strides[1]), Int32(destination.strides[2]))
    return withUnsafePointer(to: &src) { sp in
      withUnsafePointer(to: &dst) { dp in
        withUnsafePointer(to: &srcStride) { ssp in
          withUnsafePointer(to: &dstStride) { dsp in
            sp.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 3) { srcPlanes in
              dp.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 3) { dstPlanes in
                ssp.withMemoryRebound(to: Int32.self, capacity: 3) { srcStrides in
                  dsp.withMemoryRebound(to: Int32.self, capacity: 3) { dstStrides in
                    body(srcPlanes, srcStrides, dstPlanes, dstStrides)
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  /// Calls a libyuv BGRA-to-BGRA function, `(src, srcStride, dst, dstStride, width, height)`,
  /// on `source`'s size: the shape ARGBMirror, ARGBCopy and ARGBAttenuate share.
  private static func frameToFrame(
    _ function: (UnsafePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32) -> Int32,
    _ source: PixelBuffer, into destination: PixelBuffer, _ name: String
  ) throws(PeerError) {
    let code = source.withUnsafeBytes { src in
      destination.withUnsafeMutableBytes { dst in
        function(
          src.assumingMemoryBound(to: UInt8.self), Int32(source.bytesPerRow),
          dst.assumingMemoryBound(to: UInt8.self), Int32(destination.bytesPerRow),
          Int32(source.width), Int32(source.height))
      }
    }
    try PeerError.check(code, name)
  }
}
