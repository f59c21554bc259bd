import Camfx
import CamfxMedia
import FuzzSupport
import Glibc

/// Bytes as a movie file: open it as `--input` does, decode a few frames and its sound,
/// and run camfx's own MP4 reader (`camfx repair`) over it. Repair must never lose a
/// byte of what it found: a finish may only turn the placeholder after `ftyp` into the
/// media's header and append the index, so every other byte is still there after it.
/// What it writes must be a finished file (a second repair leaves it as it is) with a
/// finite timeline. (Whether `--input` opens it depends on its media, which a fuzzed
/// file makes garbage: a first run that required it stopped on such a file.)
func fuzzMovie(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  FFmpegLogging.fatalOnly()
  let before = Array(UnsafeBufferPointer(start: data, count: size))
  withInputFile(data, size, suffix: ".mp4") { path in
    if let reader = try? MovieReader(path: path, audio: AudioOutputSettings(), poolCapacity: 4) {
      for _ in 0..<8 { guard (try? reader.nextSample()) != nil else { break } }
    }
    guard let report = try? FragmentedMovieFinisher.finish(path: path), !report.wasFinished else { return }
    let after = readAll(path)
    // The placeholder: 96 bytes after the first box (ftyp).
    let ftypEnd = before.count >= 4 ? Int(before[0]) << 24 | Int(before[1]) << 16 | Int(before[2]) << 8 | Int(before[3]) : 0
    let placeholder = ftypEnd..<(ftypEnd + 96)
    if after.count < before.count { fatalError("repair cut the file from \(before.count) to \(after.count) bytes") }
    for i in before.indices where !placeholder.contains(i) && before[i] != after[i] {
      fatalError("repair changed byte \(i) of \(before.count)")
    }
    guard let again = try? FragmentedMovieFinisher.finish(path: path), again.wasFinished else {
      fatalError("a repaired file is not a finished one")
    }
    guard report.seconds.isFinite, report.seconds >= 0, report.videoSeconds <= report.seconds + 1 else {
      fatalError("repair's timeline is \(report.seconds) s for \(report.videoSeconds) s of video")
    }
    // Read it as --input does (its media may be garbage: that is not repair's to judge).
    if let reader = try? MovieReader(path: path, audio: AudioOutputSettings(), poolCapacity: 4) {
      for _ in 0..<4 { guard (try? reader.nextSample()) != nil else { break } }
    }
  }
  return 0
}

private func readAll(_ path: String) -> [UInt8] {
  let fd = open(path, O_RDONLY)
  guard fd >= 0 else { return [] }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = read(fd, &buffer, buffer.count)
    if n <= 0 { break }
    bytes += buffer[0..<n]
  }
  return bytes
}
