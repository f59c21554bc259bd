/// A filter that can also work on yuv420p pictures as they come from a decoder, with
/// the result its BGRA `process(_:)` would give — the format query of libavfilter's
/// filters, which lets `ffmpeg -vf hflip` flip the decoded planes without converting them.
///
/// When every filter in a transcode's chain accepts yuv420p, the filter stage never
/// makes BGRA at all: the decoded picture goes through the chain into the encoder's
/// picture (`FilterChain.process(yuv420:into:using:)`), which saves the two colour
/// conversions a BGRA filter needs (about 1.2 ms per 1080p frame) and the rounding they
/// add. Otherwise the chain runs on BGRA (in row bands or whole frames), as always.
///
/// "The same result" means the pixels the BGRA path gives (convert to BGRA, `process`,
/// convert back to BT.601 limited-range yuv420p) apart from that round trip's rounding,
/// and its clamping of samples that are no RGB colour (a Y below 16, or Cb and Cr that
/// would give R, G or B outside 0...255: decoded video has some, and the BGRA path
/// changes them where the plane path keeps them): a mirror reverses the planes, a crop
/// copies a rectangle of them, grayscale keeps Y and sets the chroma to neutral. An instance that cannot promise it for its
/// configured input (a mirror of an odd width, whose chroma columns would not line up)
/// says so with `acceptsYUV420`.
public protocol YUV420VideoFilter: VideoFilter {
  /// True when `process(yuv420:into:)` may be used for this configured instance, for
  /// pictures of the size it was configured with.
  var acceptsYUV420: Bool { get }

  /// Writes the filtered `source` (the configured input size) into `destination` (the
  /// size `configure` returned). The two are either the same picture — the filter works
  /// in place; only asked of an `InPlaceVideoFilter` that keeps the size — or do not
  /// overlap. Must not allocate.
  func process(yuv420 source: YUV420Picture, into destination: YUV420Picture)
}
