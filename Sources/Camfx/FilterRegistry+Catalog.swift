import CamfxCore

extension FilterRegistry {
  /// The text `camfx filters` prints: every filter with its summary, one line per key
  /// (type, default or `required`, help) and its example, columns aligned across
  /// all filters.
  ///
  ///     mirror: Flips the frame.
  ///       axis  horizontal|vertical|both  default horizontal  Which way to flip.
  ///       example: camfx snapshot --filter mirror=axis=vertical -o mirrored.png
  public var catalog: String {
    guard !filters.isEmpty else { return "No filters are registered.\n" }
    let options = filters.flatMap { $0.options }
    let keyWidth = options.map(\.key.count).max() ?? 0
    let typeWidth = options.map(\.kind.label.count).max() ?? 0
    let defaultWidth = options.map { Self.defaultText($0).count }.max() ?? 0

    var out = "Filters (use --filter NAME or --filter NAME=KEY=VALUE:KEY=VALUE; repeat --filter to chain):\n"
    for filter in filters {
      out += "\n\(filter.name): \(filter.summary)\n"
      if filter.options.isEmpty { out += "  (no options)\n" }
      for option in filter.options {
        let line = "  " + Self.pad(option.key, keyWidth) + "  " + Self.pad(option.kind.label, typeWidth) + "  "
          + Self.pad(Self.defaultText(option), defaultWidth) + "  " + option.help
        out += Self.trimTrailingSpaces(line) + "\n"
      }
      out += "  example: \(filter.example)\n"
      if let detail = filter.catalogDetail?() { out += detail }
    }
    return out
  }

  static func defaultText(_ option: FilterOption) -> String {
    if option.isRequired { return "required" }
    if let value = option.defaultValue { return "default \(value)" }
    return "optional"
  }

  private static func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
  }

  private static func trimTrailingSpaces(_ s: String) -> String {
    var t = Substring(s)
    while t.last == " " { t.removeLast() }
    return String(t)
  }
}
