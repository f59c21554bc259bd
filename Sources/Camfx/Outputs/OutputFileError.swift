#if canImport(Glibc)
import Glibc
#endif

/// An output file that cannot be created, kept or replaced. `description` is the one
/// line a user sees; it names the path and, for system-call failures, keeps `errno`.
public struct OutputFileError: Error, CustomStringConvertible, Equatable {
  public enum Reason: Sendable, Equatable {
    /// The path is empty.
    case emptyPath
    /// The directory the file would go in does not exist.
    case directoryMissing(String)
    /// The parent path exists but is not a directory.
    case notADirectory(String)
    /// A temporary file cannot be created in the directory (`errno`, e.g. `EACCES`).
    case directoryNotWritable(String, errno: Int32)
    /// The directory is on a kernel file system (`proc`, `sysfs` ...) that takes no
    /// new files.
    case directoryRefusesFiles(String, fileSystem: String)
    /// The destination exists and overwriting was not asked for.
    case exists
    /// The destination is a directory.
    case isDirectory
    /// The destination exists and is not a regular file (a FIFO, a device node).
    case notRegularFile
    /// The destination is the same file as an input (`what` names the option).
    case sameAsInput(String)
    /// Moving the finished temporary file into place failed (`errno`).
    case renameFailed(errno: Int32)
    /// Writing the file's contents failed (`errno`, e.g. `ENOSPC`).
    case writeFailed(errno: Int32)
  }

  /// The destination path as the user gave it.
  public var path: String
  public var reason: Reason

  public init(path: String, reason: Reason) {
    self.path = path
    self.reason = reason
  }

  public var description: String {
    switch reason {
    case .emptyPath: return "output path is empty"
    case .directoryMissing(let dir): return "output directory '\(dir)' does not exist"
    case .notADirectory(let dir): return "output directory '\(dir)' is not a directory"
    case .directoryNotWritable(let dir, let code):
      return "output directory '\(dir)' is not writable (\(Self.text(code)))"
    case .directoryRefusesFiles(let dir, let fileSystem):
      return "output directory '\(dir)' is on \(fileSystem), a kernel file system that takes no new files"
    case .exists: return "output file '\(path)' already exists (use -y or --overwrite to replace it)"
    case .isDirectory: return "output path '\(path)' is a directory"
    case .notRegularFile: return "output '\(path)' exists and is not a regular file (a FIFO or device is never replaced)"
    case .sameAsInput(let what): return "output '\(path)' is the same file as \(what); choose another output name"
    case .renameFailed(let code): return "cannot move the finished file into place at '\(path)': \(Self.text(code))"
    case .writeFailed(let code): return "cannot write '\(path)': \(Self.text(code))"
    }
  }

  private static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
