/// Three owned yuv420p (I420) planes: full-size Y, half-size U and V.
///
///     y: width × height, rows yStride apart
///     u: (width+1)/2 × (height+1)/2, rows uStride apart
///     v: same as u
///
/// For the converters' tests and benchmarks, and for the pictures between two filters of
/// a chain that works on yuv420p (`FilterChain.process(yuv420:into:using:)`); the movie
/// writer converts straight into the encoder's `AVFrame`s instead. Rows are padded to
/// 64 bytes.
///
/// `@unchecked Sendable`: the planes are plain memory owned by this object; whoever
/// writes them must not share the object while doing so (as with `PixelStorage`).
public final class YUV420Planes: @unchecked Sendable {
  public let width: Int
  public let height: Int
  public let y: UnsafeMutablePointer<UInt8>
  public let u: UnsafeMutablePointer<UInt8>
  public let v: UnsafeMutablePointer<UInt8>
  public let yStride: Int
  public let uStride: Int
  public let vStride: Int

  public var chromaWidth: Int { (width + 1) / 2 }
  public var chromaHeight: Int { (height + 1) / 2 }

  public init(width: Int, height: Int) {
    precondition(width > 0 && height > 0)
    self.width = width
    self.height = height
    yStride = (width + 63) / 64 * 64
    uStride = ((width + 1) / 2 + 63) / 64 * 64
    vStride = uStride
    let ch = (height + 1) / 2
    y = .allocate(capacity: yStride * height)
    u = .allocate(capacity: uStride * ch)
    v = .allocate(capacity: vStride * ch)
    y.initialize(repeating: 0, count: yStride * height)
    u.initialize(repeating: 0, count: uStride * ch)
    v.initialize(repeating: 0, count: vStride * ch)
  }

  deinit {
    y.deallocate()
    u.deallocate()
    v.deallocate()
  }

  /// The planes as a filter sees them.
  public var picture: YUV420Picture {
    YUV420Picture(width: width, height: height, y: y, yStride: yStride, u: u, uStride: uStride, v: v, vStride: vStride)
  }

  /// Sample getters for tests (checked, slow).
  public func luma(x: Int, y row: Int) -> UInt8 {
    precondition(x >= 0 && x < width && row >= 0 && row < height)
    return y[row * yStride + x]
  }
  public func cb(x: Int, y row: Int) -> UInt8 {
    precondition(x >= 0 && x < chromaWidth && row >= 0 && row < chromaHeight)
    return u[row * uStride + x]
  }
  public func cr(x: Int, y row: Int) -> UInt8 {
    precondition(x >= 0 && x < chromaWidth && row >= 0 && row < chromaHeight)
    return v[row * vStride + x]
  }
}
