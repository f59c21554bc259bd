#if canImport(Glibc)
import Glibc
#endif
import Camfx
import CPeers

/// Every operation of issue 5 at one frame size, each with camfx and its peers.
///
/// camfx's contenders come from the public API a user has (`FilterRegistry.builtin`,
/// the adaptor's and the camera's converters); a kernel that is not on main yet is
/// listed with `missing` set, and the peers still run.
public enum Catalog {
  public static func operations(at geometry: FrameGeometry) -> [FrameOperation] {
    [
      reference(geometry),
      grayscale(geometry), mirror(geometry), crop(geometry), watermark(geometry),
      toYUV420p(geometry), fromYUYV(geometry), fromNV12(geometry),
      chain(geometry),
    ]
  }

  /// Operations `camfx-compare` measures besides issue 5's (which the ordo-one
  /// `Kernels` benchmarks and their committed thresholds cover).
  public static func extraOperations(at geometry: FrameGeometry) -> [FrameOperation] {
    [fromI420(geometry), fromNV12ThenMirror(geometry)] + cameraToYUV420Operations(at: geometry) + reshapeOperations(at: geometry) + [jpegOperation(at: geometry), mjpegDecodeOperation(at: geometry)]
  }

  // MARK: Reference points

  static func reference(_ g: FrameGeometry) -> FrameOperation {
    FrameOperation(name: "memory", geometry: g, contenders: [
      Contender(.reference, "memcpy") {
        let source = TestImages.frame(g), destination = PixelBuffer(width: g.width, height: g.height)
        let bytes = source.bytesPerRow * g.height
        return {
          source.withUnsafeBytes { s in destination.withUnsafeMutableBytes { d in _ = memcpy(d, s, bytes) } }
        }
      },
      Contender(.reference, "in-place read-modify-write (SIMD xor)") {
        let frame = TestImages.frame(g)
        return { ReferenceKernels.invertInPlace(frame) }
      },
    ])
  }

  // MARK: Filters

  static func grayscale(_ g: FrameGeometry) -> FrameOperation {
    let camfx = camfxFilter("grayscale", g)
    return FrameOperation(name: "grayscale", geometry: g, contenders: [
      camfx,
      Contender(.libyuv, "ARGBGray") {
        let frame = TestImages.frame(g)
        return { try LibYUV.gray(frame) }
      },
      Contender(.ffmpeg, "libavfilter format=gray,format=bgra") {
        let frame = TestImages.frame(g)
        let graph = try FilterGraph("[in]format=gray,format=bgra[out]", geometry: g)
        return { try graph.run(frame) }
      },
    ].compactMap { $0 }, missing: camfx == nil ? "grayscale filter not on main yet" : nil, bytesMoved: 2 * g.width * g.height * 4)
  }

  static func mirror(_ g: FrameGeometry) -> FrameOperation {
    let camfx = camfxFilter("mirror", g)
    return FrameOperation(name: "mirror", geometry: g, contenders: [
      camfx,
      Contender(.libyuv, "ARGBMirror") {
        let frame = TestImages.frame(g), out = PixelBuffer(width: g.width, height: g.height)
        return { try LibYUV.mirror(frame, into: out) }
      },
      Contender(.ffmpeg, "libavfilter hflip") {
        let frame = TestImages.frame(g)
        let graph = try FilterGraph("[in]hflip[out]", geometry: g)
        return { try graph.run(frame) }
      },
    ].compactMap { $0 }, missing: camfx == nil ? "mirror filter not on main yet" : nil, bytesMoved: 2 * g.width * g.height * 4)
  }

  static func crop(_ g: FrameGeometry) -> FrameOperation {
    let r = TestImages.cropRect(of: g)
    let camfx = camfxFilter("crop=x=\(r.x):y=\(r.y):width=\(r.width):height=\(r.height)", g)
    return FrameOperation(name: "crop", geometry: g, contenders: [
      camfx,
      Contender(.libyuv, "ARGBCopy of the rectangle") {
        var frame = TestImages.frame(g)
        frame.crop(x: r.x, y: r.y, width: r.width, height: r.height)
        let out = PixelBuffer(width: r.width, height: r.height)
        return { [frame] in try LibYUV.copy(frame, into: out) }
      },
      Contender(.ffmpeg, "libavfilter crop") {
        let frame = TestImages.frame(g)
        let graph = try FilterGraph("[in]crop=w=\(r.width):h=\(r.height):x=\(r.x):y=\(r.y)[out]", geometry: g)
        return { try graph.run(frame) }
      },
    ].compactMap { $0 }, missing: camfx == nil ? "crop filter not on main yet" : nil)
  }

