import CamfxCore

extension RecordingLimits {
  /// Parses `--duration`: a positive number with an optional unit, `ms`, `s` (the
  /// default), `m` or `h`: `10s`, `10`, `1.5s`, `500ms`, `2m`.
  /// - Returns: the duration in milliseconds.
  /// - Throws: `RecordingOptionError` naming the text.
  public static func parseDuration(_ text: String) throws -> MediaTime {
    let units: [(suffix: String, milliseconds: Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
    var number = Substring(text)
    var scale = 1000.0
    for unit in units where text.hasSuffix(unit.suffix) {
      number = text.dropLast(unit.suffix.count)
      scale = unit.milliseconds
      break
    }
    guard let value = Self.decimal(number), value > 0, value * scale >= 1, value * scale < 1e15 else {
      throw RecordingOptionError(
        "invalid duration '\(text)': expected a positive time such as 10s, 1.5s, 500ms or 2m (at least 1ms)")
    }
    return MediaTime(value: Int64((value * scale).rounded()), timescale: 1000)
  }

  /// Parses `--max-size`: bytes with an optional decimal suffix `k` (1000), `M`, `G`,
  /// or binary `Ki` (1024), `Mi`, `Gi`, optionally followed by `B`: `50M`, `1.5G`, `64MiB`.
  /// - Throws: `RecordingOptionError` naming the text.
  public static func parseByteCount(_ text: String) throws -> Int64 {
    var body = Substring(text)
    if body.hasSuffix("B") { body = body.dropLast() }
    let suffixes: [(String, Double)] = [
      ("Ki", 1024), ("Mi", 1_048_576), ("Gi", 1_073_741_824), ("k", 1e3), ("K", 1e3), ("M", 1e6), ("G", 1e9),
    ]
    var scale = 1.0
    for (suffix, factor) in suffixes where body.hasSuffix(suffix) {
      body = body.dropLast(suffix.count)
      scale = factor
      break
    }
    guard let value = Self.decimal(body), value > 0, value * scale >= 1, value * scale < 9e18 else {
      throw RecordingOptionError("invalid size '\(text)': expected a byte count such as 50M, 1.5G, 800k or 64MiB")
    }
    return Int64((value * scale).rounded())
  }

  /// Digits with at most one decimal point; nothing else (no sign, no exponent, no spaces).
  private static func decimal(_ text: Substring) -> Double? {
    guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
      text.filter({ $0 == "." }).count <= 1, text != "."
    else { return nil }
    return Double(text)
  }
}

/// A `camfx record` option value that cannot be used; `description` names it.
public struct RecordingOptionError: Error, CustomStringConvertible, Sendable, Equatable {
  public let description: String
  public init(_ description: String) { self.description = description }
}
