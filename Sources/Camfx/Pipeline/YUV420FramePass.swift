import CamfxMedia

/// What the filter stage of a transcode does to a decoded yuv420p picture when input
/// and sink both take such pictures: makes the encoder's picture from it, filtered,
/// without whole BGRA frames in between. `YUV420FilterPass` runs a chain whose every
/// filter works on yuv420p; `RowBandPass` one whose filters are row-local in BGRA.
protocol YUV420FramePass: AnyObject {
  /// The filtered picture, in a frame from the pass's own pool. Returns nil only if
  /// `shouldStop` turns true while every output picture is held.
  /// - Throws: `FFmpegError` when a picture still held by the encoder cannot get fresh
  ///   buffers.
  func process(_ source: YUV420Frame, shouldStop: () -> Bool) throws -> YUV420Frame?
}
