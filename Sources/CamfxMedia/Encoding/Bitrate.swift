/// Parses bit rates the way users type them: `4M`, `800k`, `1.5M`, `128000`.
///
/// `k` means 1 000 and `M` 1 000 000 bits per second (either case), as in FFmpeg's
/// `-b:v 4M`. The result must be a whole number of bits per second in `1...2_000_000_000`.
public enum Bitrate {
  /// The bit rate in bits per second.
  /// - Throws: `MediaSettingsError` "invalid bitrate 'abc': ..." when the text is not a
  ///   positive number with an optional k or M suffix.
  public static func parse(_ text: String) throws(MediaSettingsError) -> Int {
    let trimmed = text.trimmingWhitespace()
    var digits = Substring(trimmed)
    var multiplier = 1.0
    switch digits.last {
    case "k", "K": multiplier = 1_000; digits = digits.dropLast()
    case "m", "M": multiplier = 1_000_000; digits = digits.dropLast()
    default: break
    }
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
      let number = Double(digits), number.isFinite
    else {
      throw MediaSettingsError("invalid bitrate '\(text)': expected a number with an optional k or M suffix, e.g. 4M or 800k")
    }
    let bits = (number * multiplier).rounded()
    guard bits >= 1, bits <= 2_000_000_000 else {
      throw MediaSettingsError("invalid bitrate '\(text)': must be between 1 and 2000M bits per second")
    }
    return Int(bits)
  }

  /// `4000000` → `"4M"`, `800000` → `"800k"`, `1500` → `"1.5k"`: for summaries.
  public static func format(_ bitsPerSecond: Int) -> String {
    func trim(_ v: Double) -> String {
      let s = String(v)
      return s.hasSuffix(".0") ? String(s.dropLast(2)) : s
    }
    if bitsPerSecond >= 1_000_000 { return trim(Double(bitsPerSecond) / 1_000_000) + "M" }
    if bitsPerSecond >= 1_000 { return trim(Double(bitsPerSecond) / 1_000) + "k" }
    return String(bitsPerSecond)
  }
}

extension String {
  func trimmingWhitespace() -> String {
    var s = Substring(self)
    while let f = s.first, f.isWhitespace { s = s.dropFirst() }
    while let l = s.last, l.isWhitespace { s = s.dropLast() }
    return String(s)
  }
}
