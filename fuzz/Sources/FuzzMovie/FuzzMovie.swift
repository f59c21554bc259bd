import Camfx
import CamfxMedia
import FuzzSupport

/// Bytes as a movie file: open it as `--input` does, decode a few frames and its sound,
/// and run camfx's own MP4 reader (`camfx repair`) over it.
func fuzzMovie(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  FFmpegLogging.fatalOnly()
  withInputFile(data, size, suffix: ".mp4") { path in
    if let reader = try? MovieReader(path: path, audio: AudioOutputSettings(), poolCapacity: 4) {
      for _ in 0..<8 { guard (try? reader.nextSample()) != nil else { break } }
    }
    _ = try? FragmentedMovieFinisher.finish(path: path)
  }
  return 0
}
