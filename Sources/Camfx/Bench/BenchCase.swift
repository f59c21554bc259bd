/// One row of `camfx bench`: an operation on frames of one size.
///
/// `prepare` runs once, untimed, and returns the body that is timed; the body handles
/// one frame per call and must not allocate. Later benchmarks (adaptor, converters,
/// rings) add rows by making more cases.
///
///     BenchCase(name: "memcpy", size: size, bytesPerFrame: size.pixelCount * 4) {
///       let (src, dst) = (PixelBuffer(...), PixelBuffer(...))
///       return { dst.copyPixels(from: src) }
///     }
public struct BenchCase {
  /// What is measured, e.g. `grayscale` or `watermark 256x64`.
  public var name: String
  /// The frame size.
  public var size: FrameGeometry
  /// Bytes one call processes (for GB/s): the frame for whole-frame operations, the
  /// covered rectangle for the watermark.
  public var bytesPerFrame: Int
  /// The filter this row measures, for `--filter` (`nil` for references like memcpy,
  /// which are always run).
  public var filter: String?
  /// Sets up frames and returns the timed per-frame body.
  public var prepare: () throws -> () -> Void

  public init(
    name: String, size: FrameGeometry, bytesPerFrame: Int, filter: String? = nil,
    prepare: @escaping () throws -> () -> Void
  ) {
    self.name = name
    self.size = size
    self.bytesPerFrame = bytesPerFrame
    self.filter = filter
    self.prepare = prepare
  }

  /// A case whose body needs no set-up.
  public init(name: String, size: FrameGeometry, bytesPerFrame: Int, filter: String? = nil, run: @escaping () -> Void) {
    self.init(name: name, size: size, bytesPerFrame: bytesPerFrame, filter: filter, prepare: { run })
  }
}
