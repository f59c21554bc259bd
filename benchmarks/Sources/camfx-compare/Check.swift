import BenchSupport
import Camfx
import CamfxCapture
import CamfxCore
import CamfxMedia
import CPeers
import CamfxPixelFormats

/// `camfx-compare check`: runs camfx and each peer once on the same input and prints the
/// largest per-byte difference between their outputs, so the table compares the same
/// work (a peer set up wrong would show up here, not as a flattering ratio).
func runCheck(_ options: Options) throws {
  let g = options.sizes.first { $0.width == 1920 } ?? options.sizes[0]
  let source = TestImages.frame(g)
  func fresh() -> PixelBuffer {
    let f = PixelBuffer(width: g.width, height: g.height)
    f.copyPixels(from: source)
    return f
  }
  func report(_ what: String, _ a: PixelBuffer, _ b: PixelBuffer) {
    print("\(what.padding(toLength: 58, withPad: " ", startingAt: 0)) max |difference| \(maxDifference(a, b))")
  }

  // grayscale
  var camfxGray = fresh()
  var grayChain = try FilterRegistry.builtin.makeChain(["grayscale"])
  try grayChain.configure(input: g)
  grayChain.process(&camfxGray)
  let yuvGray = fresh()
  try LibYUV.gray(yuvGray)
  let avfGray = PixelBuffer(width: g.width, height: g.height)
  try FilterGraph("[in]format=gray,format=bgra[out]", geometry: g).run(fresh(), copyOut: avfGray)
  report("grayscale: camfx vs libyuv ARGBGray", camfxGray, yuvGray)
  report("grayscale: camfx vs libavfilter format=gray,format=bgra", camfxGray, avfGray)

  // mirror
  var camfxMirror = fresh()
  var mirrorChain = try FilterRegistry.builtin.makeChain(["mirror"])
  try mirrorChain.configure(input: g)
  mirrorChain.process(&camfxMirror)
  let yuvMirror = PixelBuffer(width: g.width, height: g.height)
  try LibYUV.mirror(source, into: yuvMirror)
  let avfMirror = PixelBuffer(width: g.width, height: g.height)
  try FilterGraph("[in]hflip[out]", geometry: g).run(fresh(), copyOut: avfMirror)
  report("mirror: camfx vs libyuv ARGBMirror", camfxMirror, yuvMirror)
  report("mirror: camfx vs libavfilter hflip", camfxMirror, avfMirror)

  // crop
  let r = TestImages.cropRect(of: g)
  var cropChain = try FilterRegistry.builtin.makeChain(["crop=x=\(r.x):y=\(r.y):width=\(r.width):height=\(r.height)"])
  try cropChain.configure(input: g)
  var camfxCrop = fresh()
  cropChain.process(&camfxCrop)
  var rect = source
  rect.crop(x: r.x, y: r.y, width: r.width, height: r.height)
  let yuvCrop = PixelBuffer(width: r.width, height: r.height)
  try LibYUV.copy(rect, into: yuvCrop)
  let avfCrop = PixelBuffer(width: r.width, height: r.height)
  try FilterGraph("[in]crop=w=\(r.width):h=\(r.height):x=\(r.x):y=\(r.y)[out]", geometry: g).run(fresh(), copyOut: avfCrop)
  report("crop: camfx view vs libyuv ARGBCopy", camfxCrop, yuvCrop)
  report("crop: camfx view vs libavfilter crop", camfxCrop, avfCrop)

  // watermark
  var markChain = FilterChain([Watermark(image: TestImages.mark())])
  try markChain.configure(input: g)
  var camfxMark = fresh()
  markChain.process(&camfxMark)
  let o = TestImages.markOrigin(on: g)
  let yuvMark = fresh()
  try LibYUV.blend(try LibYUV.premultiplied(TestImages.mark()), over: yuvMark, x: o.x, y: o.y)
  let avfMark = PixelBuffer(width: g.width, height: g.height)
  try FilterGraph("[in][mark]overlay=x=\(o.x):y=\(o.y):format=rgb[out]", geometry: g, mark: TestImages.mark())
    .run(fresh(), copyOut: avfMark)
  report("watermark: camfx vs libyuv ARGBBlend", camfxMark, yuvMark)
  report("watermark: camfx vs libavfilter overlay", camfxMark, avfMark)
  report("watermark: camfx vs the unmarked frame (must differ)", camfxMark, source)

  // scale to 2/3 and 1/2: each camfx method against the peer filter the table pairs it
  // with (libyuv rounds its bilinear fractions to 8 bits, libswscale to its own steps).
  let twoThirds = FrameGeometry(width: g.width * 2 / 3 & ~1, height: g.height * 2 / 3 & ~1)
  let half = FrameGeometry(width: g.width / 2, height: g.height / 2)
  for (out, method, peer, name) in [
    (twoThirds, ScaleMethod.fastBilinear, CAMFX_PEER_SCALE_BILINEAR, "fast_bilinear"),
    (half, .area, CAMFX_PEER_SCALE_AREA, "area"),
  ] {
    var scale = try Scale(width: out.width, height: out.height, method: method)
    _ = try scale.configure(input: g)
    var ours = PixelBuffer(width: out.width, height: out.height)
    scale.process(source, into: &ours)
    let yuv = PixelBuffer(width: out.width, height: out.height)
    try LibYUV.scale(source, into: yuv, method: peer)
    report("scale \(out) \(name): camfx vs libyuv ARGBScale", ours, yuv)
  }
  for (method, peer) in [(ScaleMethod.bilinear, CAMFX_PEER_SCALE_BILINEAR), (.bicubic, CAMFX_PEER_SCALE_BICUBIC)] {
    var scale = try Scale(width: twoThirds.width, height: twoThirds.height, method: method)
    _ = try scale.configure(input: g)
    var ours = PixelBuffer(width: twoThirds.width, height: twoThirds.height)
    scale.process(source, into: &ours)
    let sws = PixelBuffer(width: twoThirds.width, height: twoThirds.height)
    try SwscaleConverter(from: g, to: twoThirds, format: CAMFX_PEER_BGRA, method: peer).scale(source, into: sws)
    report("scale \(twoThirds) \(method.rawValue): camfx vs libswscale", ours, sws)
  }

  // BGRA -> yuv420p, on the benchmarks' noise and on a smooth frame. On noise, chroma
  // depends on how each library filters before subsampling: camfx and libyuv take the
  // 2×2 mean, libswscale's SWS_BILINEAR a wider, differently sited filter, so its U and
  // V differ by tens there. On smooth input the filters agree, and what is left is the
  // matrix, the range and rounding, which must agree within 2.
  try checkToYUV420(source, "noise")
  try checkToYUV420(TestImages.smoothFrame(g), "smooth")

  // YUYV, NV12 -> BGRA, on random samples and on a smooth picture (the smooth frame
  // converted by libswscale). libswscale's SWS_BILINEAR interpolates chroma between
  // samples (NV12 vertically too), camfx and libyuv repeat the nearest one; on random
  // chroma that alone moves a channel from 0 to 255. On smooth chroma, what is left is
  // the matrix, the range and rounding, which must agree within 3.
  let smooth = TestImages.smoothFrame(g)
  for (name, format, seed) in [("yuyv", CAMFX_PEER_YUYV422, UInt64(7)), ("nv12", CAMFX_PEER_NV12, 11)] {
    let random = format == CAMFX_PEER_NV12 ? PlanarImage.nv12(width: g.width, height: g.height) : PlanarImage.yuyv(width: g.width, height: g.height)
    random.fillPseudoRandom(seed: seed)
    let plain = format == CAMFX_PEER_NV12 ? PlanarImage.nv12(width: g.width, height: g.height) : PlanarImage.yuyv(width: g.width, height: g.height)
    try SwscaleConverter(width: g.width, height: g.height, from: CAMFX_PEER_BGRA, to: format).convert(smooth, into: plain)
    for (what, image) in [("random", random), ("smooth", plain)] {
      let ours = PixelBuffer(width: g.width, height: g.height), yuv = PixelBuffer(width: g.width, height: g.height)
      let sws = PixelBuffer(width: g.width, height: g.height)
      if format == CAMFX_PEER_NV12 {
        PixelConverter.convertNV12(
          luma: UnsafeRawPointer(image.planes[0].baseAddress), lumaBytesPerRow: image.strides[0],
          chroma: UnsafeRawPointer(image.planes[1].baseAddress), chromaBytesPerRow: image.strides[1], to: ours)
        try LibYUV.fromNV12(image, into: yuv)
      } else {
        PixelConverter.convertYUYV(source: UnsafeRawPointer(image.planes[0].baseAddress), sourceBytesPerRow: image.strides[0], to: ours)
        try LibYUV.fromYUY2(image, into: yuv)
      }
      try SwscaleConverter(width: g.width, height: g.height, from: format, to: CAMFX_PEER_BGRA).convert(image, into: sws)
      report("\(name)-to-bgra (\(what)): camfx vs libyuv", ours, yuv)
      report("\(name)-to-bgra (\(what)): camfx vs libswscale", ours, sws)
    }
  }

  // YUYV, NV12 -> yuv420p: camfx and libyuv both take chroma's rounded two-row mean
  // (YUYV) or copy it (NV12), so their planes must be equal byte for byte.
  for camera in CameraToYUV420.all {
    let random = camera.source(g, seed: 5)
    let ours = PlanarImage.yuv420p(width: g.width, height: g.height), yuv = PlanarImage.yuv420p(width: g.width, height: g.height)
    camera.layout(random).convert(to: ours.picture)
    try camera.libyuv.convert(random, yuv)
    // The pictures are raw pointers into the images: keep the images alive past them.
    let diffs = withExtendedLifetime((ours, yuv)) { maxDifferences(ours.picture, yuv.picture) }
    print("\(camera.name) (random): camfx vs libyuv".padding(toLength: 58, withPad: " ", startingAt: 0) + " max |difference| Y \(diffs[0]), U \(diffs[1]), V \(diffs[2])")
  }
}

