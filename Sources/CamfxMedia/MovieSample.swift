import CamfxCore

/// One decoded unit from `MovieReader`, in file order.
public enum MovieSample: Sendable {
  /// A BGRA frame from the reader's pool, stamped with its presentation time.
  case video(PixelBuffer)
  /// Interleaved S16 audio.
  case audio(PCMBuffer)
  /// A decoded yuv420p picture handed on as it is, from the reader's pool of decoded
  /// frames; only when `MovieReader.deliversYUV420Frames` is set.
  case yuv420Video(YUV420Frame)
}
