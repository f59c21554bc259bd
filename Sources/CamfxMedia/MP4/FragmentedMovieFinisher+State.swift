#if canImport(Glibc)
import Glibc
#endif

extension FragmentedMovieFinisher {
  /// True when the MP4 or QuickTime file at `path` is a finished, regular movie, judged
  /// from its top-level boxes alone: they run exactly to the end of the file, start with
  /// `ftyp`, hold a `moov` and an `mdat`, and no fragment (`moof`).
  ///
  ///     finished (stopped, or `camfx repair`):  ftyp | free | mdat | moov
  ///     finished, moved for streaming:          ftyp | moov | free | mdat
  ///     still fragmented (recording, or cut):   ftyp | free | moov | moof | mdat | … | torn?
  ///
  /// A file that cannot be opened or read is not finished.
  public static func isFinished(path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    guard let file = try? MP4FileReader(fd: fd) else { return false }
    var types: [FourCC] = []
    var offset: Int64 = 0
    while offset < file.fileSize {
      guard let header = try? file.boxHeader(at: offset), header.end <= file.fileSize else { return false }
      types.append(header.type)
      offset = header.end
    }
    return types.first == "ftyp" && types.contains("moov") && types.contains("mdat") && !types.contains("moof")
  }
}
