import Camfx

/// The filter chain of the pipeline benchmarks: `--filter mirror --filter grayscale`
/// and a watermark with the benchmarks' 256x64 mark, configured for `g`.
public enum PipelineChain {
  public static func make(_ g: FrameGeometry) throws -> FilterChain {
    let front = try FilterRegistry.builtin.makeChain(["mirror", "grayscale"])
    var chain = FilterChain(front.filters + [Watermark(image: TestImages.mark())])
    try chain.configure(input: g)
    return chain
  }
}
