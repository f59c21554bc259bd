import Camfx
import CamfxCapture

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

  static func watermark(_ g: FrameGeometry) -> Contender? { nil }
  static func chain(_ g: FrameGeometry) -> Contender? { nil }
  static func toYUV420p(_ g: FrameGeometry) -> Contender? { nil }
  /// `PixelConverter.convertYUYV`, the camera's YUYV path.
  static func fromYUYV(_ g: FrameGeometry) -> Contender? {
    Contender(.camfx, "PixelConverter.convertYUYV") {
      let image = PlanarImage.yuyv(width: g.width, height: g.height), frame = PixelBuffer(width: g.width, height: g.height)
      image.fillPseudoRandom(seed: 7)
      let source = UnsafeRawPointer(image.planes[0].baseAddress), stride = image.strides[0]
      return { PixelConverter.convertYUYV(source: source, sourceBytesPerRow: stride, to: frame) }
    }
  }

  /// `PixelConverter.convertNV12`, the camera's NV12 path.
  static func fromNV12(_ g: FrameGeometry) -> Contender? {
    Contender(.camfx, "PixelConverter.convertNV12") {
      let image = PlanarImage.nv12(width: g.width, height: g.height), frame = PixelBuffer(width: g.width, height: g.height)
      image.fillPseudoRandom(seed: 11)
      let luma = UnsafeRawPointer(image.planes[0].baseAddress), chroma = UnsafeRawPointer(image.planes[1].baseAddress)
      let lumaStride = image.strides[0], chromaStride = image.strides[1]
      return {
        PixelConverter.convertNV12(
          luma: luma, lumaBytesPerRow: lumaStride, chroma: chroma, chromaBytesPerRow: chromaStride, to: frame)
      }
    }
  }
}