  static func watermark(_ g: FrameGeometry) -> FrameOperation {
    let camfx = CamfxHooks.watermark(g)
    let m = TestImages.markGeometry, o = TestImages.markOrigin(on: g)
    return FrameOperation(name: "watermark", geometry: g, contenders: [
      camfx,
      Contender(.libyuv, "ARGBBlend \(m.width)x\(m.height)") {
        let frame = TestImages.frame(g)
        let mark = try LibYUV.premultiplied(TestImages.mark())
        return { try LibYUV.blend(mark, over: frame, x: o.x, y: o.y) }
      },
      Contender(.ffmpeg, "libavfilter overlay format=rgb") {
        let frame = TestImages.frame(g)
        let graph = try FilterGraph(
          "[in][mark]overlay=x=\(o.x):y=\(o.y):format=rgb[out]", geometry: g, mark: TestImages.mark())
        return { try graph.run(frame) }
      },
    ].compactMap { $0 }, missing: camfx == nil ? "watermark filter (or a PNG writer for its 256x64 mark) not on main yet" : nil)
  }

  // MARK: Conversions

  static func toYUV420p(_ g: FrameGeometry) -> FrameOperation {
    let camfx = CamfxHooks.toYUV420p(g)
    return FrameOperation(name: "bgra-to-yuv420p", geometry: g, contenders: [
      camfx,
      Contender(.libyuv, "ARGBToI420") {
        let frame = TestImages.frame(g), planes = PlanarImage.yuv420p(width: g.width, height: g.height)
        return { try LibYUV.toI420(frame, into: planes) }
      },
      Contender(.ffmpeg, "libswscale bgra→yuv420p") {
        let frame = TestImages.frame(g), planes = PlanarImage.yuv420p(width: g.width, height: g.height)
        let sws = try SwscaleConverter(width: g.width, height: g.height, from: CAMFX_PEER_BGRA, to: CAMFX_PEER_YUV420P)
        return { try sws.convert(frame, into: planes) }
      },
    ].compactMap { $0 }, missing: camfx == nil ? "BGRA→yuv420p adaptor not on main yet" : nil, bytesMoved: g.width * g.height * 11 / 2)
  }

  static func fromYUYV(_ g: FrameGeometry) -> FrameOperation {
    toBGRA(
      "yuyv-to-bgra", g, camfx: CamfxHooks.fromYUYV(g), missing: "YUYV→BGRA converter", image: PlanarImage.yuyv, seed: 7,
      libyuv: ("YUY2ToARGB", LibYUV.fromYUY2), swscale: ("yuyv422", CAMFX_PEER_YUYV422), sourceBytes: g.width * g.height * 2)
  }

  static func fromNV12(_ g: FrameGeometry) -> FrameOperation {
    toBGRA(
      "nv12-to-bgra", g, camfx: CamfxHooks.fromNV12(g), missing: "NV12→BGRA converter", image: PlanarImage.nv12, seed: 11,
      libyuv: ("NV12ToARGB", LibYUV.fromNV12), swscale: ("nv12", CAMFX_PEER_NV12), sourceBytes: g.width * g.height * 3 / 2)
  }

  /// NV12 → BGRA and then the same next stage for both (libyuv's `ARGBMirror` into a
  /// frame of its own): what a conversion's stores leave in the cache for whoever reads
  /// its frame next, which the conversion's own row cannot show (stores that bypass the
  /// cache win it and lose here).
  static func fromNV12ThenMirror(_ g: FrameGeometry) -> FrameOperation {
    let mirror = NextStage(name: "ARGBMirror") {
      let mirrored = PixelBuffer(width: g.width, height: g.height)
      return { frame throws(PeerError) in try LibYUV.mirror(frame, into: mirrored) }
    }
    return FrameOperation(name: "nv12-to-bgra-then-mirror", geometry: g, contenders: [
      CamfxHooks.fromNV12(g, readBy: mirror),
      Contender(.libyuv, "NV12ToARGB+ARGBMirror") {
        let picture = PlanarImage.pseudoRandom(PlanarImage.nv12, width: g.width, height: g.height, seed: 11)
        let frame = PixelBuffer(width: g.width, height: g.height), read = mirror.make()
        return {
          try LibYUV.fromNV12(picture, into: frame)
          try read(frame)
        }
      },
    ].compactMap { $0 }, missing: nil, bytesMoved: g.width * g.height * 27 / 2)
  }

