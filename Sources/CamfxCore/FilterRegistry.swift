/// The filters a program knows by name, in the order `camfx filters` lists them.
///
/// Swift has no static constructors, so the list is explicit, like libavfilter's
/// `allfilters.c`: the `Camfx` module's `FilterRegistry.builtin` names the built-ins,
/// and a program adds its own filters (or loaded plugins) with `registering(_:)`.
public struct FilterRegistry: Sendable {
  public private(set) var filters: [FilterDescriptor]

  public init(_ filters: [FilterDescriptor]) {
    self.filters = filters
  }

  /// This registry plus `filter`.
  /// - Precondition: no filter of the same name is registered yet.
  public func registering(_ filter: FilterDescriptor) -> FilterRegistry {
    precondition(!filters.contains { $0.name == filter.name }, "filter '\(filter.name)' registered twice")
    return FilterRegistry(filters + [filter])
  }

  /// This registry plus a Swift filter type.
  public func registering<F: VideoFilter>(_ type: F.Type) -> FilterRegistry {
    registering(FilterDescriptor(type))
  }

  public func descriptor(named name: String) -> FilterDescriptor? {
    filters.first { $0.name == name }
  }

  /// Creates the filter a spec names, with its options checked.
  /// - Throws: `FilterError` for an unknown name (listing the known ones) or bad options.
  public func makeFilter(_ spec: FilterSpec) throws -> any VideoFilter {
    guard let descriptor = descriptor(named: spec.name) else {
      let known = filters.map { $0.name }.joined(separator: ", ")
      throw FilterError(filter: spec.name, reason: "unknown filter (known: \(known))")
    }
    return try descriptor.makeFilter(spec)
  }

  /// Parses every `--filter` argument (each may hold a `,` chain) into a chain.
  public func makeChain(_ arguments: [String]) throws -> FilterChain {
    var filters: [any VideoFilter] = []
    for argument in arguments {
      for spec in try FilterSpec.parseChain(argument) { filters.append(try makeFilter(spec)) }
    }
    return FilterChain(filters)
  }
}
