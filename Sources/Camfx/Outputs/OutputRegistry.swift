/// The kinds of output a program knows, in the order an `-o` value is tried against them
/// (the first whose `parse` takes it wins), like `SourceRegistry` for sources: `builtin`
/// names camfx's own, and a program adds its kinds with `registering(_:)`.
public struct OutputRegistry: Sendable {
  public private(set) var kinds: [any OutputTarget.Type]

  public init(_ kinds: [any OutputTarget.Type]) {
    self.kinds = kinds
  }

  /// camfx's kinds: a stream (`-`, a URL, an `.m3u8` playlist), else a movie file.
  public static let builtin = OutputRegistry([StreamTarget.self, MovieFileTarget.self])

  /// This registry with `kind` tried before every kind already in it.
  public func registering(_ kind: any OutputTarget.Type) -> OutputRegistry {
    OutputRegistry([kind] + kinds)
  }

  /// The output `name` names.
  /// - Throws: what the kind that takes it throws, or `RecordingOptionError` when none does.
  public func parse(_ name: String, _ options: OutputTargetOptions) throws -> any OutputTarget {
    for kind in kinds {
      if let target = try kind.parse(name, options) { return target }
    }
    throw RecordingOptionError("-o \(name): no output kind takes it")
  }
}
