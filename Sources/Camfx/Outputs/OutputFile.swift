import CamfxMedia
#if canImport(Glibc)
import Glibc
#endif

/// A file that appears at its destination only when it is complete.
///
/// Everything is written to a hidden temporary file in the destination's own
/// directory (so the final `rename` is atomic and never crosses file systems), which
/// is renamed into place on success and deleted on failure. A failed or interrupted
/// command therefore never leaves a half-written file under the user's name.
///
/// The temporary name ends with the destination's name, so tools that pick a format
/// from the extension (libavformat, libpng users) see the same extension:
///
///     out/clip.mp4   ->   out/.camfx-4711-1-clip.mp4   (while writing)
///
/// Typical use, for a one-shot writer:
///
///     let output = try OutputFile(path: "shot.png", overwrite: false)
///     try output.write { temporaryPath in try PNGFile.write(frame, to: temporaryPath, alpha: false) }
///
/// and for a long-running one (a recording):
///
///     let staged = try output.begin()      // checks and creates the temporary file
///     ... write to staged.temporaryPath ...
///     try staged.commit()                   // or staged.discard(); deinit discards too
public struct OutputFile: Sendable {
  /// The destination as given.
  public let path: String
  /// Whether an existing file at `path` may be replaced.
  public let overwrite: Bool

  /// Checks the destination: the path is not empty, its directory exists and is a
  /// directory, and the file does not exist (unless `overwrite`) and is not a
  /// directory. Writability is checked by `begin()`, which creates the temporary file.
  /// - Throws: `OutputFileError`.
  public init(path: String, overwrite: Bool) throws {
    self.path = path
    self.overwrite = overwrite
    guard !path.isEmpty else { throw OutputFileError(path: path, reason: .emptyPath) }
    var st = stat()
    let dir = directory
    if stat(dir, &st) != 0 {
      throw OutputFileError(path: path, reason: .directoryMissing(dir))
    }
    guard st.st_mode & S_IFMT == S_IFDIR else {
      throw OutputFileError(path: path, reason: .notADirectory(dir))
    }
    if stat(path, &st) == 0 {
      if st.st_mode & S_IFMT == S_IFDIR { throw OutputFileError(path: path, reason: .isDirectory) }
      if st.st_mode & S_IFMT != S_IFREG { throw OutputFileError(path: path, reason: .notRegularFile) }
      if !overwrite { throw OutputFileError(path: path, reason: .exists) }
    } else if lstat(path, &st) == 0, !overwrite {
      throw OutputFileError(path: path, reason: .exists)  // a dangling symbolic link
    }
  }

