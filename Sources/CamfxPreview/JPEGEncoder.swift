import CTurboJPEG
import CamfxCore

/// Encodes frames of one size as JPEG with libjpeg-turbo's TurboJPEG, straight from
/// yuv420p planes (no BGRA in between) or from BGRA rows, into a buffer allocated once.
///
/// camfx's yuv420p is BT.601 limited range (Y 16...235, C 16...240) and JPEG's is full
/// range, so the planes are first stretched through two lookup tables into scratch
/// planes of the same layout; without that, blacks come out grey.
public final class JPEGEncoder {
  public let width: Int
  public let height: Int
  public let quality: Int
  private let handle: tjhandle
  private let capacity: Int
  private let output: UnsafeMutablePointer<UInt8>
  private var lumaTable = [UInt8](repeating: 0, count: 256)
  private var chromaTable = [UInt8](repeating: 0, count: 256)
  private var fullRange: [[UInt8]]

  public init(width: Int, height: Int, quality: Int = 80) throws(PreviewError) {
    guard let handle = tjInitCompress() else { throw PreviewError("tjInitCompress failed") }
    self.handle = handle
    self.width = width
    self.height = height
    self.quality = quality
    capacity = Int(tjBufSize(Int32(width), Int32(height), Int32(TJSAMP_420.rawValue)))
    output = tjAlloc(Int32(capacity))
    let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
    fullRange = [
      [UInt8](repeating: 0, count: width * height), [UInt8](repeating: 0, count: chromaWidth * chromaHeight),
      [UInt8](repeating: 0, count: chromaWidth * chromaHeight),
    ]
    for v in 0..<256 {
      lumaTable[v] = UInt8(clamping: Int(((Double(v) - 16) * 255 / 219).rounded()))
      chromaTable[v] = UInt8(clamping: Int(((Double(v) - 128) * 255 / 224 + 128).rounded()))
    }
  }

  deinit {
    tjFree(output)
    tjDestroy(handle)
  }

  /// The JPEG of a yuv420p picture (4:2:0, like the picture).
  public func encode(_ picture: YUV420Picture) throws(PreviewError) -> [UInt8] {
    let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
    stretch(picture.y, stride: picture.yStride, width: width, height: height, into: 0, table: lumaTable)
    stretch(picture.u, stride: picture.uStride, width: chromaWidth, height: chromaHeight, into: 1, table: chromaTable)
    stretch(picture.v, stride: picture.vStride, width: chromaWidth, height: chromaHeight, into: 2, table: chromaTable)
    var size = UInt(capacity)
    var buffer: UnsafeMutablePointer<UInt8>? = output
    let status = fullRange[0].withUnsafeBufferPointer { y in
      fullRange[1].withUnsafeBufferPointer { u in
        fullRange[2].withUnsafeBufferPointer { v in
          var planes: [UnsafePointer<UInt8>?] = [y.baseAddress, u.baseAddress, v.baseAddress]
          var strides: [Int32] = [Int32(width), Int32(chromaWidth), Int32(chromaWidth)]
          return tjCompressFromYUVPlanes(
            handle, &planes, Int32(width), &strides, Int32(height), Int32(TJSAMP_420.rawValue), &buffer, &size,
            Int32(quality), TJFLAG_NOREALLOC | TJFLAG_FASTDCT)
        }
      }
    }
    return try result(status, size)
  }

  /// The JPEG of a BGRA frame (4:2:0).
  public func encode(_ frame: PixelBuffer) throws(PreviewError) -> [UInt8] {
    var size = UInt(capacity)
    var buffer: UnsafeMutablePointer<UInt8>? = output
    let status = frame.withUnsafeBytes { base in
      tjCompress2(
        handle, base.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(frame.bytesPerRow), Int32(height),
        Int32(TJPF_BGRA.rawValue), &buffer, &size, Int32(TJSAMP_420.rawValue), Int32(quality),
        TJFLAG_NOREALLOC | TJFLAG_FASTDCT)
    }
    return try result(status, size)
  }

  private func result(_ status: Int32, _ size: UInt) throws(PreviewError) -> [UInt8] {
    guard status == 0 else { throw PreviewError("JPEG encoding failed: " + String(cString: tjGetErrorStr2(handle))) }
    return Array(UnsafeBufferPointer(start: output, count: Int(size)))
  }

  private func stretch(
    _ source: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, into plane: Int, table: [UInt8]
  ) {
    table.withUnsafeBufferPointer { lut in
      fullRange[plane].withUnsafeMutableBufferPointer { out in
        for row in 0..<height {
          let src = source + row * stride
          let dst = out.baseAddress! + row * width
          for x in 0..<width { dst[x] = lut[Int(src[x])] }
        }
      }
    }
  }
}
