import CamfxCore

/// One decoded unit from `MovieReader`, in file order.
public enum MovieSample: Sendable {
  /// A frame stamped with its presentation time: BGRA from the reader's pool, or, when
  /// `MovieReader.deliversYUV420Frames` is set, a yuv420p picture (a decoded one handed
  /// on as it is, or one converted straight from the decoder's YUYV or NV12).
  case video(VideoFrame)
  /// Interleaved S16 audio.
  case audio(PCMBuffer)
}
