#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The temporary file behind an `OutputFile` while it is being written.
///
/// `commit()` renames it to the destination; `discard()` (or dropping the last
/// reference without committing) deletes it.
///
/// `@unchecked Sendable`: the only mutable state is `finished`, guarded by a `Mutex`.
public final class StagedOutputFile: @unchecked Sendable {
  /// Where the bytes go until `commit()`.
  public let temporaryPath: String
  /// Where they end up.
  public let destination: OutputFile
  private let finished = Mutex(false)

  private static let serial = Atomic<Int>(0)
  static func nextSerial() -> Int { serial.add(1, ordering: .relaxed).newValue }

  init(destination: OutputFile, temporaryPath: String) {
    self.destination = destination
    self.temporaryPath = temporaryPath
  }

  /// Moves the temporary file into place. Without `overwrite`, a file that appeared at
  /// the destination since `OutputFile` checked is not replaced (the temporary file is
  /// deleted and `.exists` thrown).
  /// - Throws: `OutputFileError`.
  public func commit() throws {
    let alreadyDone = finished.withLock { done in
      defer { done = true }
      return done
    }
    precondition(!alreadyDone, "StagedOutputFile committed or discarded twice")
    let path = destination.path
    if destination.overwrite {
      guard rename(temporaryPath, path) == 0 else {
        let code = errno
        unlink(temporaryPath)
        throw OutputFileError(path: path, reason: .renameFailed(errno: code))
      }
    } else {
      // link() fails with EEXIST instead of replacing, so a file created meanwhile
      // by someone else survives.
      if link(temporaryPath, path) == 0 {
        unlink(temporaryPath)
        return
      }
      var code = errno
      if code == EPERM || code == EOPNOTSUPP || code == EMLINK {
        // A file system without hard links: check, then rename (a small race window).
        if access(path, F_OK) != 0 && rename(temporaryPath, path) == 0 { return }
        code = access(path, F_OK) == 0 ? EEXIST : errno
      }
      unlink(temporaryPath)
      throw OutputFileError(path: path, reason: code == EEXIST ? .exists : .renameFailed(errno: code))
    }
  }

  /// Deletes the temporary file. Safe to call more than once.
  public func discard() {
    let alreadyDone = finished.withLock { done in
      defer { done = true }
      return done
    }
    if !alreadyDone { unlink(temporaryPath) }
  }

  deinit { discard() }
}
