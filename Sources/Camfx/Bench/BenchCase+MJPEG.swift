import CTurboJPEG
import CamfxCapture
import CamfxCore
import CamfxFrames

extension BenchCase {
  /// An MJPEG camera's frame (4:2:2, quality 85) decoded into the yuv420p picture the
  /// filters and the encoder work on: by libjpeg-turbo, as camfx decodes camera JPEGs,
  /// and by libavcodec's mjpeg decoder (one thread), as it did before and as
  /// `ffmpeg -f v4l2 -input_format mjpeg` does. Bytes are the picture's.
  public static let mjpegToYUV420Name = "mjpeg-to-yuv420p"
  public static let mjpegToYUV420LibavcodecName = "mjpeg-to-yuv420p-libavcodec"

  static func mjpegDecode(_ size: FrameGeometry, turboJPEG: Bool) -> BenchCase {
    let name = turboJPEG ? mjpegToYUV420Name : mjpegToYUV420LibavcodecName
    let pictureBytes = size.width * size.height + 2 * ((size.width + 1) / 2) * ((size.height + 1) / 2)
    return BenchCase(name: name, size: size, bytesPerFrame: pictureBytes, filter: name) {
      let jpeg = try cameraJPEG(size)
      let decoder = try CompressedFrameDecoder(codec: .mjpeg, turboJPEG: turboJPEG)
      let planes = YUV420Planes(width: size.width, height: size.height)
      guard jpeg.withUnsafeBytes({ decoder.decode($0, into: planes.picture) }) == .decoded,
        decoder.framesDecodedByTurboJPEG == (turboJPEG ? 1 : 0)
      else { throw BenchError(operation: "\(name): decoding the camera JPEG", code: -1) }
      return { _ = jpeg.withUnsafeBytes { decoder.decode($0, into: planes.picture) } }
    }
  }

  /// A JPEG as a webcam's chip makes one: 4:2:2, quality 85, of a picture with smooth
  /// gradients, hard edges and a little sensor noise (so that it compresses as a scene
  /// does, to about a bit a pixel, not as flat colour or pure noise).
  public static func cameraJPEG(_ size: FrameGeometry) throws -> [UInt8] {
    let frame = PixelBuffer(width: size.width, height: size.height)
    var state: UInt32 = 0x1234_5678
    frame.withUnsafeMutableBytes { base in
      for y in 0..<size.height {
        let row = (base + y * frame.bytesPerRow).assumingMemoryBound(to: UInt8.self)
        for x in 0..<size.width {
          state = state &* 1_664_525 &+ 1_013_904_223
          let noise = Int(state >> 29) - 4
          // Gradients, with 64-pixel tiles of a second shade for edges.
          let tile = ((x >> 6) + (y >> 6)) & 1 == 0 ? 40 : 0
          let b = (x * 255 / max(1, size.width - 1) + tile + noise)
          let g = (y * 255 / max(1, size.height - 1) + noise)
          let r = ((x + y) * 255 / max(1, size.width + size.height - 2) - tile + noise)
          row[4 * x] = UInt8(clamping: b)
          row[4 * x + 1] = UInt8(clamping: g)
          row[4 * x + 2] = UInt8(clamping: r)
          row[4 * x + 3] = 255
        }
      }
    }
    guard let handle = tjInitCompress() else { throw BenchError(operation: "tjInitCompress", code: -1) }
    defer { tjDestroy(handle) }
    var jpeg: UnsafeMutablePointer<UInt8>?
    var length: UInt = 0
    let status = frame.withUnsafeBytes { pixels in
      tjCompress2(
        handle, pixels.assumingMemoryBound(to: UInt8.self), Int32(size.width), Int32(frame.bytesPerRow),
        Int32(size.height), Int32(TJPF_BGRA.rawValue), &jpeg, &length, Int32(TJSAMP_422.rawValue), 85, 0)
    }
    defer { tjFree(jpeg) }
    guard status == 0, let jpeg else { throw BenchError(operation: "tjCompress2", code: status) }
    return Array(UnsafeBufferPointer(start: jpeg, count: Int(length)))
  }
}
