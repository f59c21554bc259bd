/// Running a chain on yuv420p pictures, when every filter accepts them
/// (`YUV420VideoFilter`): the decoded picture in, the encoder's picture out, no BGRA.
///
/// The first filter reads the source (a decoded picture, which may still be a reference
/// for the pictures after it, so it is never written) and writes the next picture; each
/// filter that keeps the size then works in place on that picture. The filters from the
/// last size change on write into the destination, so a chain with no crop needs no
/// picture in between; one whose size changes before its last filter writes the
/// pictures before that change into intermediates (`makeYUV420Intermediates()`).
extension FilterChain {
  /// Where one filter of the chain writes its yuv420p output.
  enum YUV420Target {
    case inPlace
    case destination
    case intermediate(Int)
  }

  struct YUV420Step {
    let filter: any YUV420VideoFilter
    let target: YUV420Target
    /// The size the filter writes.
    let output: FrameGeometry
  }

  /// The steps for `filters`, configured to `sizes` (input, then each filter's output);
  /// nil when one of them does not accept yuv420p.
  static func yuv420Steps(_ filters: [any VideoFilter], sizes: [FrameGeometry]) -> [YUV420Step]? {
    let planar = filters.compactMap { ($0 as? any YUV420VideoFilter).flatMap { $0.acceptsYUV420 ? $0 : nil } }
    guard planar.count == filters.count else { return nil }
    // From this filter on, no filter changes the size: they may write the destination.
    let lastResize = filters.indices.last { sizes[$0 + 1] != sizes[$0] } ?? 0
    var steps: [YUV420Step] = []
    var readsSource = true
    var intermediates = 0
    for (i, filter) in planar.enumerated() {
      let target: YUV420Target
      if !readsSource && sizes[i + 1] == sizes[i] {
        target = .inPlace
      } else if i >= lastResize {
        target = .destination
      } else {
        target = .intermediate(intermediates)
        intermediates += 1
      }
      steps.append(YUV420Step(filter: filter, target: target, output: sizes[i + 1]))
      readsSource = false
    }
    return steps
  }

  /// True when every filter accepts yuv420p pictures of its configured size, so the
  /// chain may run on them (`process(yuv420:into:using:)`). Known after `configure`.
  public var acceptsYUV420: Bool { yuv420Steps != nil }

  /// The pictures between filters that `process(yuv420:into:using:)` needs: none unless
  /// the size changes before the last filter. Made once, reused for every frame.
  public func makeYUV420Intermediates() -> [YUV420Planes] {
    guard let steps = yuv420Steps else { preconditionFailure("the chain does not accept yuv420p") }
    return steps.compactMap { step in
      guard case .intermediate = step.target else { return nil }
      return YUV420Planes(width: step.output.width, height: step.output.height)
    }
  }

  /// Runs every filter, in order, from `source` (the configured input size; only read)
  /// into `destination` (the configured output size); an empty chain copies.
  /// - Precondition: `acceptsYUV420`, and `intermediates` came from this chain's
  ///   `makeYUV420Intermediates()`.
  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture, using intermediates: [YUV420Planes]) {
    guard let steps = yuv420Steps else { preconditionFailure("the chain does not accept yuv420p") }
    precondition(
      source.geometry == inputGeometry && destination.geometry == outputGeometry,
      "chain configured for \(inputGeometry.map { "\($0)" } ?? "-") → \(outputGeometry.map { "\($0)" } ?? "-"), got \(source.geometry) → \(destination.geometry)")
    if steps.isEmpty {
      source.copyPixels(to: destination)
      return
    }
    var current = source
    for step in steps {
      let target: YUV420Picture
      switch step.target {
      case .inPlace: target = current
      case .destination: target = destination
      case .intermediate(let index): target = intermediates[index].picture
      }
      step.filter.process(yuv420: current, into: target)
      current = target
    }
  }
}
