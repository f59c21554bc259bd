/// Running a chain on yuv420p pictures, when every filter accepts them
/// (`YUV420VideoFilter`): the decoded picture in, the encoder's picture out, no BGRA.
///
/// The first filter reads the source (a decoded picture, which may still be a reference
/// for the pictures after it, so it is never written) and writes the next picture; each
/// in-place filter that keeps the size then works on that picture. The last filter that
/// writes a picture of its own writes the destination, so a chain with one such filter
/// needs no picture in between; the ones before it write intermediates
/// (`makeYUV420Intermediates()`).
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
  ///
  /// A filter works in place on the picture before it when it keeps the size and works
  /// in place on BGRA too (`InPlaceVideoFilter`); the others — the first, which must not
  /// write the source, and every `ResizingVideoFilter`, even one that keeps the size (a
  /// half turn, a scale to the same size), since they read other rows than they write —
  /// write a picture of their own: the last of them the destination, the ones before it
  /// intermediates.
  static func yuv420Steps(_ filters: [any VideoFilter], sizes: [FrameGeometry]) -> [YUV420Step]? {
    let planar = filters.compactMap { ($0 as? any YUV420VideoFilter).flatMap { $0.acceptsYUV420 ? $0 : nil } }
    guard planar.count == filters.count else { return nil }
    let writes = filters.indices.map { i in i == 0 || sizes[i + 1] != sizes[i] || !(filters[i] is any InPlaceVideoFilter) }
    let lastWriter = writes.lastIndex(of: true) ?? 0
    var steps: [YUV420Step] = []
    var intermediates = 0
    for (i, filter) in planar.enumerated() {
      let target: YUV420Target
      if !writes[i] {
        target = .inPlace
      } else if i == lastWriter {
        target = .destination
      } else {
        target = .intermediate(intermediates)
        intermediates += 1
      }
      steps.append(YUV420Step(filter: filter, target: target, output: sizes[i + 1]))
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

  /// True when every step but the first works in place and the first could too (an
  /// in-place filter that keeps the size): the chain may then run on a picture its
  /// holder may write (`process(yuv420InPlace:)`). Worked out once, by `configure`.
  static func runInPlace(_ steps: [YUV420Step]?, first: (any VideoFilter)?, sizes: [FrameGeometry]) -> Bool {
    guard let steps else { return false }
    guard let first else { return true }
    return first is any InPlaceVideoFilter && sizes[1] == sizes[0] && steps.dropFirst().allSatisfy {
      if case .inPlace = $0.target { return true } else { return false }
    }
  }

  /// Runs every filter, in order, on `picture` itself: what a chain of in-place filters
  /// that keep the size does to a picture nobody else reads, with no second picture to
  /// write.
  /// - Precondition: `runsInPlaceOnYUV420`, and `picture` is the configured size.
  public func process(yuv420InPlace picture: YUV420Picture) {
    guard let steps = yuv420Steps, runsInPlaceOnYUV420 else { preconditionFailure("the chain does not run in place on yuv420p") }
    precondition(picture.geometry == inputGeometry, "chain configured for \(inputGeometry.map { "\($0)" } ?? "-"), got \(picture.geometry)")
    for step in steps { step.filter.process(yuv420: picture, into: picture) }
  }
}
