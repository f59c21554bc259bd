/// A yuv420p (I420) picture lent to a filter for one call: where its three planes are,
/// and how far apart their rows lie. It owns nothing; whoever lends it keeps the memory
/// alive for the call.
///
///     y: width × height bytes, rows yStride apart
///     u: (width + 1) / 2 × (height + 1) / 2 bytes (Cb), rows uStride apart
///     v: like u (Cr)
///
/// Samples are BT.601 limited range (Y 16...235, Cb and Cr 16...240 around 128), as
/// decoded from a standard H.264 file and as the movie writer encodes them.
public struct YUV420Picture {
  public let width: Int
  public let height: Int
  public let y: UnsafeMutablePointer<UInt8>
  public let yStride: Int
  public let u: UnsafeMutablePointer<UInt8>
  public let uStride: Int
  public let v: UnsafeMutablePointer<UInt8>
  public let vStride: Int
  /// When the picture should be shown, on its source's clock, when it belongs to a
  /// frame that has one (a decoded frame); nil for bare planes.
  public var presentationTime: MediaTime?

  public init(
    width: Int, height: Int, y: UnsafeMutablePointer<UInt8>, yStride: Int, u: UnsafeMutablePointer<UInt8>,
    uStride: Int, v: UnsafeMutablePointer<UInt8>, vStride: Int, presentationTime: MediaTime? = nil
  ) {
    precondition(width > 0 && height > 0 && yStride >= width && uStride >= (width + 1) / 2 && vStride >= (width + 1) / 2)
    self.width = width
    self.height = height
    self.y = y
    self.yStride = yStride
    self.u = u
    self.uStride = uStride
    self.v = v
    self.vStride = vStride
    self.presentationTime = presentationTime
  }

  public var geometry: FrameGeometry { FrameGeometry(width: width, height: height) }
  public var chromaWidth: Int { (width + 1) / 2 }
  public var chromaHeight: Int { (height + 1) / 2 }

  /// True when both pictures are the same memory (a filter asked to work in place).
  public func isSamePicture(as other: YUV420Picture) -> Bool {
    y == other.y && u == other.u && v == other.v
  }

  /// The plane `index` (0 = Y, 1 = U, 2 = V) as base, bytes per row, row length and row
  /// count: for kernels that treat the three planes alike.
  public func plane(_ index: Int) -> (base: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) {
    switch index {
    case 0: return (y, yStride, width, height)
    case 1: return (u, uStride, chromaWidth, chromaHeight)
    default: return (v, vStride, chromaWidth, chromaHeight)
    }
  }

  /// Rows per band where the pipeline filters a picture band by band (in a source's
  /// conversion, or through BGRA): even, so each band owns its chroma rows, and few
  /// enough that a band of a 4K picture (16 × 15 KB of BGRA, 90 KB of yuv420p) stays in
  /// a core's L2 cache from one step to the next.
  public static let bandRows = 16

  /// Rows `firstRow ..< firstRow + rows` as a picture of their own (the same memory):
  /// a band a row-local filter works on. `firstRow` is even, so the band's chroma rows
  /// are its own.
  public func band(firstRow: Int, rows: Int) -> YUV420Picture {
    precondition(firstRow % 2 == 0 && rows > 0 && firstRow + rows <= height, "rows \(firstRow)..<\(firstRow + rows) of a \(geometry) picture")
    let chromaRow = firstRow / 2
    return YUV420Picture(
      width: width, height: rows, y: y + firstRow * yStride, yStride: yStride, u: u + chromaRow * uStride, uStride: uStride,
      v: v + chromaRow * vStride, vStride: vStride, presentationTime: presentationTime)
  }

  /// Calls `body(band, firstRow)` for each band of `bandRows` rows, top to bottom (the
  /// last may be shorter): how a source's conversion runs a row-local chain while each
  /// band is in the cache.
  @inline(__always)
  public func forEachBand(_ body: (_ band: YUV420Picture, _ firstRow: Int) -> Void) {
    var firstRow = 0
    while firstRow < height {
      let rows = min(Self.bandRows, height - firstRow)
      body(self.band(firstRow: firstRow, rows: rows), firstRow)
      firstRow += rows
    }
  }

  /// Copies every sample into `destination`, a picture of the same size.
  public func copyPixels(to destination: YUV420Picture) {
    for index in 0..<3 { copyPlane(index, to: destination) }
  }

  /// Copies plane `index` (0 = Y, 1 = U, 2 = V) into the same plane of `destination`,
  /// a picture of the same size.
  public func copyPlane(_ index: Int, to destination: YUV420Picture) {
    precondition(destination.geometry == geometry, "copying a \(geometry) picture into a \(destination.geometry) one")
    let from = plane(index), to = destination.plane(index)
    for row in 0..<from.height {
      (to.base + row * to.stride).update(from: from.base + row * from.stride, count: from.width)
    }
  }
}
