#if canImport(Glibc)
import Glibc
#endif

/// The one rule for every file name camfx makes from a pattern: `-o` (one movie, or
/// each `--segment`), `--event-output`, `--still` and `snapshot -o`. A name may hold
/// strftime fields, which take the local time of the file's start:
///
///     -o 'cam-%Y%m%d-%H%M%S.mp4'   →   cam-20261127-101500.mp4
///     -o '100%%.mp4'               →   100%.mp4
///
/// A field is `%`, an optional flag (`_ - 0 ^ #`), an optional width, an optional `E`
/// or `O`, and one of strftime's conversions (`%Y %m %d %H %M %S %j %a %b %s %F` ...;
/// not `%n` and `%t`, a newline and a tab). Anything else after a `%` — `%Q`, a lone
/// `%` at the end — is an error naming the option, never kept as typed. Where a pattern
/// makes several files (segments, clips, stills), a pattern without fields gets a
/// number (`SegmentNames`).
public enum NamePattern {
  /// strftime's conversions that can be part of a file name.
  static let conversions = Set("aAbBcCdDeFgGhHIjklmMpPrRsSTuUVwWxXyYzZ")

  /// True when `pattern` has fields (not only `%%`).
  public static func hasFields(_ pattern: String) -> Bool {
    (try? fields(in: pattern, option: ""))?.isEmpty == false
  }

  /// Checks `pattern`'s fields and the names it makes, so that a bad pattern is refused
  /// before recording instead of at its first file.
  /// - Parameter option: how the command names the pattern (`-o`, `--still`).
  /// - Throws: `MediaSettingsError` naming the option, for an unknown field, a field that
  ///   puts a `/` into the name (`%D`), or a name longer than the file system allows.
  public static func check(_ pattern: String, option: String) throws(MediaSettingsError) {
    _ = try fields(in: pattern, option: option)
    let name = expand(pattern, at: time(nil))
    if name.count(where: { $0 == "/" }) != pattern.count(where: { $0 == "/" }) {
      throw MediaSettingsError(
        "\(option) '\(pattern)' makes names with a '/' in them ('\(name)'): use strftime fields without one, e.g. %Y%m%d instead of %D")
    }
    // Room for the "-1", "-2", ... a name that exists gets.
    let file = name.split(separator: "/").last.map { $0.utf8.count } ?? 0
    if file + 6 > Int(NAME_MAX) {
      throw MediaSettingsError(
        "\(option) '\(pattern)' makes file names of \(file) bytes ('\(name)'); the file system allows \(NAME_MAX)")
    }
    if name.utf8.count + 6 > Int(PATH_MAX) {
      throw MediaSettingsError("\(option) '\(pattern)' makes paths longer than the \(PATH_MAX) bytes the system allows")
    }
  }

  /// `pattern` with its fields filled in for `time` (seconds since 1970), in local time.
  public static func expand(_ pattern: String, at time: time_t) -> String {
    guard pattern.contains("%") else { return pattern }
    var t = time
    var parts = tm()
    localtime_r(&t, &parts)
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = strftime(&buffer, buffer.count, pattern, &parts)
    return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The fields of `pattern` (`%Y`, `%-d`, `%03j` ...; `%%` is no field).
  /// - Throws: `MediaSettingsError` for the first `%` that starts no known field.
  static func fields(in pattern: String, option: String) throws(MediaSettingsError) -> [String] {
    var found: [String] = []
    var rest = Substring(pattern)
    while let percent = rest.firstIndex(of: "%") {
      var i = rest.index(after: percent)
      func peek() -> Character? { i < rest.endIndex ? rest[i] : nil }
      if peek() == "%" {
        rest = rest[rest.index(after: i)...]
        continue
      }
      if let flag = peek(), "_-0^#".contains(flag) { i = rest.index(after: i) }
      while let digit = peek(), digit.isASCII, digit.isNumber { i = rest.index(after: i) }
      if let modifier = peek(), modifier == "E" || modifier == "O" { i = rest.index(after: i) }
      guard let conversion = peek(), conversions.contains(conversion) else {
        let typed = rest[percent..<(i < rest.endIndex ? rest.index(after: i) : i)]
        throw MediaSettingsError(
          typed == "%"
            ? "\(option) '\(pattern)' ends with a lone '%': write %% for a percent sign"
            : "\(option) '\(pattern)': unknown field '\(typed)' (strftime fields such as %Y %m %d %H %M %S; %% for a percent sign)")
      }
      i = rest.index(after: i)
      found.append(String(rest[percent..<i]))
      rest = rest[i...]
    }
    return found
  }
}