  /// Refuses an output that is the same file as `input` (same device and inode, or the
  /// same path), which writing under the final name would destroy while reading it.
  /// - Parameter what: the option that named the input, for the message (`--input`).
  /// - Throws: `OutputFileError.sameAsInput`.
  public func requireDistinct(from input: String, what: String) throws {
    var a = stat()
    var b = stat()
    let same = (stat(path, &a) == 0 && stat(input, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
      || canonicalPath == OutputFile.canonicalPath(of: input)
    if same { throw OutputFileError(path: path, reason: .sameAsInput(what)) }
  }

  /// Checks that files can be created in the directory, before anything is recorded
  /// (an HLS playlist's segments, a movie, a `--stats-json` written at the end: too late
  /// for a clear message, or after hours of recording).
  ///
  /// The test is to create an empty hidden file there and remove it: `access` says yes
  /// to root everywhere, and a kernel file system (`/proc`, `/sys`) takes no new file,
  /// whoever asks, failing with "No such file or directory" in a folder that exists.
  /// - Throws: `OutputFileError.directoryMissing`, `.notADirectory`,
  ///   `.directoryNotWritable` or `.directoryRefusesFiles`.
  public func requireWritableDirectory() throws {
    var st = stat()
    guard stat(directory, &st) == 0 else { throw OutputFileError(path: path, reason: .directoryMissing(directory)) }
    guard st.st_mode & S_IFMT == S_IFDIR else { throw OutputFileError(path: path, reason: .notADirectory(directory)) }
    let probe = "\(directoryPrefix).camfx-\(getpid())-\(StagedOutputFile.nextSerial())-probe"
    let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw OutputFileError(path: path, reason: creationFailure(errno: errno)) }
    close(fd)
    unlink(probe)
  }

  /// Why a file could not be created in the directory, from `open`'s `errno`: a missing
  /// directory only when it is missing.
  private func creationFailure(errno code: Int32) -> OutputFileError.Reason {
    var st = stat()
    guard code == ENOENT || code == EPERM || code == EACCES || code == EROFS else {
      return .directoryNotWritable(directory, errno: code)
    }
    if code == ENOENT && stat(directory, &st) != 0 { return .directoryMissing(directory) }
    if let kind = Self.kernelFileSystem(of: directory) { return .directoryRefusesFiles(directory, fileSystem: kind) }
    return .directoryNotWritable(directory, errno: code)
  }

  /// The kernel file system `path` is on (`proc`, `sysfs` ...), which holds no files
  /// of ours, or nil for any other: the type of the deepest mount point above it in
  /// `/proc/self/mounts` (the C `statfs` is not in Swift's Glibc module).
  static func kernelFileSystem(of path: String) -> String? {
    let kernelTypes: Set<String> = [
      "proc", "sysfs", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs", "devpts", "bpf", "configfs",
      "binfmt_misc", "pstore", "efivarfs", "fusectl", "mqueue", "hugetlbfs",
    ]
    guard let resolved = realpath(path, nil) else { return nil }
    let target = String(cString: resolved)
    free(resolved)
    guard let fd = fopen("/proc/self/mounts", "r") else { return nil }
    defer { fclose(fd) }
    var best: (mountPoint: String, type: String)?
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(line) }
    while getline(&line, &capacity, fd) > 0, let line {
      let fields = String(cString: line).split(separator: " ")
      guard fields.count >= 3 else { continue }
      let mountPoint = Self.unescapedMountField(fields[1]), type = String(fields[2])
      let contains = mountPoint == "/" || target == mountPoint || target.hasPrefix(mountPoint + "/")
      if contains && mountPoint.count >= (best?.mountPoint.count ?? -1) { best = (mountPoint, type) }
    }
    return best.flatMap { kernelTypes.contains($0.type) ? $0.type : nil }
  }

