/// Filters run in command-line order on every frame.
///
/// The chain negotiates geometry once, before the first frame: each filter's output
/// size is the next one's input size, and a filter that cannot take its input throws
/// then — never mid-stream.
public struct FilterChain: Sendable {
  public private(set) var filters: [any VideoFilter]
  public private(set) var inputGeometry: FrameGeometry?
  public private(set) var outputGeometry: FrameGeometry?
  /// The filters as `RowLocalVideoFilter`s when every one of them is row-local and the
  /// frame size does not change; set by `configure` (cast once, not per band: a cast
  /// between existentials may copy a large filter into a new box).
  private var rowLocalFilters: [any RowLocalVideoFilter]?
  /// How the chain runs on yuv420p pictures, when every filter accepts them; set by
  /// `configure` (see `FilterChain+YUV420.swift`).
  var yuv420Steps: [YUV420Step]?

  public init(_ filters: [any VideoFilter] = []) {
    self.filters = filters
  }

  public var isEmpty: Bool { filters.isEmpty }
  public var names: [String] { filters.map { type(of: $0).name } }

  /// Configures every filter for frames of `input` size.
  /// - Returns: the size of the frames the chain emits.
  /// - Throws: the first filter's `FilterError` that cannot take its input.
  @discardableResult
  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    var geometry = input
    var sizes = [input]  // sizes[i] is filter i's input, sizes[i + 1] its output
    for i in filters.indices {
      geometry = try filters[i].configure(input: geometry)
      guard geometry.width > 0, geometry.height > 0 else {
        throw FilterError(filter: type(of: filters[i]).name, reason: "produces an empty frame from \(input)")
      }
      sizes.append(geometry)
    }
    inputGeometry = input
    outputGeometry = geometry
    let rowLocal = filters.compactMap { ($0 as? any RowLocalVideoFilter).flatMap { $0.isRowLocal ? $0 : nil } }
    rowLocalFilters = geometry == input && rowLocal.count == filters.count ? rowLocal : nil
    yuv420Steps = Self.yuv420Steps(filters, sizes: sizes)
    return geometry
  }

  /// True when every filter is row-local (`RowLocalVideoFilter`) and the frame size
  /// does not change, so the chain may run on bands of rows. Known after `configure`.
  public var isRowLocal: Bool { rowLocalFilters != nil }

  /// Runs every filter, in order, on rows `firstRow ..< firstRow + band.height` of a
  /// frame of the configured size; the same pixels as `process(_:)` gives those rows.
  /// - Precondition: `isRowLocal`.
  public func process(band: inout PixelBuffer, firstRow: Int) {
    guard let rowLocalFilters else { preconditionFailure("the chain is not row-local") }
    for filter in rowLocalFilters { filter.process(band: &band, firstRow: firstRow) }
  }

  /// Runs every filter on `frame`, in order.
  /// - Precondition: `configure(input:)` was called with this frame's size.
  public func process(_ frame: inout PixelBuffer) {
    for filter in filters { filter.process(&frame) }
  }
}
