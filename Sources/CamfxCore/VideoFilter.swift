/// A frame filter: the one shape every built-in and every user's own filter has.
///
/// The lifecycle follows a media filter's (libavfilter's options table → config_props
/// → filter_frame; rpicam-apps' read params → configure → process):
///
/// 1. `init(options:)` parses and validates the options once, before any frame.
/// 2. `configure(input:)` is called once with the geometry of the frames it will get
///    and returns the geometry it will hand on (a crop returns a smaller one). It throws
///    if the filter cannot work on that input, so impossible chains fail before the
///    first frame, never mid-stream. Choose the per-frame kernel here.
/// 3. A process call on every frame, which must not allocate. A filter takes one of two
///    forms: `InPlaceVideoFilter` changes the frame it is given (or narrows its view,
///    as a crop does); `ResizingVideoFilter` reads its source frame and writes a
///    destination frame of the size `configure` returned, which the chain takes from a
///    pool sized once for the session (a scale, a pad, a rotation).
///
/// A minimal filter that inverts colours:
///
///     struct Invert: InPlaceVideoFilter {
///       static let name = "invert"
///       static let summary = "Inverts B, G and R."
///       static let example = "camfx snapshot --filter invert -o out.png"
///       static let options: [FilterOption] = []
///       init(options: FilterOptions) throws {}
///       mutating func configure(input: FrameGeometry) throws -> FrameGeometry { input }
///       func process(_ frame: inout PixelBuffer) { /* ... */ }
///     }
///
/// Register it with `FilterRegistry.registering(FilterDescriptor(Invert.self))`.
public protocol VideoFilter: Sendable {
  /// The name used in `--filter NAME=...`; lower case.
  static var name: String { get }
  /// One line for `camfx filters`.
  static var summary: String { get }
  /// A runnable `camfx` command line using this filter.
  static var example: String { get }
  /// The keys this filter accepts, with types, defaults and help.
  static var options: [FilterOption] { get }

  /// Parses and validates options, once.
  /// - Throws: `FilterError` naming the key and value that are wrong.
  init(options: FilterOptions) throws

  /// Prepares for frames of `input` size and returns the size of the frames it emits.
  /// - Throws: `FilterError` when the filter cannot work on such frames.
  mutating func configure(input: FrameGeometry) throws -> FrameGeometry
}

/// A filter that works on the frame it is given: it changes pixels in place, or
/// narrows the frame's view without copying (crop).
public protocol InPlaceVideoFilter: VideoFilter {
  /// Filters one frame in place. Called on the filter stage's thread only.
  func process(_ frame: inout PixelBuffer)
}

/// A filter that writes a new frame: its output has another size than its input, or
/// its pixels move between rows and columns (scale, pad, rotate).
///
/// The chain gives it a destination from a pool of the configured output size, made
/// once before the first frame, so the form allocates nothing per frame either.
public protocol ResizingVideoFilter: VideoFilter {
  /// Writes the filtered `source` (the configured input size) into `destination` (the
  /// size `configure` returned; never the same memory as `source`). Called on the
  /// filter stage's thread only.
  func process(_ source: PixelBuffer, into destination: inout PixelBuffer)
}
