import Camfx
import CPeers

/// A libswscale context converting frames of one size between two pixel formats
/// (`sws_getContext` with SWS_BILINEAR, single-threaded); freed in `deinit`.
public final class SwscaleConverter {
  private let context: OpaquePointer
  public let width: Int
  public let height: Int

  /// - Throws: `PeerError` when swscale cannot convert between the two formats.
  public init(width: Int, height: Int, from source: camfx_peer_format, to destination: camfx_peer_format) throws(PeerError) {
    guard let context = camfx_sws_create(Int32(width), Int32(height), source, destination) else {
      throw PeerError(operation: "sws_getContext", code: -1, message: "unsupported conversion or size \(width)x\(height)")
    }
    self.context = context
    self.width = width
    self.height = height
  }

  /// A scaler from `source` size to `destination` size in one `format`.
  public init(from source: FrameGeometry, to destination: FrameGeometry, format: camfx_peer_format, method: camfx_peer_scale_method) throws(PeerError) {
    guard let context = camfx_sws_create_scaled(
      Int32(source.width), Int32(source.height), Int32(destination.width), Int32(destination.height), format, method)
    else {
      throw PeerError(operation: "sws_getContext", code: -1, message: "unsupported scale \(source) → \(destination)")
    }
    self.context = context
    self.width = source.width
    self.height = source.height
  }

  deinit { camfx_sws_free(context) }

  /// Scales a BGRA frame into a BGRA frame of the scaler's output size.
  public func scale(_ source: PixelBuffer, into destination: PixelBuffer) throws(PeerError) {
    let code = source.withUnsafeBytes { src in
      destination.withUnsafeMutableBytes { dst in
        withPointers { srcPlanes, srcStrides, dstPlanes, dstStrides in
          srcPlanes[0] = src.assumingMemoryBound(to: UInt8.self)
          srcStrides[0] = Int32(source.bytesPerRow)
          dstPlanes[0] = dst.assumingMemoryBound(to: UInt8.self)
          dstStrides[0] = Int32(destination.bytesPerRow)
          return camfx_sws_convert(context, srcPlanes.baseAddress, srcStrides.baseAddress, dstPlanes.baseAddress, dstStrides.baseAddress)
        }
      }
    }
    try PeerError.check(code, "sws_scale")
  }

  /// Scales planes into planes of the scaler's output size (the same format).
  public func scale(_ source: PlanarImage, into destination: PlanarImage) throws(PeerError) {
    let code = withPointers { srcPlanes, srcStrides, dstPlanes, dstStrides in
      for i in source.planes.indices {
        srcPlanes[i] = UnsafePointer(source.planes[i].baseAddress)
        srcStrides[i] = Int32(source.strides[i])
      }
      for i in destination.planes.indices {
        dstPlanes[i] = destination.planes[i].baseAddress
        dstStrides[i] = Int32(destination.strides[i])
      }
      return camfx_sws_convert(context, srcPlanes.baseAddress, srcStrides.baseAddress, dstPlanes.baseAddress, dstStrides.baseAddress)
    }
    try PeerError.check(code, "sws_scale")
  }

  /// Converts a BGRA frame into planes (e.g. yuv420p).
  public func convert(_ frame: PixelBuffer, into image: PlanarImage) throws(PeerError) {
    let code = frame.withUnsafeBytes { src in
      withPointers { srcPlanes, srcStrides, dstPlanes, dstStrides in
        srcPlanes[0] = src.assumingMemoryBound(to: UInt8.self)
        srcStrides[0] = Int32(frame.bytesPerRow)
        for i in image.planes.indices {
          dstPlanes[i] = image.planes[i].baseAddress
          dstStrides[i] = Int32(image.strides[i])
        }
        return camfx_sws_convert(context, srcPlanes.baseAddress, srcStrides.baseAddress, dstPlanes.baseAddress, dstStrides.baseAddress)
      }
    }
    try PeerError.check(code, "sws_scale")
  }

  /// Converts planes (YUYV, NV12) into a BGRA frame.
  public func convert(_ image: PlanarImage, into frame: PixelBuffer) throws(PeerError) {
    let code = frame.withUnsafeMutableBytes { dst in
      withPointers { srcPlanes, srcStrides, dstPlanes, dstStrides in
        for i in image.planes.indices {
          srcPlanes[i] = UnsafePointer(image.planes[i].baseAddress)
          srcStrides[i] = Int32(image.strides[i])
        }
        dstPlanes[0] = dst.assumingMemoryBound(to: UInt8.self)
        dstStrides[0] = Int32(frame.bytesPerRow)
        return camfx_sws_convert(context, srcPlanes.baseAddress, srcStrides.baseAddress, dstPlanes.baseAddress, dstStrides.baseAddress)
      }
    }
    try PeerError.check(code, "sws_scale")
  }

  /// Four-entry plane and stride arrays on the stack (no allocation per frame), zeroed.
  private func withPointers<R>(
    _ body: (
      UnsafeMutableBufferPointer<UnsafePointer<UInt8>?>, UnsafeMutableBufferPointer<Int32>,
      UnsafeMutableBufferPointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutableBufferPointer<Int32>
    ) -> R
  ) -> R {
    withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: 4) { srcPlanes in
      withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4) { srcStrides in
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt8>?.self, capacity: 4) { dstPlanes in
          withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4) { dstStrides in
            srcPlanes.initialize(repeating: nil)
            dstPlanes.initialize(repeating: nil)
            srcStrides.initialize(repeating: 0)
            dstStrides.initialize(repeating: 0)
            return body(srcPlanes, srcStrides, dstPlanes, dstStrides)
          }
        }
      }
    }
  }
}
