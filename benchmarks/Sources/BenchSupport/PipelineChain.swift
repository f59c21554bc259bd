import Camfx

/// The filter chain of the pipeline benchmarks: as many of mirror, grayscale and
/// watermark as are registered (all three once they are on main), configured for `g`.
public enum PipelineChain {
  public static let specs = ["mirror", "grayscale", "watermark"]

  public static func make(_ g: FrameGeometry) throws -> FilterChain {
    let registered = specs.filter { FilterRegistry.builtin.type(named: $0) != nil }
    var chain = try FilterRegistry.builtin.makeChain(registered)
    try chain.configure(input: g)
    return chain
  }
}
