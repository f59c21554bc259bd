#if canImport(Glibc)
import Glibc
#endif

/// Turns a fragmented MP4 written by camfx into a regular one, in place, without
/// moving the media: the final index is appended, and the marker after `ftyp` becomes
/// the header of one `mdat` that covers the initial index and every fragment.
///
///     before: ftyp | marker (free) | moov₀ | moof mdat | moof mdat | … | torn tail?
///     after:  ftyp | free | mdat [ moov₀ moof mdat moof mdat … ] | moov
///
/// Players then see an ordinary MP4 with a duration and a full index (OBS's "hybrid
/// MP4" does the same). A torn last fragment, left by a crash while it was being
/// written, is cut. The steps are ordered so that a crash at any point leaves a file
/// that still plays, and that `finish` can take up again:
/// 1. cut the torn tail; 2. append the index and `fdatasync`; 3. turn the marker into
/// the `mdat` header and `fdatasync`.
public enum FragmentedMovieFinisher {
  /// What a finish kept and cut.
  public struct Report: Sendable, Equatable {
    /// The movie's duration after finishing, in seconds.
    public var seconds: Double
    /// Bytes of a torn last fragment that were cut.
    public var cutBytes: Int64
    /// Complete fragments kept.
    public var fragments: Int
    /// Samples kept per kind of track ("video", "audio").
    public var trackKinds: [String]
    /// True when the file was already a finished, regular MP4 and was left as it was.
    public var wasFinished: Bool
    /// Wall-clock seconds the finish took (reading the fragments, writing the index).
    public var elapsedSeconds: Double = 0
  }

  /// Finishes the fragmented MP4 open for reading and writing at `fd`.
  /// - Throws: `MP4FormatError` when the file is not a camfx fragmented MP4 (nothing is
  ///   changed then), or an I/O error's text.
  @discardableResult
  public static func finish(fd: Int32) throws(MP4FormatError) -> Report {
    let started = ContinuousClock.now
    let scan = try FragmentedMovieScan(fd: fd)
    if scan.kind == .finished {
      return Report(seconds: 0, cutBytes: 0, fragments: 0, trackKinds: [], wasFinished: true)
    }
    let cut = scan.fileSize - scan.completeEnd
    if cut > 0 { try truncate(fd, to: scan.completeEnd) }
    let (moov, seconds) = try MovieIndexBuilder(initialMovie: scan.initialMovie, tracks: scan.tracks, marker: scan.marker)
      .build()
    let kinds = try handlerKinds(scan.initialMovie)
    do throws(MP4FormatError) {
      try write(fd, moov, at: scan.completeEnd)
      try truncate(fd, to: scan.completeEnd + Int64(moov.count))
      try sync(fd)
    } catch {
      // No room for the index (a full disk): the file stays fragmented, which plays.
      _ = ftruncate(fd, off_t(scan.completeEnd))
      throw error
    }
    let boxes = FragmentedMovieMarker.finishedBoxes(
      original: scan.markerBox, markerOffset: scan.markerOffset, mediaEnd: scan.completeEnd)
    try write(fd, boxes, at: scan.markerOffset)
    try sync(fd)
    let elapsed = ContinuousClock.now - started
    return Report(
      seconds: seconds, cutBytes: cut, fragments: scan.fragments, trackKinds: kinds, wasFinished: false,
      elapsedSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
  }

  /// Finishes the file at `path` (`camfx repair`).
  public static func finish(path: String) throws(MP4FormatError) -> Report {
    let fd = open(path, O_RDWR | O_CLOEXEC)
    guard fd >= 0 else { throw MP4FormatError("cannot open '\(path)': \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { throw MP4FormatError("'\(path)' is not a regular file") }
    // A recording that is still being written holds this lock.
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      throw MP4FormatError("'\(path)' is being written by a running recording")
    }
    return try finish(fd: fd)
  }

  /// "video", "audio", ... for each track, from the `hdlr` boxes.
  private static func handlerKinds(_ moov: [UInt8]) throws(MP4FormatError) -> [String] {
    var kinds: [String] = []
    for trak in try mp4Children(of: moov, payloadStart: 8) where trak.type == "trak" {
      for mdia in try mp4Children(of: moov, payloadStart: trak.range.lowerBound + 8, end: trak.range.upperBound)
      where mdia.type == "mdia" {
        for hdlr in try mp4Children(of: moov, payloadStart: mdia.range.lowerBound + 8, end: mdia.range.upperBound)
        where hdlr.type == "hdlr" {
          var r = MP4ByteReader(moov, at: hdlr.range.lowerBound + 16)
          switch FourCC(rawValue: try r.u32()) {
          case "vide": kinds.append("video")
          case "soun": kinds.append("audio")
          default: kinds.append("data")
          }
        }
      }
    }
    return kinds
  }

  static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int64) throws(MP4FormatError) {
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
      if n < 0 {
        if errno == EINTR { continue }
        throw MP4FormatError("writing the index failed: \(String(cString: strerror(errno)))")
      }
      done += n
    }
  }

  static func truncate(_ fd: Int32, to size: Int64) throws(MP4FormatError) {
    guard ftruncate(fd, off_t(size)) == 0 else {
      throw MP4FormatError("cutting the file failed: \(String(cString: strerror(errno)))")
    }
  }

  static func sync(_ fd: Int32) throws(MP4FormatError) {
    guard fdatasync(fd) == 0 else { throw MP4FormatError("fdatasync failed: \(String(cString: strerror(errno)))") }
  }
}
