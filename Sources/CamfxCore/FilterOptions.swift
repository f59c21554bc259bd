/// A filter's options after checking against its `FilterOption` table: every key is
/// known, every required key is present and every value has the right type and range.
/// Getters fall back to the table's default.
public struct FilterOptions: Sendable {
  public let filter: String
  private let table: [FilterOption]
  private let values: [String: String]

  /// Checks `arguments` against `table`.
  /// - Throws: `FilterError` for an unknown key (listing the known ones), a missing
  ///   required key, or a value of the wrong type or out of range.
  public init(filter: String, table: [FilterOption], arguments: [(key: String, value: String)]) throws {
    self.filter = filter
    self.table = table
    var values: [String: String] = [:]
    for (key, value) in arguments {
      guard let option = table.first(where: { $0.key == key }) else {
        let known = table.map(\.key).joined(separator: ", ")
        throw FilterError(
          filter: filter, key: key, reason: table.isEmpty ? "unknown key (this filter takes no options)" : "unknown key (known: \(known))")
      }
      try Self.check(value, against: option, filter: filter)
      values[key] = value
    }
    for option in table where option.isRequired && values[option.key] == nil {
      throw FilterError(filter: filter, key: option.key, reason: "required key missing")
    }
    self.values = values
  }

  /// True when the user gave `key` explicitly.
  public func isSet(_ key: String) -> Bool { values[key] != nil }

  /// The raw text for `key`: the user's value, else the default.
  public func text(_ key: String) -> String? {
    values[key] ?? table.first(where: { $0.key == key })?.defaultValue
  }

  public func string(_ key: String) -> String? { text(key) }

  public func integer(_ key: String) -> Int? { text(key).flatMap { Int($0.trimmingSpaces()) } }

  public func number(_ key: String) -> Double? { text(key).flatMap { Double($0.trimmingSpaces()) } }

  public func boolean(_ key: String) -> Bool? { text(key).flatMap(Self.parseBool) }

  public func color(_ key: String) -> BGRA? { text(key).flatMap { try? BGRA(parsing: $0.trimmingSpaces()) } }

  private static func parseBool(_ s: String) -> Bool? {
    switch s.lowercased() {
    case "1", "true", "yes", "on": return true
    case "0", "false", "no", "off": return false
    default: return nil
    }
  }

  private static func check(_ value: String, against option: FilterOption, filter: String) throws {
    func bad(_ reason: String) -> FilterError {
      FilterError(filter: filter, key: option.key, value: value, reason: reason)
    }
    let v = value.trimmingSpaces()
    switch option.kind {
    case .integer(let range):
      guard let n = Int(v) else { throw bad("expected an integer") }
      guard range.contains(n) else {
        throw bad(range.upperBound == Int.max ? "must be at least \(range.lowerBound)" : "must be in \(range.lowerBound)...\(range.upperBound)")
      }
    case .number(let range):
      guard let d = Double(v), d.isFinite else { throw bad("expected a number") }
      guard range.contains(d) else { throw bad("must be in \(range.lowerBound)...\(range.upperBound)") }
    case .choice(let choices):
      guard choices.contains(v) else { throw bad("expected one of \(choices.joined(separator: ", "))") }
    case .string, .path:
      guard !value.isEmpty else { throw bad("must not be empty") }
    case .boolean:
      guard parseBool(v) != nil else { throw bad("expected true or false") }
    case .color:
      do { _ = try BGRA(parsing: v) } catch { throw bad(error.reason) }
    }
  }
}
