import Camfx
import CamfxPixelFormats
import CPeers

/// A camera's frame layout converted into the pipeline's yuv420p: how to make a
/// pseudo-random frame of it, where camfx's `YUVSourceLayout` finds it, and the peers'
/// conversions of it. `camfx-compare`'s table and its `check` take the same ones.
public struct CameraToYUV420 {
  public let name: String
  let image: (_ width: Int, _ height: Int) -> PlanarImage
  let seed: UInt64
  public let libyuv: (name: String, convert: (PlanarImage, PlanarImage) throws(PeerError) -> Void)
  let swscale: (name: String, format: camfx_peer_format)
  /// Source bytes a pixel, times 2 (YUYV 4, NV12 3).
  let doubledBytesPerPixel: Int
  /// camfx's view of a frame of this layout.
  public let layout: (PlanarImage) -> YUVSourceLayout

  /// YUYV (V4L2's YUYV, libyuv's YUY2) and NV12.
  public static var all: [CameraToYUV420] { [
    CameraToYUV420(
      name: "yuyv-to-yuv420p", image: PlanarImage.yuyv, seed: 7, libyuv: ("YUY2ToI420", LibYUV.yuy2ToI420),
      swscale: ("yuyv422", CAMFX_PEER_YUYV422), doubledBytesPerPixel: 4
    ) { image in
      .yuyv(UnsafeRawPointer(image.planes[0].baseAddress), bytesPerRow: image.strides[0])
    },
    CameraToYUV420(
      name: "nv12-to-yuv420p", image: PlanarImage.nv12, seed: 11, libyuv: ("NV12ToI420", LibYUV.nv12ToI420),
      swscale: ("nv12", CAMFX_PEER_NV12), doubledBytesPerPixel: 3
    ) { image in
      .nv12(
        luma: UnsafeRawPointer(image.planes[0].baseAddress), lumaBytesPerRow: image.strides[0],
        chroma: UnsafeRawPointer(image.planes[1].baseAddress), chromaBytesPerRow: image.strides[1])
    },
  ] }

  /// A frame of this layout filled from `seed` (the table's own seed unless given).
  public func source(_ g: FrameGeometry, seed: UInt64? = nil) -> PlanarImage {
    .pseudoRandom(image, width: g.width, height: g.height, seed: seed ?? self.seed)
  }
}

/// The camera's conversions into the pipeline's yuv420p (issue 39): a YUYV or NV12
/// camera frame into a pooled picture, which is what every such camera's frame meets
/// before the row-local filters and the encoder. camfx's `YUVSourceLayout` against
/// libyuv's `YUY2ToI420` / `NV12ToI420` and libswscale, each converting the same frame
/// into planes of its own.
extension Catalog {
  public static func cameraToYUV420Operations(at g: FrameGeometry) -> [FrameOperation] {
    CameraToYUV420.all.map { camera in
      let convert = camera.libyuv.convert, swscale = camera.swscale
      return FrameOperation(name: camera.name, geometry: g, contenders: [
        Contender(.camfx, "YUVSourceLayout.convert(to:)") {
          let picture = camera.source(g), planes = PlanarImage.yuv420p(width: g.width, height: g.height)
          let from = camera.layout(picture), to = planes.picture
          // The closure holds both images, so the bytes `from` and `to` point at live as
          // long as the job.
          return { withExtendedLifetime((picture, planes)) { from.convert(to: to) } }
        },
        Contender(.libyuv, camera.libyuv.name) {
          let picture = camera.source(g), planes = PlanarImage.yuv420p(width: g.width, height: g.height)
          return { try convert(picture, planes) }
        },
        Contender(.ffmpeg, "libswscale \(swscale.name)→yuv420p") {
          let picture = camera.source(g), planes = PlanarImage.yuv420p(width: g.width, height: g.height)
          let sws = try SwscaleConverter(width: g.width, height: g.height, from: swscale.format, to: CAMFX_PEER_YUV420P)
          return { try sws.scale(picture, into: planes) }
        },
      ], bytesMoved: g.width * g.height * camera.doubledBytesPerPixel / 2 + g.width * g.height * 3 / 2)
    }
  }
}
