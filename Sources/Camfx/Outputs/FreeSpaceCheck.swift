#if canImport(Glibc)
import Glibc
#endif

/// Watches the free space of the file system an output writes to, for `--min-free`
/// (`AVCaptureFileOutput.minFreeDiskSpaceLimit`). Checked every quarter second of
/// media: one `statvfs` call, often enough that even 4K bit rates (~10 MB/s) cannot
/// run through a limit of a few hundred megabytes between two checks.
public struct FreeSpaceCheck {
  let directory: String
  let minimumBytes: Int64
  private var nextCheckSeconds = -Double.infinity

  init(path: String, minimumBytes: Int64) {
    let slash = path.lastIndex(of: "/")
    directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    self.minimumBytes = minimumBytes
  }

  /// Bytes available to an unprivileged writer, or nil when `statvfs` fails.
  public static func freeBytes(in directory: String) -> Int64? {
    var s = statvfs()
    guard statvfs(directory, &s) == 0 else { return nil }
    return Int64(s.f_bavail) * Int64(s.f_frsize)
  }

  /// True when it is time to look (`mediaSeconds` moved on by a quarter second) and the
  /// free space is below the limit.
  mutating func isLow(atMediaSeconds mediaSeconds: Double) -> Bool {
    guard mediaSeconds >= nextCheckSeconds else { return false }
    nextCheckSeconds = mediaSeconds + 0.25
    return isLowNow()
  }

  func isLowNow() -> Bool {
    guard let free = Self.freeBytes(in: directory) else { return false }
    return free < minimumBytes
  }

  /// "1.0 GB" for messages.
  var limitText: String {
    let n = Double(minimumBytes)
    if n >= 1e9 { return "\((n / 1e8).rounded() / 10) GB" }
    if n >= 1e6 { return "\((n / 1e5).rounded() / 10) MB" }
    return "\((n / 1e2).rounded() / 10) kB"
  }
}
