import Camfx
import CamfxMedia
import Glibc

/// Bytes as a movie file: open it as `--input` does, decode a few frames and its sound,
/// and run camfx's own MP4 reader (`camfx repair`) over it.
func fuzzMovie(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let path = "/tmp/camfx-fuzz-\(getpid()).mp4"
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard fd >= 0 else { return 0 }
  _ = write(fd, data, size)
  close(fd)
  FFmpegLogging.fatalOnly()
  if let reader = try? MovieReader(path: path, audio: AudioOutputSettings(), poolCapacity: 4) {
    for _ in 0..<8 { guard (try? reader.nextSample()) != nil else { break } }
  }
  _ = try? FragmentedMovieFinisher.finish(path: path)
  unlink(path)
  return 0
}
