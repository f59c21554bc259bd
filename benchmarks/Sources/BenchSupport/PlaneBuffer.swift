/// One 64-byte-aligned block of bytes for a planar or packed non-BGRA image (YUYV,
/// NV12, yuv420p), which camfx's `PixelBuffer` (BGRA only) cannot hold.
///
/// `@unchecked Sendable`: the benchmarks touch a plane from one thread at a time.
public final class PlaneBuffer: @unchecked Sendable {
  public let baseAddress: UnsafeMutablePointer<UInt8>
  public let byteCount: Int

  public init(byteCount: Int) {
    self.byteCount = byteCount
    baseAddress = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: 64)
      .bindMemory(to: UInt8.self, capacity: max(byteCount, 1))
    baseAddress.initialize(repeating: 0, count: max(byteCount, 1))
  }

  deinit { baseAddress.deallocate() }
}

/// Planes of one frame in a format other than BGRA, as FFmpeg describes them: up to
/// three planes, each with its own row stride.
public struct PlanarImage: Sendable {
  public let width: Int
  public let height: Int
  public let planes: [PlaneBuffer]
  public let strides: [Int]

  /// yuv420p: Y (width × height), then U and V at half width and height (rounded up).
  public static func yuv420p(width: Int, height: Int) -> PlanarImage {
    let yStride = align64(width), cStride = align64((width + 1) / 2), cHeight = (height + 1) / 2
    return PlanarImage(
      width: width, height: height,
      planes: [PlaneBuffer(byteCount: yStride * height), PlaneBuffer(byteCount: cStride * cHeight),
               PlaneBuffer(byteCount: cStride * cHeight)],
      strides: [yStride, cStride, cStride])
  }

  /// YUYV 4:2:2 packed (V4L2's YUYV, FFmpeg's yuyv422, libyuv's YUY2): 2 bytes a pixel.
  public static func yuyv(width: Int, height: Int) -> PlanarImage {
    let stride = align64(((width + 1) / 2) * 4)
    return PlanarImage(width: width, height: height, planes: [PlaneBuffer(byteCount: stride * height)], strides: [stride])
  }

  /// NV12: Y plane, then one plane of interleaved U,V at half height.
  public static func nv12(width: Int, height: Int) -> PlanarImage {
    let yStride = align64(width), uvStride = align64(((width + 1) / 2) * 2)
    return PlanarImage(
      width: width, height: height,
      planes: [PlaneBuffer(byteCount: yStride * height), PlaneBuffer(byteCount: uvStride * ((height + 1) / 2))],
      strides: [yStride, uvStride])
  }

  /// An image made by `make(width, height)` and filled from `seed`.
  public static func pseudoRandom(
    _ make: (_ width: Int, _ height: Int) -> PlanarImage, width: Int, height: Int, seed: UInt64
  ) -> PlanarImage {
    let image = make(width, height)
    image.fillPseudoRandom(seed: seed)
    return image
  }

  /// Fills every plane with deterministic pseudo-random bytes (camera-like noise).
  public func fillPseudoRandom(seed: UInt64) {
    var state = seed | 1
    for plane in planes {
      for i in 0..<plane.byteCount {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        plane.baseAddress[i] = UInt8(truncatingIfNeeded: state >> 24)
      }
    }
  }

  static func align64(_ n: Int) -> Int { (n + 63) / 64 * 64 }
}
