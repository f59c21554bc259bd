import Camfx
import CamfxPNG
import FuzzSupport

/// Bytes as a PNG file (a `--source` or a watermark image): read it.
func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  withInputFile(data, size, suffix: ".png") { path in _ = try? PNGFile.read(path: path) }
  return 0
}
