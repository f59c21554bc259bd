#if canImport(Glibc)
import Glibc
#endif

/// The file names of a segmented recording: `-o 'cam-%Y%m%d-%H%M%S.mp4'` takes the
/// local time of each segment's first frame (strftime); a name without `%` fields gets
/// a number, `rec.mp4` → `rec-000.mp4`, `rec-001.mp4`, ... A name that exists already
/// (and may not be replaced) or that this recording used before gets `-1`, `-2`, ...
/// before its extension, so no file is ever overwritten by accident.
public struct SegmentNames: Sendable {
  public let pattern: String
  public let overwrite: Bool
  private var used: Set<String> = []
  private var counter = 0

  public init(pattern: String, overwrite: Bool) {
    self.pattern = pattern
    self.overwrite = overwrite
  }

  /// True when the pattern has strftime fields.
  public var usesTime: Bool { pattern.contains("%") }

  /// Expands the pattern once, for now, and checks the name it makes, so that a bad
  /// pattern is refused before recording instead of at its first file.
  /// - Parameter option: how the command names the pattern (`-o`, `--still`).
  /// - Throws: `MediaSettingsError` when a field puts a `/` into the name (`%D`), or
  ///   the name is longer than the file system allows.
  public static func validate(pattern: String, option: String) throws(MediaSettingsError) {
    var names = SegmentNames(pattern: pattern, overwrite: true)
    let name = names.next(at: time(nil))
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

  /// The name for the next segment, starting at `time` (seconds since the epoch).
  public mutating func next(at time: time_t) -> String {
    let base = usesTime ? Self.format(pattern, time: time) : Self.insert(String(format3(counter)), into: pattern)
    counter += 1
    var name = base
    var n = 1
    while used.contains(name) || (!overwrite && Self.exists(name)) {
      name = Self.insert(String(n), into: base)
      n += 1
    }
    used.insert(name)
    return name
  }

  private func format3(_ n: Int) -> String {
    n < 10 ? "00\(n)" : n < 100 ? "0\(n)" : "\(n)"
  }

  /// `name` with `-suffix` before its extension (`a/rec.mp4` → `a/rec-000.mp4`).
  static func insert(_ suffix: String, into name: String) -> String {
    let slash = name.lastIndex(of: "/").map { name.index(after: $0) } ?? name.startIndex
    if let dot = name[slash...].lastIndex(of: "."), dot != slash {
      return String(name[..<dot]) + "-" + suffix + String(name[dot...])
    }
    return name + "-" + suffix
  }

  static func format(_ pattern: String, time: time_t) -> String {
    var t = time
    var parts = tm()
    localtime_r(&t, &parts)
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = strftime(&buffer, buffer.count, pattern, &parts)
    return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  static func exists(_ path: String) -> Bool {
    var st = stat()
    return lstat(path, &st) == 0
  }
}
