import Camfx
import CamfxCapture
import CamfxCore
import CamfxPixelFormats
import CamfxPreview
import CPeers

/// The preview's JPEG (issue 13): TurboJPEG straight from yuv420p planes (camfx's
/// `JPEGEncoder`, quality 80, with its range stretch) against libavcodec's `mjpeg`
/// encoder from the same planes at a qscale that gives about the same size.
extension Catalog {
  public static func jpegOperation(at g: FrameGeometry) -> FrameOperation {
    /// The BGRA test image as yuv420p: a picture a JPEG encoder meets, not noise.
    func source() -> PlanarImage {
      let image = PlanarImage.yuv420p(width: g.width, height: g.height)
      let planes = YUV420Planes(width: g.width, height: g.height)
      BGRAToYUV420.convert(TestImages.frame(g), into: planes)
      planes.picture.copyPixels(to: image.picture)
      return image
    }
    return FrameOperation(name: "jpeg-yuv420p", geometry: g, contenders: [
      Contender(.camfx, "JPEGEncoder (TurboJPEG) q80") {
        let image = source()
        let encoder = try JPEGEncoder(width: g.width, height: g.height, quality: 80)
        return { _ = try encoder.encode(image.picture) }
      },
      Contender(.ffmpeg, "libavcodec mjpeg qscale \(mjpegQScale)") {
        let image = source()
        guard let m = camfx_mjpeg_create(Int32(g.width), Int32(g.height), Int32(mjpegQScale)) else {
          throw PeerError(operation: "mjpeg encoder", code: -1, message: "libavcodec has no mjpeg encoder")
        }
        let handle = MJPEGPeer(m)
        return {
          let size = camfx_mjpeg_encode(
            handle.pointer, image.planes[0].baseAddress, Int32(image.strides[0]), image.planes[1].baseAddress,
            Int32(image.strides[1]), image.planes[2].baseAddress, Int32(image.strides[2]))
          guard size > 0 else { throw PeerError(operation: "mjpeg encode", code: size) }
        }
      },
    ])
  }

  /// About TurboJPEG's quality 80 in bytes for the test image (`camfx-compare jpeg-sizes`).
  public static let mjpegQScale = 4

  /// The bytes each encoder makes of the test image, to check that they are alike.
  public static func jpegSizes(at g: FrameGeometry) throws -> (turbo: Int, mjpeg: Int) {
    let image = PlanarImage.yuv420p(width: g.width, height: g.height)
    let planes = YUV420Planes(width: g.width, height: g.height)
    BGRAToYUV420.convert(TestImages.frame(g), into: planes)
    planes.picture.copyPixels(to: image.picture)
    let turbo = try JPEGEncoder(width: g.width, height: g.height, quality: 80).encode(image.picture).count
    let m = MJPEGPeer(camfx_mjpeg_create(Int32(g.width), Int32(g.height), Int32(mjpegQScale))!)
    let mjpeg = camfx_mjpeg_encode(
      m.pointer, image.planes[0].baseAddress, Int32(image.strides[0]), image.planes[1].baseAddress,
      Int32(image.strides[1]), image.planes[2].baseAddress, Int32(image.strides[2]))
    return (turbo, Int(mjpeg))
  }
}

/// Owns a libavcodec MJPEG peer.
final class MJPEGPeer {
  let pointer: OpaquePointer
  init(_ pointer: OpaquePointer) { self.pointer = pointer }
  deinit { camfx_mjpeg_free(pointer) }
}

extension Catalog {
  /// An MJPEG camera's frame (4:2:2, quality 85: `BenchCase.cameraJPEG`) decoded into
  /// yuv420p planes: by libjpeg-turbo, as camfx decodes a camera's JPEGs, and by
  /// libavcodec's mjpeg decoder on one thread (the same `CompressedFrameDecoder`
  /// without TurboJPEG), which is what `ffmpeg -f v4l2 -input_format mjpeg` decodes with.
  public static func mjpegDecodeOperation(at g: FrameGeometry) -> FrameOperation {
    func contender(_ library: Library, _ detail: String, turboJPEG: Bool) -> Contender {
      Contender(library, detail) {
        let jpeg = try BenchCase.cameraJPEG(g)
        let decoder = try CompressedFrameDecoder(codec: .mjpeg, turboJPEG: turboJPEG)
        let planes = YUV420Planes(width: g.width, height: g.height)
        return {
          guard jpeg.withUnsafeBytes({ decoder.decode($0, into: planes.picture) }) == .decoded else {
            throw PeerError(operation: detail, code: -1, message: "the camera JPEG did not decode")
          }
        }
      }
    }
    return FrameOperation(name: "mjpeg-to-yuv420p", geometry: g, contenders: [
      contender(.camfx, "libjpeg-turbo into the planes", turboJPEG: true),
      contender(.ffmpeg, "libavcodec mjpeg, one thread", turboJPEG: false),
    ])
  }
}