/// camfx's BGRA → yuv420p next to libyuv's and libswscale's, per plane.
func checkToYUV420(_ source: PixelBuffer, _ what: String) throws {
  let g = source.geometry
  let camfxPlanes = YUV420Planes(width: g.width, height: g.height)
  BGRAToYUV420.convert(source, into: camfxPlanes)
  let yuvPlanes = PlanarImage.yuv420p(width: g.width, height: g.height)
  try LibYUV.toI420(source, into: yuvPlanes)
  let swsPlanes = PlanarImage.yuv420p(width: g.width, height: g.height)
  try SwscaleConverter(width: g.width, height: g.height, from: CAMFX_PEER_BGRA, to: CAMFX_PEER_YUV420P)
    .convert(source, into: swsPlanes)
  for (name, peer) in [("libyuv ARGBToI420", yuvPlanes), ("libswscale", swsPlanes)] {
    let diffs = withExtendedLifetime((camfxPlanes, peer)) { maxDifferences(camfxPlanes.picture, peer.picture) }
    print("bgra-to-yuv420p (\(what)): camfx vs \(name)".padding(toLength: 58, withPad: " ", startingAt: 0) + " max |difference| Y \(diffs[0]), U \(diffs[1]), V \(diffs[2])")
  }
}

/// The largest difference in each of two same-size pictures' planes, Y, U and V
/// (padding ignored). The caller keeps the memory the pictures point at alive.
func maxDifferences(_ a: YUV420Picture, _ b: YUV420Picture) -> [Int] {
  (0..<3).map { index in
    let p = a.plane(index), q = b.plane(index)
    var m = 0
    for y in 0..<p.height {
      for x in 0..<p.width { m = max(m, abs(Int(p.base[y * p.stride + x]) - Int(q.base[y * q.stride + x]))) }
    }
    return m
  }
}

/// The largest difference between two same-size frames over all bytes (padding ignored).
func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> String {
  guard a.width == b.width, a.height == b.height else { return "sizes differ: \(a.geometry) vs \(b.geometry)" }
  var m = 0
  a.withUnsafeBytes { pa in
    b.withUnsafeBytes { pb in
      for y in 0..<a.height {
        let ra = (pa + y * a.bytesPerRow).assumingMemoryBound(to: UInt8.self)
        let rb = (pb + y * b.bytesPerRow).assumingMemoryBound(to: UInt8.self)
        for x in 0..<(a.width * 4) { m = max(m, abs(Int(ra[x]) - Int(rb[x]))) }
      }
    }
  }
  return "\(m)"
}
