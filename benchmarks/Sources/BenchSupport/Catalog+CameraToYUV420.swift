import Camfx
import CamfxPixelFormats
import CPeers

/// The camera's conversions into the pipeline's yuv420p (issue 39): a YUYV or NV12
/// camera frame into a pooled picture, which is what every such camera's frame meets
/// before the row-local filters and the encoder. camfx's `YUVSourceLayout` against
/// libyuv's `YUY2ToI420` / `NV12ToI420` and libswscale.
extension Catalog {
  public static func cameraToYUV420Operations(at g: FrameGeometry) -> [FrameOperation] {
    [
      toYUV420p(
        "yuyv-to-yuv420p", g, image: PlanarImage.yuyv, seed: 7, libyuv: ("YUY2ToI420", LibYUV.yuy2ToI420),
        swscale: ("yuyv422", CAMFX_PEER_YUYV422), sourceBytes: g.width * g.height * 2
      ) { image in
        .yuyv(UnsafeRawPointer(image.planes[0].baseAddress), bytesPerRow: image.strides[0])
      },
      toYUV420p(
        "nv12-to-yuv420p", g, image: PlanarImage.nv12, seed: 11, libyuv: ("NV12ToI420", LibYUV.nv12ToI420),
        swscale: ("nv12", CAMFX_PEER_NV12), sourceBytes: g.width * g.height * 3 / 2
      ) { image in
        .nv12(
          luma: UnsafeRawPointer(image.planes[0].baseAddress), lumaBytesPerRow: image.strides[0],
          chroma: UnsafeRawPointer(image.planes[1].baseAddress), chromaBytesPerRow: image.strides[1])
      },
    ]
  }

  /// A camera layout into yuv420p planes, each contender converting the same
  /// pseudo-random `image` (filled from `seed`) into planes of its own.
  static func toYUV420p(
    _ name: String, _ g: FrameGeometry, image: @escaping (_ width: Int, _ height: Int) -> PlanarImage, seed: UInt64,
    libyuv: (name: String, convert: (PlanarImage, PlanarImage) throws(PeerError) -> Void),
    swscale: (name: String, format: camfx_peer_format), sourceBytes: Int,
    layout: @escaping (PlanarImage) -> YUVSourceLayout
  ) -> FrameOperation {
    func source() -> PlanarImage { .pseudoRandom(image, width: g.width, height: g.height, seed: seed) }
    let convert = libyuv.convert
    return FrameOperation(name: name, geometry: g, contenders: [
      Contender(.camfx, "YUVSourceLayout.convert(to:)") {
        let picture = source(), planes = PlanarImage.yuv420p(width: g.width, height: g.height)
        let from = layout(picture), to = planes.picture
        // The closure holds both images, so the bytes `from` and `to` point at live as
        // long as the job.
        return { withExtendedLifetime((picture, planes)) { from.convert(to: to) } }
      },
      Contender(.libyuv, libyuv.name) {
        let picture = source(), planes = PlanarImage.yuv420p(width: g.width, height: g.height)
        return { try convert(picture, planes) }
      },
      Contender(.ffmpeg, "libswscale \(swscale.name)→yuv420p") {
        let picture = source(), planes = PlanarImage.yuv420p(width: g.width, height: g.height)
        let sws = try SwscaleConverter(width: g.width, height: g.height, from: swscale.format, to: CAMFX_PEER_YUV420P)
        return { try sws.scale(picture, into: planes) }
      },
    ], bytesMoved: sourceBytes + g.width * g.height * 3 / 2)
  }
}