  /// A field of `/proc/self/mounts`, whose spaces, tabs and backslashes are octal
  /// escapes (`\040`).
  private static func unescapedMountField(_ field: Substring) -> String {
    var bytes: [UInt8] = []
    let utf8 = Array(field.utf8)
    var i = 0
    while i < utf8.count {
      if utf8[i] == UInt8(ascii: "\\"), i + 3 < utf8.count,
        let code = UInt8(String(decoding: utf8[(i + 1)...(i + 3)], as: UTF8.self), radix: 8)
      {
        bytes.append(code)
        i += 4
      } else {
        bytes.append(utf8[i])
        i += 1
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The directory as a prefix for names in it: `""` for a bare name, else `dir/`.
  private var directoryPrefix: String {
    directory == "." && !path.hasPrefix("./") ? "" : directory + (directory == "/" ? "" : "/")
  }

  /// The path with its directory resolved (`./a.mp4`, `x/../a.mp4` and a symbolic link
  /// to the directory all name one file), for files that need not exist yet.
  public var canonicalPath: String { Self.canonicalPath(of: path) }

  /// What every spelling of one file shares, whether or not its folders exist yet:
  /// `path` tidied (`tidied`), then its folder's links followed (`canonicalPath`).
  public static func identity(of path: String) -> String { canonicalPath(of: tidied(path)) }

  /// `path` from the root, without `.` parts and with each `..` taking the part before
  /// it away, as text (links are not followed): `./x/../a.mp4` → `/home/me/a.mp4`, for
  /// names whose folders need not exist yet.
  public static func tidied(_ path: String) -> String {
    let path = path.hasPrefix("/") ? path : workingDirectory + "/" + path
    var parts: [Substring] = []
    for part in path.split(separator: "/") where part != "." {
      if part == ".." {
        if !parts.isEmpty { parts.removeLast() }
      } else {
        parts.append(part)
      }
    }
    return "/" + parts.joined(separator: "/")
  }

  private static var workingDirectory: String {
    guard let directory = getcwd(nil, 0) else { return "." }
    defer { free(directory) }
    return String(cString: directory)
  }

  /// `path` with its directory resolved (symbolic links, `.`, `..`): one file by any
  /// spelling is one name. The file itself need not exist.
  public static func canonicalPath(of path: String) -> String {
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    guard let resolved = realpath(directory, nil) else { return path }
    defer { free(resolved) }
    let base = String(cString: resolved)
    return (base == "/" ? "" : base) + "/" + name
  }

  /// The directory the file goes in (`.` for a bare name).
  public var directory: String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    let dir = path[..<slash]
    return dir.isEmpty ? "/" : String(dir)
  }

  /// The file name without its directory.
  public var fileName: String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }

  /// Creates the (empty) temporary file and returns the handle that commits or
  /// discards it.
  /// - Throws: `OutputFileError.directoryNotWritable` when the file cannot be created.
  public func begin() throws -> StagedOutputFile {
    let prefix = directoryPrefix
    let pid = getpid()
    for attempt in 0..<100 {
      let candidate = "\(prefix).camfx-\(pid)-\(StagedOutputFile.nextSerial())-\(fileName)"
      let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      if fd >= 0 {
        close(fd)
        return StagedOutputFile(destination: self, temporaryPath: candidate)
      }
      let code = errno
      if code == EEXIST && attempt < 99 { continue }
      throw OutputFileError(path: path, reason: creationFailure(errno: code))
    }
    throw OutputFileError(path: path, reason: .directoryNotWritable(directory, errno: EEXIST))
  }

  /// Checks a name pattern for files made later (`--still`, `--event-output`): the
  /// names it makes (`NamePattern.check`), and their folder, which must exist and
  /// take new files. At a signal or an event that may come hours into a recording it
  /// is too late to learn that the folder is missing or read-only.
  /// - Returns: the first name the pattern makes now.
  /// - Throws: `MediaSettingsError` for the names, `RecordingOptionError` naming the
  ///   option and the folder.
  @discardableResult
  public static func requireNamePattern(_ pattern: String, option: String) throws -> String {
    try NamePattern.check(pattern, option: option)
    var names = SegmentNames(pattern: pattern, overwrite: false)
    let first = names.next(at: time(nil))
    do {
      try OutputFile(path: first, overwrite: true).requireWritableDirectory()
    } catch let error as OutputFileError {
      throw RecordingOptionError("\(option) '\(pattern)': \(error)")
    }
    return first
  }

  /// Writes `contents` as the whole file, through the temporary file, and flushes it to
  /// the disk before it takes the file's name.
  /// - Throws: `OutputFileError`, with the system's reason (`No space left on device`).
  public func write(contents: [UInt8]) throws {
    try write { temporaryPath in
      let fd = open(temporaryPath, O_WRONLY | O_TRUNC | O_CLOEXEC)
      guard fd >= 0 else { throw OutputFileError(path: path, reason: .writeFailed(errno: errno)) }
      var failure: Int32 = 0
      contents.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
          let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
          if written < 0 {
            if errno == EINTR { continue }
            failure = errno
            return
          }
          offset += written
        }
      }
      if failure == 0, fsync(fd) != 0 { failure = errno }
      if close(fd) != 0, failure == 0 { failure = errno }
      if failure != 0 { throw OutputFileError(path: path, reason: .writeFailed(errno: failure)) }
    }
  }

  /// Runs `body` with the temporary path, then moves the result into place. If `body`
  /// throws, the temporary file is deleted and the error rethrown.
  public func write(_ body: (_ temporaryPath: String) throws -> Void) throws {
    let staged = try begin()
    do {
      try body(staged.temporaryPath)
    } catch {
      staged.discard()
      throw error
    }
    try staged.commit()
  }
}
