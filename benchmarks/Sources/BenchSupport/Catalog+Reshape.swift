import Camfx
import CPeers

/// The filters that reshape the picture (issue 12), each with libyuv and libswscale
/// doing the same: scale (bilinear, fast bilinear, bicubic, box/area) in BGRA and in yuv420p, a
/// quarter turn, and camfx's text and colour (no peer with the same work on BGRA). Each
/// scale also runs `ReferenceKernels.readThenWrite` on its frames: the memory-speed
/// ceiling for any scaler of that size.
extension Catalog {
  public static func reshapeOperations(at g: FrameGeometry) -> [FrameOperation] {
    let twoThirds = FrameGeometry(width: g.width * 2 / 3 & ~1, height: g.height * 2 / 3 & ~1)
    let half = FrameGeometry(width: g.width / 2, height: g.height / 2)
    // Each camfx method against the peers' filter that weighs the same pixels: libyuv's
    // kFilterBilinear takes the two nearest pixels as camfx's fast_bilinear does (and
    // libswscale's SWS_FAST_BILINEAR, horizontally), while camfx's bilinear widens its
    // kernel when shrinking as libswscale's SWS_BILINEAR does. At 2:1, libyuv's box and
    // bilinear and camfx's area and fast_bilinear are all the 2×2 mean.
    let turns = [90, 180, 270].flatMap { [rotateBGRA(g, degrees: $0), rotateI420(g, degrees: $0)] }
    return [
      scaleBGRA("scale-bilinear-2of3", g, to: twoThirds, .bilinear, CAMFX_PEER_SCALE_BILINEAR, libyuv: false),
      scaleBGRA("scale-fast-bilinear-2of3", g, to: twoThirds, .fastBilinear, CAMFX_PEER_SCALE_FAST_BILINEAR, libyuv: true),
      scaleBGRA("scale-bilinear-half", g, to: half, .bilinear, CAMFX_PEER_SCALE_BILINEAR, libyuv: false),
      scaleBGRA("scale-area-half", g, to: half, .area, CAMFX_PEER_SCALE_AREA, libyuv: true),
      scaleBGRA("scale-bicubic-2of3", g, to: twoThirds, .bicubic, CAMFX_PEER_SCALE_BICUBIC, libyuv: false),
      scaleI420("scale-bilinear-2of3-i420", g, to: twoThirds, .bilinear, CAMFX_PEER_SCALE_BILINEAR, libyuv: false),
      scaleI420(
        "scale-fast-bilinear-2of3-i420", g, to: twoThirds, .fastBilinear, CAMFX_PEER_SCALE_FAST_BILINEAR, libyuv: true),
      scaleI420("scale-area-half-i420", g, to: half, .area, CAMFX_PEER_SCALE_AREA, libyuv: true),
      scaleI420("scale-bicubic-2of3-i420", g, to: twoThirds, .bicubic, CAMFX_PEER_SCALE_BICUBIC, libyuv: false),
    ] + turns + [timestamp(g), color(g)]
  }

  static func scaleBGRA(
    _ name: String, _ g: FrameGeometry, to out: FrameGeometry, _ method: ScaleMethod, _ peer: camfx_peer_scale_method,
    libyuv: Bool
  ) -> FrameOperation {
    var contenders = [
      Contender(.camfx, "scale \(out) \(method.rawValue)") {
        var scale = try Scale(width: out.width, height: out.height, method: method)
        _ = try scale.configure(input: g)
        let source = TestImages.frame(g)
        var destination = PixelBuffer(width: out.width, height: out.height)
        let ready = scale
        return { ready.process(source, into: &destination) }
      },
      Contender(.ffmpeg, "libswscale bgra \(method.rawValue)") {
        let source = TestImages.frame(g), destination = PixelBuffer(width: out.width, height: out.height)
        let sws = try SwscaleConverter(from: g, to: out, format: CAMFX_PEER_BGRA, method: peer)
        return { try sws.scale(source, into: destination) }
      },
    ]
    contenders.append(Contender(.reference, "read source + write destination") {
      let source = TestImages.frame(g), destination = PixelBuffer(width: out.width, height: out.height)
      return { ReferenceKernels.readThenWrite(source, into: destination) }
    })
    if libyuv {
      contenders.insert(
        Contender(.libyuv, "ARGBScale \(method == .area ? "kFilterBox" : "kFilterBilinear")") {
          let source = TestImages.frame(g), destination = PixelBuffer(width: out.width, height: out.height)
          return { try LibYUV.scale(source, into: destination, method: peer) }
        }, at: 1)
    }
    return FrameOperation(
      name: name, geometry: g, contenders: contenders, bytesMoved: (g.width * g.height + out.width * out.height) * 4)
  }

