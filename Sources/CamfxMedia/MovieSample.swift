import CamfxCore

/// One decoded unit from `MovieReader`, in file order.
public enum MovieSample: Sendable {
  /// A BGRA frame from the reader's pool, stamped with its presentation time.
  case video(PixelBuffer)
  /// Interleaved S16 audio.
  case audio(PCMBuffer)
}
