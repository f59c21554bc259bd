import CamfxCore
#if canImport(Glibc)
import Glibc
#endif

/// Turns a fragmented MP4 written by camfx into a regular one, in place, without
/// moving the media: the final index is appended, and the marker after `ftyp` becomes
/// the header of one `mdat` that covers the initial index and every fragment.
///
///     before: ftyp | marker (free) | moov₀ | moof mdat | moof mdat | … | torn tail?
///     after:  ftyp | free | mdat [ moov₀ moof mdat moof mdat … torn tail? ] | moov
///
/// Players then see an ordinary MP4 with a duration and a full index (OBS's "hybrid
/// MP4" does the same). The index lists the samples of every fragment that can be
/// trusted (`FragmentedMovieScan`); damaged bytes and a torn last fragment stay in the
/// file, outside the index. Nothing is cut or overwritten but the marker, so a crash
/// at any point leaves a file that still plays and that `finish` can take up again:
/// 1. append the index after the last byte and `fdatasync` (a file that still starts
///    with the marker plays as fragmented; an index left there by a crash is found and
///    written again in the same place); 2. turn the marker into the `mdat` header and
///    `fdatasync`. Only when the disk has no room for the index is a torn tail (bytes
///    in which no fragment parses) cut to make room.
public enum FragmentedMovieFinisher {
  /// What a finish kept and left out.
  public struct Report: Sendable, Equatable {
    /// The movie's duration after finishing, in seconds.
    public var seconds: Double
    /// Bytes after the last complete fragment (a fragment torn by a crash, or damaged
    /// boxes), left out of the index.
    public var tailBytes: Int64
    /// Of those, the bytes that were cut from the file (only to make room for the index
    /// on a full disk).
    public var cutBytes: Int64
    /// True when the tail is a fragment cut off by the end of the file (the normal
    /// state after a crash), false when it holds whole boxes that did not parse.
    public var tailIsTorn: Bool
    /// Complete fragments kept.
    public var fragments: Int
    /// Video frames the finished file holds, and how long they last.
    public var videoFrames: Int
    public var videoSeconds: Double
    /// Damaged stretches between kept fragments, left out of the index.
    public var losses: [Loss]
    /// Samples kept per kind of track ("video", "audio").
    public var trackKinds: [String]
    /// True when the file was already a finished, regular MP4 and was left as it was.
    public var wasFinished: Bool
    /// Header fields that were damaged and read or re-derived another way, with
    /// nothing lost by them (a decode time from the previous fragment's end ...).
    public var repairs: [String] = []
    /// Wall-clock seconds the finish took (reading the fragments, writing the index).
    public var elapsedSeconds: Double = 0

    /// True when everything but a torn last fragment was kept.
    public var keptEverythingIntact: Bool { losses.isEmpty && (tailIsTorn || tailBytes == 0) }
  }

  /// Damaged bytes that were left out of the index.
  public struct Loss: Sendable, Equatable {
    /// Where they lie in the file.
    public var bytes: Range<Int64>
    /// The time they held in the file's timeline, in seconds from the recording's
    /// start: from the end of the kept media before them to the start of the kept
    /// media after them; nil where there is none (damage after the last fragment).
    public var from: Double?
    public var to: Double?
    /// The kinds of track left out ("audio"); empty when whole fragments were.
    public var tracks: [String] = []
    /// When single pictures were left out (their times could not be known), how many;
    /// nil when all of the track's samples in those bytes were.
    public var pictures: Int? = nil

    public init(bytes: Range<Int64>, from: Double?, to: Double?, tracks: [String] = [], pictures: Int? = nil) {
      self.bytes = bytes
      self.from = from
      self.to = to
      self.tracks = tracks
      self.pictures = pictures
    }
  }

  /// Finishes the fragmented MP4 open for reading and writing at `fd`. A file with no
  /// complete fragment becomes an empty movie.
  /// - Throws: `MP4FormatError` when the file is not a camfx fragmented MP4 (nothing is
  ///   changed then), or an I/O error's text (the file then stays fragmented, and plays).
  @discardableResult
  /// A recording's own file (`MovieFileOutput`) is finished as it was written: nothing
  /// in it is checked for damage, so nothing there can be taken for damage either.
  public static func finish(fd: Int32) throws(MP4FormatError) -> Report {
    try finish(fd: fd, scan: try FragmentedMovieScan(fd: fd, repairing: false))
  }