  static func scaleI420(
    _ name: String, _ g: FrameGeometry, to out: FrameGeometry, _ method: ScaleMethod, _ peer: camfx_peer_scale_method,
    libyuv: Bool
  ) -> FrameOperation {
    func source() -> PlanarImage {
      let image = PlanarImage.yuv420p(width: g.width, height: g.height)
      image.fillPseudoRandom(seed: 17)
      return image
    }
    var contenders = [
      Contender(.camfx, "scale \(out) \(method.rawValue) on yuv420p") {
        var scale = try Scale(width: out.width, height: out.height, method: method)
        _ = try scale.configure(input: g)
        let from = source(), to = PlanarImage.yuv420p(width: out.width, height: out.height)
        let ready = scale
        return { ready.process(yuv420: from.picture, into: to.picture) }
      },
      Contender(.ffmpeg, "libswscale yuv420p \(method.rawValue)") {
        let from = source(), to = PlanarImage.yuv420p(width: out.width, height: out.height)
        let sws = try SwscaleConverter(from: g, to: out, format: CAMFX_PEER_YUV420P, method: peer)
        return { try sws.scale(from, into: to) }
      },
    ]
    contenders.append(Contender(.reference, "read source + write destination") {
      let from = source(), to = PlanarImage.yuv420p(width: out.width, height: out.height)
      return { ReferenceKernels.readThenWrite(from, into: to) }
    })
    if libyuv {
      contenders.insert(
        Contender(.libyuv, "I420Scale \(method == .area ? "kFilterBox" : "kFilterBilinear")") {
          let from = source(), to = PlanarImage.yuv420p(width: out.width, height: out.height)
          return { try LibYUV.scale(from, into: to, method: peer) }
        }, at: 1)
    }
    return FrameOperation(
      name: name, geometry: g, contenders: contenders, bytesMoved: (g.width * g.height + out.width * out.height) * 3 / 2)
  }

  /// FFmpeg's filters for a clockwise turn (a command-line user's `transpose`; a half
  /// turn is `hflip,vflip`, where vflip only flips the line order).
  static func ffmpegTurn(_ degrees: Int) -> String {
    degrees == 90 ? "transpose=1" : degrees == 270 ? "transpose=2" : "hflip,vflip"
  }

  /// The name of a turn's row: `rotate-90`, `rotate-180-i420`, ...
  static func rotateName(_ degrees: Int, i420: Bool) -> String { "rotate-\(degrees)" + (i420 ? "-i420" : "") }

  static func rotateBGRA(_ g: FrameGeometry, degrees: Int) -> FrameOperation {
    let angle = Rotate.Angle(rawValue: degrees)!
    let out = degrees == 180 ? g : FrameGeometry(width: g.height, height: g.width)
    return FrameOperation(name: rotateName(degrees, i420: false), geometry: g, contenders: [
      Contender(.camfx, "rotate=angle=\(degrees)") {
        var rotate = Rotate(angle: angle)
        _ = try rotate.configure(input: g)
        let source = TestImages.frame(g)
        var destination = PixelBuffer(width: out.width, height: out.height)
        let ready = rotate
        return { ready.process(source, into: &destination) }
      },
      Contender(.libyuv, "ARGBRotate kRotate\(degrees)") {
        let source = TestImages.frame(g), destination = PixelBuffer(width: out.width, height: out.height)
        return { try LibYUV.rotate(source, into: destination, degrees: Int32(degrees)) }
      },
      Contender(.ffmpeg, "libavfilter \(ffmpegTurn(degrees))") {
        let frame = TestImages.frame(g)
        let graph = try FilterGraph("[in]\(ffmpegTurn(degrees))[out]", geometry: g)
        return { try graph.run(frame) }
      },
    ], bytesMoved: 2 * g.width * g.height * 4)
  }

