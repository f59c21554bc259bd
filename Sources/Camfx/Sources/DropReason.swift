/// Why a live frame never reached the file.
public enum DropReason: String, Sendable, CaseIterable, Codable {
  /// The next stage's ring was full: the pipeline is behind the source's clock.
  case late
  /// Every buffer of the source's pool was still in the pipeline.
  case outOfBuffers = "out-of-buffers"
  /// The camera sent a damaged frame (a JPEG cut short, H.264 that does not decode) or,
  /// H.264, a frame that refers to one that was lost.
  case corrupt
}
