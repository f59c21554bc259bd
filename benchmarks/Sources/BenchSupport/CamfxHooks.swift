import Camfx
import CamfxCapture
import CamfxCore
import CamfxMedia
import CamfxPixelFormats

/// camfx's side of each operation, through the same public API the pipeline uses.
/// Each returns `nil` while the kernel it needs is not on main.
enum CamfxHooks {
  /// `specs` as `--filter` arguments, configured for `g`, run on a fresh view of the
  /// same frame every time (crop narrows the view it is given).
  static func filterChain(_ specs: [String], _ g: FrameGeometry) -> Contender? {
    guard (try? FilterRegistry.builtin.makeChain(specs)) != nil else { return nil }
    return Contender(.camfx, specs.joined(separator: ",")) {
      var chain = try FilterRegistry.builtin.makeChain(specs)
      try chain.configure(input: g)
      let configured = chain
      let original = TestImages.frame(g)
      var frame = original
      return {
        frame = original
        configured.process(&frame)
      }
    }
  }

  /// The `watermark` filter with the benchmarks' 256x64 mark at its default place
  /// (bottom-right, margin 16), made with `Watermark(image:)` as `image=` would.
  static func watermark(_ g: FrameGeometry) -> Contender? {
    Contender(.camfx, "watermark (256x64 mark)") {
      var chain = FilterChain([Watermark(image: TestImages.mark())])
      try chain.configure(input: g)
      let configured = chain
      var frame = TestImages.frame(g)
      return { configured.process(&frame) }
    }
  }

  /// mirror → grayscale → watermark through one `FilterChain`.
  static func chain(_ g: FrameGeometry) -> Contender? {
    Contender(.camfx, "mirror,grayscale,watermark") {
      let configured = try PipelineChain.make(g)
      var frame = TestImages.frame(g)
      return { configured.process(&frame) }
    }
  }

  /// `BGRAToYUV420.convert`, the adaptor's converter.
  static func toYUV420p(_ g: FrameGeometry) -> Contender? {
    Contender(.camfx, "BGRAToYUV420.convert") {
      let frame = TestImages.frame(g), planes = YUV420Planes(width: g.width, height: g.height)
      return { BGRAToYUV420.convert(frame, into: planes) }
    }
  }
  /// `PixelConverter.convertYUYV`, the camera's YUYV path.
  static func fromYUYV(_ g: FrameGeometry) -> Contender? {
    Contender(.camfx, "PixelConverter.convertYUYV") {
      let image = PlanarImage.yuyv(width: g.width, height: g.height), frame = PixelBuffer(width: g.width, height: g.height)
      image.fillPseudoRandom(seed: 7)
      let plane = image.planes[0], stride = image.strides[0]
      // The closure holds `plane`, so the bytes live as long as the job.
      return { PixelConverter.convertYUYV(source: UnsafeRawPointer(plane.baseAddress), sourceBytesPerRow: stride, to: frame) }
    }
  }

  /// `PixelConverter.convertI420`, the transcoder's decoded-picture path.
  static func fromI420(_ g: FrameGeometry) -> Contender? {
    Contender(.camfx, "PixelConverter.convertI420") {
      let image = PlanarImage.yuv420p(width: g.width, height: g.height), frame = PixelBuffer(width: g.width, height: g.height)
      image.fillPseudoRandom(seed: 13)
      let planes = image.planes, strides = image.strides
      // The closure holds the planes, so their bytes live as long as the job.
      return {
        PixelConverter.convertI420(
          luma: UnsafeRawPointer(planes[0].baseAddress), lumaBytesPerRow: strides[0],
          cb: UnsafeRawPointer(planes[1].baseAddress), cr: UnsafeRawPointer(planes[2].baseAddress),
          chromaBytesPerRow: strides[1], to: frame)
      }
    }
  }

  /// `PixelConverter.convertNV12`, the camera's NV12 path, then the next stage `reader` makes (if any) on the
  /// frame it wrote.
  static func fromNV12(_ g: FrameGeometry, readBy reader: Catalog.NextStage? = nil) -> Contender? {
    Contender(.camfx, "PixelConverter.convertNV12" + (reader.map { "+\($0.name)" } ?? "")) {
      let image = PlanarImage.nv12(width: g.width, height: g.height), frame = PixelBuffer(width: g.width, height: g.height)
      image.fillPseudoRandom(seed: 11)
      let lumaPlane = image.planes[0], chromaPlane = image.planes[1]
      let lumaStride = image.strides[0], chromaStride = image.strides[1]
      let read = reader?.make()
      // The closure holds both planes, so their bytes live as long as the job.
      return {
        PixelConverter.convertNV12(
          luma: UnsafeRawPointer(lumaPlane.baseAddress), lumaBytesPerRow: lumaStride,
          chroma: UnsafeRawPointer(chromaPlane.baseAddress), chromaBytesPerRow: chromaStride, to: frame)
        try read?(frame)
      }
    }
  }
}
