/// The kinds of live source a program knows, in the order a `--source` value is tried
/// against them (the first whose `parse` takes it wins), like `FilterRegistry` for
/// filters: `builtin` names camfx's own, and a program adds its kinds with
/// `registering(_:)`.
public struct SourceRegistry: Sendable {
  public private(set) var kinds: [any LiveSourceSpec.Type]

  public init(_ kinds: [any LiveSourceSpec.Type]) {
    self.kinds = kinds
  }

  /// camfx's kinds: `testsrc`, a movie by its extension (before the camera rule: a
  /// movie in /dev/shm is a movie), a camera under /dev/, and anything else a PNG.
  public static let builtin = SourceRegistry([
    TestPatternSpec.self,
    MovieSourceSpec.self,
    CameraSpec.self,
    ImageSpec.self,
  ])

  /// This registry with `kind` tried before every kind already in it (so that it can
  /// take values a built-in kind would, such as a path of its own under /dev/).
  public func registering(_ kind: any LiveSourceSpec.Type) -> SourceRegistry {
    SourceRegistry([kind] + kinds)
  }

  /// The source `text` names.
  /// - Throws: `SourceError` for an empty value, one no kind takes, or what the kind
  ///   that takes it throws.
  public func parse(_ text: String) throws -> SourceSpec {
    if text.isEmpty { throw SourceError(source: text, reason: "empty source (expected testsrc, FILE.png or /dev/videoN)") }
    for kind in kinds {
      if let spec = try kind.parse(text) { return SourceSpec(spec) }
    }
    throw SourceError(source: text, reason: "no source kind takes it")
  }
}
