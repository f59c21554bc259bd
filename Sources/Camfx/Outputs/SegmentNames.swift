#if canImport(Glibc)
import Glibc
#endif

/// The file names of a segmented recording: `-o 'cam-%Y%m%d-%H%M%S.mp4'` takes the
/// local time of each segment's first frame (`NamePattern`); a name without fields gets
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

  /// True when the pattern has strftime fields (`NamePattern`).
  public var usesTime: Bool { NamePattern.hasFields(pattern) }

  /// The name for the next segment, starting at `time` (seconds since the epoch).
  public mutating func next(at time: time_t) -> String {
    let base = usesTime
      ? NamePattern.expand(pattern, at: time) : Self.insert(String(format3(counter)), into: NamePattern.expand(pattern, at: time))
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

  static func exists(_ path: String) -> Bool {
    var st = stat()
    return lstat(path, &st) == 0
  }
}
