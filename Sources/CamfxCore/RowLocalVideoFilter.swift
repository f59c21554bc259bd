/// A filter whose every output row is made from the same input row alone (a left-right
/// mirror, a colour change, a mark drawn at a fixed place), so it can run on a band of
/// rows at a time and give the same pixels as on the whole frame.
///
/// This is what lets a transcode work the way Core Image renders, tile by tile: the
/// recording pipeline converts a band of a few rows from the decoded yuv420p picture to
/// BGRA, runs the chain on it and converts it straight back for the encoder while the
/// band is still in the CPU cache, instead of making three passes over frames that do
/// not fit in it. A chain runs in bands only when every filter in it is row-local.
///
/// A filter opts in by conforming; `isRowLocal` lets one instance decline (mirror's
/// vertical axis moves rows).
public protocol RowLocalVideoFilter: InPlaceVideoFilter {
  /// True when `process(band:firstRow:)` may be used for this configured instance.
  var isRowLocal: Bool { get }

  /// Filters rows `firstRow ..< firstRow + band.height` of a frame of the configured
  /// size, given as `band` (its row 0 is the frame's row `firstRow`; same width). Must
  /// leave exactly the pixels `process(_:)` leaves in those rows, and not allocate.
  func process(band: inout PixelBuffer, firstRow: Int)
}

/// A row-local filter that also works on bands of a yuv420p picture, in place: what
/// lets a source that converts its pictures itself (a camera's YUYV or NV12) run it on
/// each band of rows right after converting it, while the band is still in the core's
/// cache, instead of one more pass over a whole picture that has left it
/// (`MediaSource.filterWhileConverting`).
///
/// Such a filter may then be called from the source's thread for some frames and the
/// filter stage's for others, so, like every row-local filter, it keeps no state
/// between calls.
public protocol RowLocalYUV420Filter: RowLocalVideoFilter, YUV420VideoFilter {
  /// Filters rows `firstRow ..< firstRow + band.height` of a picture of the configured
  /// size, given as `band` (its row 0 is the picture's row `firstRow`, which is even;
  /// same width). Must leave exactly the samples `process(yuv420:into:)` leaves in
  /// those rows, and not allocate.
  /// - Precondition: `isRowLocal` and `acceptsYUV420`.
  func process(yuv420Band band: YUV420Picture, firstRow: Int)
}
