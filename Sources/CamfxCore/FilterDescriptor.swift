/// What a registry knows of one filter: its name, summary, example and option table,
/// and how to make one from checked options.
///
/// Built-in filters, a program's own Swift filters and run-time plugins (frei0r) are
/// all descriptors, so `camfx filters`, `--filter` parsing and its error messages treat
/// them alike. A descriptor for a Swift filter type comes from its static metadata
/// (`FilterDescriptor(Mirror.self)`); a plugin's is built from what the plugin says of
/// itself when it is loaded.
public struct FilterDescriptor: Sendable {
  /// The name used in `--filter NAME=...`.
  public let name: String
  /// One line for `camfx filters`.
  public let summary: String
  /// A runnable `camfx` command line using this filter.
  public let example: String
  /// The keys the filter accepts (for a plugin host such as frei0r: the keys every
  /// plugin takes; each plugin adds its own).
  public let options: [FilterOption]
  /// More text for `camfx filters` after the options (a plugin host lists its plugins).
  public let catalogDetail: (@Sendable () -> String)?
  private let factory: @Sendable (FilterSpec) throws -> any VideoFilter

  /// A descriptor for a filter known only at run time, whose keys are `options`.
  /// - Parameter make: creates the filter from options already checked against `options`.
  public init(
    name: String, summary: String, example: String, options: [FilterOption],
    make: @escaping @Sendable (FilterOptions) throws -> any VideoFilter
  ) {
    self.init(name: name, summary: summary, example: example, options: options) { spec in
      try make(FilterOptions(filter: name, table: options, arguments: spec.arguments))
    }
  }

  /// A descriptor whose filter reads the spec itself: a plugin host, whose keys depend
  /// on which plugin `spec` names. `make` must check every key it is given, with
  /// `FilterOptions`, as the built-ins do.
  public init(
    name: String, summary: String, example: String, options: [FilterOption],
    catalogDetail: (@Sendable () -> String)? = nil,
    makeFromSpec: @escaping @Sendable (FilterSpec) throws -> any VideoFilter
  ) {
    self.name = name
    self.summary = summary
    self.example = example
    self.options = options
    self.catalogDetail = catalogDetail
    self.factory = makeFromSpec
  }

  /// The descriptor of a Swift filter type, from its static metadata.
  public init<F: VideoFilter>(_ type: F.Type) {
    self.init(name: F.name, summary: F.summary, example: F.example, options: F.options) { try F(options: $0) }
  }

  /// Makes the filter `spec` asks for.
  /// - Throws: `FilterError` for an unknown key, a missing required key or a bad value,
  ///   and whatever the filter's own checks throw.
  public func makeFilter(_ spec: FilterSpec) throws -> any VideoFilter {
    try factory(spec)
  }
}