  /// A stage after the one measured, the same for every contender: `make` sets up its
  /// buffers once and returns what it does to each frame.
  struct NextStage {
    let name: String
    let make: () -> (PixelBuffer) throws(PeerError) -> Void
  }

  static func fromI420(_ g: FrameGeometry) -> FrameOperation {
    toBGRA(
      "i420-to-bgra", g, camfx: CamfxHooks.fromI420(g), missing: "I420→BGRA converter", image: PlanarImage.yuv420p,
      seed: 13, libyuv: ("I420ToARGB", LibYUV.fromI420), swscale: ("yuv420p", CAMFX_PEER_YUV420P),
      sourceBytes: g.width * g.height * 3 / 2)
  }

  /// A conversion to BGRA, camfx next to libyuv's `libyuv.name` and libswscale from
  /// `swscale.format`, each converting the same pseudo-random `image` (filled from
  /// `seed`) into a frame of its own.
  static func toBGRA(
    _ name: String, _ g: FrameGeometry, camfx: Contender?, missing: String,
    image: @escaping (_ width: Int, _ height: Int) -> PlanarImage, seed: UInt64,
    libyuv: (name: String, convert: (PlanarImage, PixelBuffer) throws(PeerError) -> Void),
    swscale: (name: String, format: camfx_peer_format), sourceBytes: Int
  ) -> FrameOperation {
    func source() -> PlanarImage { .pseudoRandom(image, width: g.width, height: g.height, seed: seed) }
    let convert = libyuv.convert
    return FrameOperation(name: name, geometry: g, contenders: [
      camfx,
      Contender(.libyuv, libyuv.name) {
        let picture = source(), frame = PixelBuffer(width: g.width, height: g.height)
        return { try convert(picture, frame) }
      },
      Contender(.ffmpeg, "libswscale \(swscale.name)→bgra") {
        let picture = source(), frame = PixelBuffer(width: g.width, height: g.height)
        let sws = try SwscaleConverter(width: g.width, height: g.height, from: swscale.format, to: CAMFX_PEER_BGRA)
        return { try sws.convert(picture, into: frame) }
      },
    ].compactMap { $0 }, missing: camfx == nil ? "\(missing) not on main yet" : nil,
    bytesMoved: sourceBytes + g.width * g.height * 4)
  }

  // MARK: A whole chain

  /// mirror → grayscale → watermark, the chain of `make run` plus a mirror.
  static func chain(_ g: FrameGeometry) -> FrameOperation {
    let camfx = CamfxHooks.chain(g)
    let o = TestImages.markOrigin(on: g)
    return FrameOperation(name: "chain", geometry: g, contenders: [
      camfx,
      Contender(.libyuv, "ARGBMirror+ARGBGray+ARGBBlend") {
        let frame = TestImages.frame(g), out = PixelBuffer(width: g.width, height: g.height)
        let mark = try LibYUV.premultiplied(TestImages.mark())
        return {
          try LibYUV.mirror(frame, into: out)
          try LibYUV.gray(out)
          try LibYUV.blend(mark, over: out, x: o.x, y: o.y)
        }
      },
      Contender(.ffmpeg, "libavfilter hflip,format=gray,format=bgra,overlay") {
        let frame = TestImages.frame(g)
        let graph = try FilterGraph(
          "[in]hflip,format=gray,format=bgra[main];[main][mark]overlay=x=\(o.x):y=\(o.y):format=rgb[out]",
          geometry: g, mark: TestImages.mark())
        return { try graph.run(frame) }
      },
    ].compactMap { $0 }, missing: camfx == nil ? "mirror, grayscale or watermark not on main yet" : nil, bytesMoved: 2 * g.width * g.height * 4)
  }

  /// camfx's built-in filter `spec`, run through a `FilterChain` as the pipeline does;
  /// `nil` while the filter is not registered.
  static func camfxFilter(_ spec: String, _ g: FrameGeometry) -> Contender? {
    CamfxHooks.filterChain([spec], g)
  }
}
