/// One decoded unit from `MovieReader`, in file order.
public enum MovieSample: Sendable {
  case video(PixelBufferSample)
  case audio(PCMBuffer)
}

import CamfxCore

/// A decoded video frame (a BGRA `PixelBuffer` from the reader's pool, stamped with
/// its presentation time).
public typealias PixelBufferSample = PixelBuffer
