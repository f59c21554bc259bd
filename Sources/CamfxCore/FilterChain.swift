/// Filters run in command-line order on every frame.
///
/// The chain negotiates geometry once, before the first frame: each filter's output
/// size is the next one's input size, and a filter that cannot take its input throws
/// then — never mid-stream.
///
/// On BGRA frames, in-place filters work on the frame they are given and each resizing
/// filter writes a frame from a pool of its own output size (`makeBuffers(capacity:)`),
/// after which the frame it read goes back to its pool:
///
///     source frame ──▶ mirror (in place) ──▶ scale ──▶ frame from pool 0 ──▶ grayscale (in place) ──▶ out
public struct FilterChain: Sendable {
  public private(set) var filters: [any VideoFilter]
  public private(set) var inputGeometry: FrameGeometry?
  public private(set) var outputGeometry: FrameGeometry?
  /// How the chain runs on BGRA frames; set by `configure` (cast once, not per frame: a
  /// cast between existentials may copy a large filter into a new box).
  fileprivate var bgraSteps: [BGRAStep] = []
  /// The filters as `RowLocalVideoFilter`s when every one of them is row-local and the
  /// frame size does not change; set by `configure`.
  private var rowLocalFilters: [any RowLocalVideoFilter]?
  /// How the chain runs on yuv420p pictures, when every filter accepts them; set by
  /// `configure` (see `FilterChain+YUV420.swift`).
  var yuv420Steps: [YUV420Step]?

  fileprivate enum BGRAStep: Sendable {
    case inPlace(any InPlaceVideoFilter)
    /// The filter and the index of the pool it writes into.
    case resizing(any ResizingVideoFilter, pool: Int)
  }

  public init(_ filters: [any VideoFilter] = []) {
    self.filters = filters
  }

  /// Tells every filter that shows the capture time what timestamps mean.
  /// - Precondition: called before `configure(input:)`.
  public mutating func setClock(_ clock: FrameClock) {
    precondition(inputGeometry == nil, "set the clock before configuring the chain")
    for i in filters.indices {
      guard var clocked = filters[i] as? any ClockedVideoFilter else { continue }
      clocked.setClock(clock)
      filters[i] = clocked
    }
  }

  public var isEmpty: Bool { filters.isEmpty }
  /// False until `configure(input:)`: an unconfigured chain would pass frames through
  /// unfiltered, so processing one is a programming error (an empty chain needs none).
  public var isConfigured: Bool { inputGeometry != nil || filters.isEmpty }
  public var names: [String] { filters.map { type(of: $0).name } }

