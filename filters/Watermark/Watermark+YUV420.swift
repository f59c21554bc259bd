import CamfxCore

/// Watermarking yuv420p pictures: the rest of the picture is copied (or left alone in
/// place) and the mark is blended into the planes' covered samples (`YUV420Mark`), as
/// ffmpeg's overlay does in yuv420p. Frames of odd width or height go through BGRA.
extension Watermark {
  public var acceptsYUV420: Bool { yuv420Mark != nil }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    guard let yuv420Mark else { preconditionFailure("watermark configured for \(frameSize): not in yuv420p") }
    precondition(source.geometry == frameSize && destination.geometry == frameSize,
      "watermark configured for \(frameSize), got \(source.geometry) → \(destination.geometry)")
    if !source.isSamePicture(as: destination) { source.copyPixels(to: destination) }
    yuv420Mark.blend(into: destination)
  }

  /// The mark's rows that fall in the band.
  public func process(yuv420Band band: YUV420Picture, firstRow: Int) {
    guard let yuv420Mark else { preconditionFailure("watermark configured for \(frameSize): not in yuv420p") }
    precondition(band.width == frameSize.width && firstRow + band.height <= frameSize.height,
      "watermark configured for \(frameSize), got rows \(firstRow)..<\(firstRow + band.height) of width \(band.width)")
    yuv420Mark.blend(intoBand: band, firstRow: firstRow)
  }
}