  static func rotateI420(_ g: FrameGeometry, degrees: Int) -> FrameOperation {
    func source() -> PlanarImage {
      let image = PlanarImage.yuv420p(width: g.width, height: g.height)
      image.fillPseudoRandom(seed: 19)
      return image
    }
    let angle = Rotate.Angle(rawValue: degrees)!
    let out = degrees == 180 ? g : FrameGeometry(width: g.height, height: g.width)
    return FrameOperation(name: rotateName(degrees, i420: true), geometry: g, contenders: [
      Contender(.camfx, "rotate=angle=\(degrees) on yuv420p") {
        var rotate = Rotate(angle: angle)
        _ = try rotate.configure(input: g)
        let from = source(), to = PlanarImage.yuv420p(width: out.width, height: out.height)
        let ready = rotate
        return { ready.process(yuv420: from.picture, into: to.picture) }
      },
      Contender(.libyuv, "I420Rotate kRotate\(degrees)") {
        let from = source(), to = PlanarImage.yuv420p(width: out.width, height: out.height)
        return { try LibYUV.rotate(from, into: to, degrees: Int32(degrees)) }
      },
      Contender(.ffmpeg, "libavfilter \(ffmpegTurn(degrees)) on yuv420p") {
        let from = source()
        let graph = try FilterGraph("[in]\(ffmpegTurn(degrees))[out]", geometry: g, format: CAMFX_PEER_YUV420P)
        return { try graph.run(from) }
      },
    ], bytesMoved: 2 * g.width * g.height * 3 / 2)
  }

  /// A 19-character timestamp at 32 px on frames 1/30 s apart (the text changes once a
  /// second, as a clock's does); target under 20 µs a frame at 1080p.
  static func timestamp(_ g: FrameGeometry) -> FrameOperation {
    FrameOperation(name: "timestamp", geometry: g, contenders: [
      Contender(.camfx, "timestamp=size=32") {
        var chain = try FilterRegistry.builtin.makeChain(["timestamp=size=32"])
        try chain.configure(input: g)
        let configured = chain
        var frame = TestImages.frame(g)
        var index: Int64 = 0
        return {
          frame.presentationTime = MediaTime(value: index, timescale: 30)
          index += 1
          configured.process(&frame)
        }
      },
    ])
  }

  static func color(_ g: FrameGeometry) -> FrameOperation {
    FrameOperation(name: "color", geometry: g, contenders: [
      Contender(.camfx, "color=brightness=0.1:contrast=1.3:saturation=1.5") {
        var chain = try FilterRegistry.builtin.makeChain(["color=brightness=0.1:contrast=1.3:saturation=1.5"])
        try chain.configure(input: g)
        let configured = chain
        var frame = TestImages.frame(g)
        return { configured.process(&frame) }
      },
      Contender(.ffmpeg, "libavfilter eq (on yuv420p, converted from and to bgra)") {
        let frame = TestImages.frame(g)
        let graph = try FilterGraph("[in]format=yuv420p,eq=brightness=0.1:contrast=1.3:saturation=1.5,format=bgra[out]", geometry: g)
        return { try graph.run(frame) }
      },
    ])
  }
}

extension PlanarImage {
  /// The planes as a camfx filter sees a yuv420p picture.
  public var picture: YUV420Picture {
    YUV420Picture(
      width: width, height: height, y: planes[0].baseAddress, yStride: strides[0], u: planes[1].baseAddress,
      uStride: strides[1], v: planes[2].baseAddress, vStride: strides[2])
  }
}
