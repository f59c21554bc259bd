/// One key a filter accepts: its type, default and help, as shown by `camfx filters`.
public struct FilterOption: Sendable, Hashable {
  /// What values a key takes; `FilterOptions` checks values against this.
  public enum Kind: Sendable, Hashable {
    case integer(ClosedRange<Int>)
    case number(ClosedRange<Double>)
    case choice([String])
    case string
    case path
    case boolean
    /// A colour, as `BGRA(parsing:)` reads it.
    case color

    /// How `camfx filters` shows the type.
    public var label: String {
      switch self {
      case .integer(let r):
        if r.upperBound == Int.max { return "int >= \(r.lowerBound)" }
        return "int \(r.lowerBound)...\(r.upperBound)"
      case .number(let r): return "number \(format(r.lowerBound))...\(format(r.upperBound))"
      case .choice(let c): return c.joined(separator: "|")
      case .string: return "string"
      case .path: return "path"
      case .boolean: return "bool"
      case .color: return "color"
      }
    }

    private func format(_ d: Double) -> String {
      d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
  }

  public var key: String
  public var kind: Kind
  /// The default as text, or `nil` when the key has no default (see `isRequired`).
  public var defaultValue: String?
  public var isRequired: Bool
  public var help: String

  public init(_ key: String, _ kind: Kind, default defaultValue: String? = nil, required: Bool = false, help: String) {
    self.key = key
    self.kind = kind
    self.defaultValue = defaultValue
    self.isRequired = required
    self.help = help
  }
}