  /// What the fragmented MP4 at `fd` holds, without changing it (a file the disk had
  /// no room to finish still plays, as fragmented).
  public static func contents(fd: Int32) throws(MP4FormatError) -> Report {
    let scan = try FragmentedMovieScan(fd: fd, repairing: false)
    let (_, seconds) = try MovieIndexBuilder(initialMovie: scan.initialMovie, tracks: scan.tracks, marker: scan.marker)
      .build()
    return report(scan, seconds: seconds, cut: 0, elapsed: 0)
  }

  private static func report(
    _ scan: FragmentedMovieScan, seconds: Double, cut: Int64, elapsed: Double
  ) -> Report {
    let video = scan.videoTrack.flatMap { scan.tracks[$0] }
    return Report(
      seconds: seconds, tailBytes: scan.fileSize - scan.fragmentsEnd - (scan.staleIndexOffset.map { scan.fileSize - $0 } ?? 0),
      cutBytes: cut, tailIsTorn: scan.tailIsTorn, fragments: scan.fragments, videoFrames: video?.sizes.count ?? 0,
      videoSeconds: scan.videoTimescale > 0 ? Double(video?.mediaDuration ?? 0) / Double(scan.videoTimescale) : 0,
      losses: scan.losses, trackKinds: scan.trackKinds,
      wasFinished: scan.kind == .finished, repairs: scan.repairs, elapsedSeconds: elapsed)
  }

  private static func finish(fd: Int32, scan: FragmentedMovieScan) throws(MP4FormatError) -> Report {
    let started = MonotonicClock.seconds()
    if scan.kind == .finished {
      return Report(
        seconds: 0, tailBytes: 0, cutBytes: 0, tailIsTorn: true, fragments: 0, videoFrames: 0, videoSeconds: 0, losses: [],
        trackKinds: [], wasFinished: true)
    }
    let (moov, seconds) = try MovieIndexBuilder(initialMovie: scan.initialMovie, tracks: scan.tracks, marker: scan.marker)
      .build()
    var indexAt = scan.staleIndexOffset ?? scan.fileSize
    var cut: Int64 = 0
    do throws(MP4FormatError) {
      try writeIndex(fd, moov, at: indexAt)
    } catch {
      // No room for the index (a full disk): a torn tail holds no fragment, and
      // cutting it may make room. Else the file stays fragmented, which plays.
      _ = ftruncate(fd, off_t(scan.fileSize))
      guard scan.tailIsTorn, scan.fragmentsEnd < indexAt else { throw error }
      try truncate(fd, to: scan.fragmentsEnd)
      cut = scan.fileSize - scan.fragmentsEnd
      indexAt = scan.fragmentsEnd
      do throws(MP4FormatError) {
        try writeIndex(fd, moov, at: indexAt)
      } catch {
        _ = ftruncate(fd, off_t(indexAt))
        throw error
      }
    }
    let boxes = FragmentedMovieMarker.finishedBoxes(
      original: scan.markerBox, markerOffset: scan.markerOffset, mediaEnd: indexAt)
    try write(fd, boxes, at: scan.markerOffset)
    try sync(fd)
    return report(scan, seconds: seconds, cut: cut, elapsed: MonotonicClock.seconds() - started)
  }

  /// Writes the index at `offset`, ends the file after it and makes it durable.
  private static func writeIndex(_ fd: Int32, _ moov: [UInt8], at offset: Int64) throws(MP4FormatError) {
    try write(fd, moov, at: offset)
    try truncate(fd, to: offset + Int64(moov.count))
    try sync(fd)
  }

  /// Finishes the file at `path` (`camfx repair`).
  /// - Throws: `MP4FormatError` also when the file holds no complete fragment (it is
  ///   left unchanged then: there is nothing to keep).
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
    let scan = try FragmentedMovieScan(fd: fd, repairing: true)
    if scan.kind == .fragmented && scan.fragments == 0 {
      throw MP4FormatError(
        "it holds no complete fragment (it was cut within its first second, or every fragment is damaged): nothing to keep; left unchanged")
    }
    return try finish(fd: fd, scan: scan)
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
