/// A parsed `--filter` argument in ffmpeg's shape: `name` or `name=key=value:key=value`.
///
/// Several filters may be joined with `,` (`mirror,grayscale`), as in ffmpeg's `-vf`.
/// A backslash escapes the next character, so a value may contain `:` `,` `=` or `\`
/// (`watermark=image=a\:b.png`).
public struct FilterSpec: Sendable, Equatable, CustomStringConvertible {
  public var name: String
  /// Key/value pairs in the order given.
  public var arguments: [(key: String, value: String)]

  public init(name: String, arguments: [(key: String, value: String)] = []) {
    self.name = name
    self.arguments = arguments
  }

  public static func == (a: FilterSpec, b: FilterSpec) -> Bool {
    a.name == b.name && a.arguments.elementsEqual(b.arguments, by: { $0.key == $1.key && $0.value == $1.value })
  }

  public var description: String {
    arguments.isEmpty ? name : name + "=" + arguments.map { "\($0.key)=\($0.value)" }.joined(separator: ":")
  }

  /// Parses one `--filter` argument, which may hold a `,`-separated chain.
  /// - Throws: `FilterError` for an empty name, an argument without `=`, an empty key,
  ///   or a key given twice.
  public static func parseChain(_ text: String) throws -> [FilterSpec] {
    try split(text, on: ",").map { try parse(single: $0, whole: text) }
  }

  /// Parses exactly one filter (no `,` chain).
  public static func parse(_ text: String) throws -> FilterSpec {
    let specs = try parseChain(text)
    guard specs.count == 1 else {
      throw FilterError(filter: text, reason: "expected one filter, found \(specs.count)")
    }
    return specs[0]
  }

  private static func parse(single raw: String, whole: String) throws -> FilterSpec {
    // name ends at the first unescaped '='
    let nameAndRest = try splitFirst(raw, on: "=")
    let name = unescape(nameAndRest.0).trimmingSpaces()
    guard !name.isEmpty else {
      throw FilterError(filter: whole.isEmpty ? "(empty)" : whole, reason: "missing filter name (expected NAME or NAME=KEY=VALUE:...)")
    }
    guard let rest = nameAndRest.1 else { return FilterSpec(name: name) }
    guard !rest.isEmpty else {
      throw FilterError(filter: name, reason: "nothing after '=' (expected KEY=VALUE)")
    }
    var arguments: [(key: String, value: String)] = []
    for part in try split(rest, on: ":") {
      let (k, v) = try splitFirst(part, on: "=")
      let key = unescape(k).trimmingSpaces()
      guard let v else {
        throw FilterError(filter: name, key: key.isEmpty ? nil : key, reason: "expected KEY=VALUE, got '\(unescape(part))'")
      }
      guard !key.isEmpty else {
        throw FilterError(filter: name, value: unescape(v), reason: "missing key before '='")
      }
      if arguments.contains(where: { $0.key == key }) {
        throw FilterError(filter: name, key: key, reason: "key given more than once")
      }
      arguments.append((key, unescape(v)))
    }
    return FilterSpec(name: name, arguments: arguments)
  }

  /// Splits on unescaped `separator`, keeping escapes in the pieces.
  private static func split(_ text: String, on separator: Character) throws -> [String] {
    var pieces: [String] = []
    var current = ""
    var escaped = false
    for ch in text {
      if escaped { current.append("\\"); current.append(ch); escaped = false; continue }
      if ch == "\\" { escaped = true; continue }
      if ch == separator { pieces.append(current); current = ""; continue }
      current.append(ch)
    }
    if escaped { throw FilterError(filter: text, reason: "trailing backslash") }
    pieces.append(current)
    return pieces
  }

  /// Splits at the first unescaped `separator`; the second part is `nil` if there is none.
  private static func splitFirst(_ text: String, on separator: Character) throws -> (String, String?) {
    var escaped = false
    for i in text.indices {
      let ch = text[i]
      if escaped { escaped = false; continue }
      if ch == "\\" { escaped = true; continue }
      if ch == separator { return (String(text[..<i]), String(text[text.index(after: i)...])) }
    }
    return (text, nil)
  }

  private static func unescape(_ text: String) -> String {
    var out = ""
    var escaped = false
    for ch in text {
      if escaped { out.append(ch); escaped = false } else if ch == "\\" { escaped = true } else { out.append(ch) }
    }
    return out
  }
}

extension String {
  func trimmingSpaces() -> String {
    var s = Substring(self)
    while s.first == " " { s.removeFirst() }
    while s.last == " " { s.removeLast() }
    return String(s)
  }
}