  /// Configures every filter for frames of `input` size.
  /// - Returns: the size of the frames the chain emits.
  /// - Throws: the first filter's `FilterError` that cannot take its input.
  @discardableResult
  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    var geometry = input
    var sizes = [input]  // sizes[i] is filter i's input, sizes[i + 1] its output
    for i in filters.indices {
      let name = type(of: filters[i]).name
      geometry = try filters[i].configure(input: geometry)
      guard geometry.width > 0, geometry.height > 0 else {
        throw FilterError(filter: name, reason: "produces an empty frame from \(input)")
      }
      guard geometry.width <= FrameGeometry.maximumSide, geometry.height <= FrameGeometry.maximumSide else {
        throw FilterError(filter: name, reason: "produces a \(geometry) frame, larger than \(FrameGeometry.maximumSide) on a side")
      }
      sizes.append(geometry)
      guard filters[i] is any ResizingVideoFilter || filters[i] is any InPlaceVideoFilter else {
        throw FilterError(filter: name, reason: "has no way to process BGRA frames (neither in place nor resizing)")
      }
    }
    plan(sizes: sizes)
    return geometry
  }

  /// Works out how the configured filters run, for frames of `sizes` (the input size,
  /// then each filter's output size).
  private mutating func plan(sizes: [FrameGeometry]) {
    var steps: [BGRAStep] = []
    var pools = 0
    for filter in filters {
      if let resizing = filter as? any ResizingVideoFilter {
        steps.append(.resizing(resizing, pool: pools))
        pools += 1
      } else if let inPlace = filter as? any InPlaceVideoFilter {
        steps.append(.inPlace(inPlace))
      }
    }
    let input = sizes[0], geometry = sizes[sizes.count - 1]
    self.sizes = sizes
    inputGeometry = input
    outputGeometry = geometry
    bgraSteps = steps
    let rowLocal = filters.compactMap { ($0 as? any RowLocalVideoFilter).flatMap { $0.isRowLocal ? $0 : nil } }
    rowLocalFilters = geometry == input && rowLocal.count == filters.count ? rowLocal : nil
    let bandFilters = filters.compactMap {
      ($0 as? any RowLocalYUV420Filter).flatMap { $0.isRowLocal && $0.acceptsYUV420 ? $0 : nil }
    }
    yuv420BandFilters = geometry == input && !filters.isEmpty && bandFilters.count == filters.count ? bandFilters : nil
    yuv420Steps = Self.yuv420Steps(filters, sizes: sizes)
    runsInPlaceOnYUV420 = Self.runInPlace(yuv420Steps, first: filters.first, sizes: sizes)
    resizedGeometries = steps.indices.compactMap { i in
      if case .resizing = steps[i] { return sizes[i + 1] } else { return nil }
    }
  }

  /// True when the chain accepts yuv420p and no filter changes the size or reads other
  /// rows than it writes, so that it may run in place on a picture its holder may write
  /// (`process(yuv420InPlace:)`). Known after `configure`.
  public private(set) var runsInPlaceOnYUV420 = false

  /// The sizes the configured chain works on: the input, then each filter's output.
  private var sizes: [FrameGeometry] = []

  /// Filters `range` of this configured chain as a configured chain of their own (the
  /// filters are not configured again): how a frame path runs the parts of a chain
  /// that take yuv420p and the parts that need BGRA each in their own way.
  public func subchain(_ range: Range<Int>) -> FilterChain {
    precondition(inputGeometry != nil, "configure the chain before taking part of it")
    var part = FilterChain(Array(filters[range]))
    part.plan(sizes: Array(sizes[range.lowerBound...range.upperBound]))
    return part
  }

  /// True when filter `index` of the configured chain works on yuv420p pictures of its
  /// configured size (`YUV420VideoFilter.acceptsYUV420`).
  public func acceptsYUV420(filterAt index: Int) -> Bool {
    (filters[index] as? any YUV420VideoFilter)?.acceptsYUV420 == true
  }

  /// The output size of each resizing filter, in order (one pool each).
  private var resizedGeometries: [FrameGeometry] = []

  /// True when some filter writes new frames, so `process(_:using:shouldStop:)` needs
  /// buffers from `makeBuffers(capacity:)`. Known after `configure`.
  public var hasResizingFilters: Bool { !resizedGeometries.isEmpty }

  /// The pools the resizing filters write into, made once: the last one holds
  /// `capacity` frames (as many as the stages after the chain may hold at once), the
  /// ones before it a single frame each (the next resizing filter reads it at once and
  /// lets it go). Pages of pooled frames take RAM only when first used.
  public func makeBuffers(capacity: Int) -> FilterChainBuffers {
    precondition(capacity > 0)
    let pools = resizedGeometries.indices.map { i in
      PixelBufferPool(geometry: resizedGeometries[i], capacity: i == resizedGeometries.count - 1 ? capacity : 1)
    }
    return FilterChainBuffers(pools: pools)
  }

  /// True when every filter is row-local (`RowLocalVideoFilter`) and the frame size
  /// does not change, so the chain may run on bands of rows. Known after `configure`.
  public var isRowLocal: Bool { rowLocalFilters != nil }

  /// Runs every filter, in order, on rows `firstRow ..< firstRow + band.height` of a
  /// frame of the configured size; the same pixels as the whole frame gives those rows.
  /// - Precondition: `isRowLocal`.
  public func process(band: inout PixelBuffer, firstRow: Int) {
    guard let rowLocalFilters else { preconditionFailure("the chain is not row-local") }
    for filter in rowLocalFilters { filter.process(band: &band, firstRow: firstRow) }
  }

  /// The filters as `RowLocalYUV420Filter`s when there is at least one and every one
  /// of them works on bands of yuv420p pictures of the configured size.
  private var yuv420BandFilters: [any RowLocalYUV420Filter]?

  /// True when the chain has filters and every one works in place on bands of yuv420p
  /// pictures (`RowLocalYUV420Filter`), so a source may run it as it converts
  /// (`process(yuv420Band:firstRow:)`). Known after `configure`.
  public var runsOnYUV420Bands: Bool { yuv420BandFilters != nil }

  /// Runs every filter, in order, in place on rows `firstRow ..< firstRow + band.height`
  /// of a yuv420p picture of the configured size; the same samples as the whole
  /// picture gets in those rows.
  /// - Precondition: `runsOnYUV420Bands`; `firstRow` is even.
  public func process(yuv420Band band: YUV420Picture, firstRow: Int) {
    guard let yuv420BandFilters else { preconditionFailure("the chain does not run on yuv420p bands") }
    for filter in yuv420BandFilters { filter.process(yuv420Band: band, firstRow: firstRow) }
  }

  /// Runs every filter on `frame`, in order, and returns the filtered frame: `frame`
  /// itself when no filter resizes, else a frame from `buffers`. Returns nil only if
  /// `shouldStop` turns true while every frame of a pool is held downstream.
  /// - Precondition: `configure(input:)` was called with this frame's size, and
  ///   `buffers` came from this chain's `makeBuffers(capacity:)`.
  public func process(
    _ frame: PixelBuffer, using buffers: FilterChainBuffers, shouldStop: () -> Bool = { false }
  ) -> PixelBuffer? {
    precondition(isConfigured, "configure(input:) the chain before it processes frames")
    var current = frame
    for step in bgraSteps {
      switch step {
      case .inPlace(let filter):
        filter.process(&current)
      case .resizing(let filter, let pool):
        guard var destination = buffers.pools[pool].acquire(presentationTime: current.presentationTime, shouldStop: shouldStop)
        else { return nil }
        filter.process(current, into: &destination)
        current = destination
      }
    }
    return current
  }
}

extension FilterChain {
  /// Runs a chain of in-place filters on `frame` (a crop narrows its view): the form
  /// for chains with no resizing filter, which need no pooled frames.
  /// - Precondition: configured for this frame's size, and `!hasResizingFilters`.
  public func process(_ frame: inout PixelBuffer) {
    precondition(isConfigured, "configure(input:) the chain before it processes frames")
    precondition(!hasResizingFilters, "a chain with resizing filters needs buffers: process(_:using:shouldStop:)")
    for step in bgraSteps {
      if case .inPlace(let filter) = step { filter.process(&frame) }
    }
  }
}

/// The frames a chain's resizing filters write, one pool per resizing filter
/// (`FilterChain.makeBuffers(capacity:)`); empty for a chain that only works in place.
public struct FilterChainBuffers: Sendable {
  let pools: [PixelBufferPool]
}
