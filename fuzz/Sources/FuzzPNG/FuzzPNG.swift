import Camfx
import CamfxPNG
import Glibc

/// Bytes as a PNG file (a `--source` or a watermark image): read it.
func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let path = "/tmp/camfx-fuzz-\(getpid()).png"
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard fd >= 0 else { return 0 }
  _ = write(fd, data, size)
  close(fd)
  _ = try? PNGFile.read(path: path)
  unlink(path)
  return 0
}
