import CamfxCore

extension RecordingLimits {
  /// Parses a time option (`--duration`, `--segment`, `--fragment`): a positive
  /// number with a unit, or several from the largest down, or a clock:
  /// `10s`, `10` (seconds), `1.5s`, `500ms`, `2m`, `90m`, `2h`, `1h30m`, `1h30m15s`, `1d`,
  /// `1:30:00` (h:mm:ss), `1:02.5` (m:ss.s).
  /// - Parameter option: the option the text was given to, named first in the error
  ///   (`--post-record: invalid duration '-1': ...`).
  /// - Returns: the duration in milliseconds.
  /// - Throws: `RecordingOptionError` naming the option and the text.
  public static func parseDuration(_ text: String, option: String) throws -> MediaTime {
    guard let milliseconds = (text.contains(":") ? clockMilliseconds(text) : unitMilliseconds(text)),
      milliseconds >= 1, milliseconds < 1e15
    else {
      throw RecordingOptionError(
        "\(option): invalid duration '\(text)': expected a positive time such as 10s, 500ms, 90m, 1h30m, 1d or 1:30:00 (at least 1ms)")
    }
    return MediaTime(value: Int64(milliseconds.rounded()), timescale: 1000)
  }

  /// `parseDuration`, or `0` for none (`--fragment 0`, a cut from a movie's start).
  public static func parseDurationOrZero(_ text: String, option: String) throws -> MediaTime {
    text == "0" ? .zero : try parseDuration(text, option: option)
  }

  /// `1h30m15s`, `90m`, `1.5s`, `10`: numbers with units from the largest down; a lone
  /// number is seconds.
  private static func unitMilliseconds(_ text: String) -> Double? {
    let units: [(suffix: String, milliseconds: Double)] = [
      ("d", 86_400_000), ("h", 3_600_000), ("ms", 1), ("m", 60_000), ("s", 1000),
    ]
    let order = ["d", "h", "m", "s", "ms"]
    var rest = Substring(text)
    var total = 0.0
    var lastRank = -1
    while !rest.isEmpty {
      let digits = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
      guard let value = decimal(digits) else { return nil }
      rest = rest.dropFirst(digits.count)
      if rest.isEmpty {
        // A bare number: seconds, and only on its own.
        return lastRank == -1 ? value * 1000 : nil
      }
      guard let unit = units.first(where: { rest.hasPrefix($0.suffix) }),
        let rank = order.firstIndex(of: unit.suffix), rank > lastRank
      else { return nil }
      rest = rest.dropFirst(unit.suffix.count)
      total += value * unit.milliseconds
      lastRank = rank
    }
    return lastRank == -1 ? nil : total
  }

  /// `1:30:00` (h:mm:ss) or `1:02.5` (m:ss.s): whole hours and minutes, seconds below
  /// 60 (with a fraction) after a colon.
  private static func clockMilliseconds(_ text: String) -> Double? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard (2...3).contains(parts.count), let seconds = decimal(parts[parts.count - 1]), seconds < 60,
      parts[parts.count - 1].count >= 2
    else { return nil }
    var total = seconds * 1000
    for (i, part) in parts.dropLast().reversed().enumerated() {
      guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Double(part) else { return nil }
      if i == 0 && parts.count == 3 { guard value < 60, part.count == 2 else { return nil } }
      total += value * (i == 0 ? 60_000 : 3_600_000)
    }
    return total
  }

  /// Parses `--max-size`: bytes with an optional decimal suffix `k` (1000), `M`, `G`,
  /// or binary `Ki` (1024), `Mi`, `Gi`, optionally followed by `B`: `50M`, `1.5G`, `64MiB`.
  /// - Parameter option: the option the text was given to, named first in the error.
  /// - Throws: `RecordingOptionError` naming the option and the text.
  public static func parseByteCount(_ text: String, option: String) throws -> Int64 {
    var body = Substring(text)
    if body.hasSuffix("B") { body = body.dropLast() }
    let suffixes: [(String, Double)] = [
      ("Ki", 1024), ("Mi", 1_048_576), ("Gi", 1_073_741_824), ("Ti", 1_099_511_627_776),
      ("k", 1e3), ("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12),
    ]
    var scale = 1.0
    for (suffix, factor) in suffixes where body.hasSuffix(suffix) {
      body = body.dropLast(suffix.count)
      scale = factor
      break
    }
    guard let value = Self.decimal(body), value > 0, value * scale >= 1, value * scale < 9e18 else {
      throw RecordingOptionError("\(option): invalid size '\(text)': expected a byte count such as 50M, 1.5G, 800k or 64MiB")
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
