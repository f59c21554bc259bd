import Camfx

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
  static func fromYUYV(_ g: FrameGeometry) -> Contender? { nil }
  static func fromNV12(_ g: FrameGeometry) -> Contender? { nil }
}
