#if canImport(Glibc)
import Glibc
#endif

/// One 8-bit BGRA frame: the unit every pipeline stage and filter works on.
///
/// Memory layout (bytes B, G, R, A in that order for each pixel):
///
///     base + offset
///     v
///     +--------------------------------------------+--------+
///     | B G R A | B G R A | ...  width * 4 bytes    | padding|  row 0
///     +--------------------------------------------+--------+
///     | ...                                        |        |  row 1
///     +--------------------------------------------+--------+
///     <------------------ bytesPerRow ----------------------->
///
/// `PixelBuffer` is a value that *views* a `PixelStorage`, the way `CVPixelBuffer`
/// views an IOSurface: copying a `PixelBuffer` does not copy pixels, and a crop is
/// only a new `offset`, `width` and `height` on the same storage (no copy).
public struct PixelBuffer: Sendable {
  /// The memory this frame lives in.
  public let storage: PixelStorage
  /// Byte offset of pixel (0, 0) from `storage.baseAddress`.
  public private(set) var offset: Int
  public private(set) var width: Int
  public private(set) var height: Int
  /// Distance in bytes between the starts of two rows; at least `width * 4`.
  public let bytesPerRow: Int
  /// When this frame should be shown, on the source's clock.
  public var presentationTime: MediaTime

  public static let bytesPerPixel = 4

  /// Creates an owning buffer with rows padded to a multiple of 64 bytes (or the
  /// given `bytesPerRow`, which must be at least `width * 4`).
  public init(width: Int, height: Int, bytesPerRow: Int? = nil, presentationTime: MediaTime = .zero) {
    precondition(width > 0 && height > 0, "PixelBuffer needs a positive size")
    let stride = bytesPerRow ?? PixelBuffer.alignedBytesPerRow(width: width)
    precondition(stride >= width * 4, "bytesPerRow too small for width")
    self.storage = PixelStorage(byteCount: stride * height)
    self.offset = 0
    self.width = width
    self.height = height
    self.bytesPerRow = stride
    self.presentationTime = presentationTime
  }

  /// Views existing storage. The view must lie inside the storage.
  public init(
    storage: PixelStorage, offset: Int = 0, width: Int, height: Int, bytesPerRow: Int,
    presentationTime: MediaTime = .zero
  ) {
    precondition(width > 0 && height > 0 && bytesPerRow >= width * 4 && offset >= 0)
    precondition(offset + (height - 1) * bytesPerRow + width * 4 <= storage.byteCount, "view outside storage")
    self.storage = storage
    self.offset = offset
    self.width = width
    self.height = height
    self.bytesPerRow = bytesPerRow
    self.presentationTime = presentationTime
  }

  /// `width * 4` rounded up to a multiple of 64 bytes.
  public static func alignedBytesPerRow(width: Int) -> Int {
    let a = PixelStorage.alignment
    return (width * 4 + a - 1) / a * a
  }

  public var geometry: FrameGeometry { FrameGeometry(width: width, height: height) }

  /// Narrows this buffer to a rectangle of itself without copying pixels.
  public mutating func crop(x: Int, y: Int, width: Int, height: Int) {
    precondition(x >= 0 && y >= 0 && width > 0 && height > 0)
    precondition(x + width <= self.width && y + height <= self.height, "crop outside frame")
    offset += y * bytesPerRow + x * 4
    self.width = width
    self.height = height
  }

  /// Calls `body` with a pointer to pixel (0, 0); row `y` starts at `y * bytesPerRow`.
  @inlinable
  public func withUnsafeBytes<R>(_ body: (UnsafeRawPointer) throws -> R) rethrows -> R {
    try body(UnsafeRawPointer(storage.baseAddress + offset))
  }

  /// Calls `body` with a mutable pointer to pixel (0, 0); row `y` starts at `y * bytesPerRow`.
  @inlinable
  public func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawPointer) throws -> R) rethrows -> R {
    try body(storage.baseAddress + offset)
  }

  /// The pixel at (x, y). Checked and slow: for tests and one-off reads, not kernels.
  public subscript(x: Int, y: Int) -> BGRA {
    get {
      precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(geometry)")
      let p = storage.baseAddress + offset + y * bytesPerRow + x * 4
      return BGRA(b: p.load(as: UInt8.self), g: p.load(fromByteOffset: 1, as: UInt8.self),
                  r: p.load(fromByteOffset: 2, as: UInt8.self), a: p.load(fromByteOffset: 3, as: UInt8.self))
    }
    nonmutating set {
      precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(geometry)")
      let p = storage.baseAddress + offset + y * bytesPerRow + x * 4
      p.storeBytes(of: newValue.b, as: UInt8.self)
      p.storeBytes(of: newValue.g, toByteOffset: 1, as: UInt8.self)
      p.storeBytes(of: newValue.r, toByteOffset: 2, as: UInt8.self)
      p.storeBytes(of: newValue.a, toByteOffset: 3, as: UInt8.self)
    }
  }

  /// Sets every pixel to `color`.
  public func fill(_ color: BGRA) {
    let word = color.packed
    withUnsafeMutableBytes { base in
      for y in 0..<height {
        (base + y * bytesPerRow).bindMemory(to: UInt32.self, capacity: width)
          .update(repeating: word, count: width)
      }
    }
  }

  /// Copies the pixels of `source` (same size) into this buffer, row by row.
  public func copyPixels(from source: PixelBuffer) {
    precondition(source.width == width && source.height == height, "copyPixels needs equal sizes")
    let rowBytes = width * 4
    source.withUnsafeBytes { src in
      withUnsafeMutableBytes { dst in
        for y in 0..<height {
          (dst + y * bytesPerRow).copyMemory(from: src + y * source.bytesPerRow, byteCount: rowBytes)
        }
      }
    }
  }

  /// True when both buffers have the same size and the same pixels (padding ignored).
  public func hasSamePixels(as other: PixelBuffer) -> Bool {
    guard width == other.width, height == other.height else { return false }
    let rowBytes = width * 4
    return withUnsafeBytes { a in
      other.withUnsafeBytes { b in
        for y in 0..<height where memcmp(a + y * bytesPerRow, b + y * other.bytesPerRow, rowBytes) != 0 {
          return false
        }
        return true
      }
    }
  }
}

/// One BGRA pixel.
public struct BGRA: Sendable, Hashable, CustomStringConvertible {
  public var b: UInt8, g: UInt8, r: UInt8, a: UInt8
  public init(b: UInt8, g: UInt8, r: UInt8, a: UInt8 = 255) {
    self.b = b; self.g = g; self.r = r; self.a = a
  }
  public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
    self.b = b; self.g = g; self.r = r; self.a = a
  }
  /// The four bytes as one little-endian word, as they lie in memory.
  public var packed: UInt32 {
    UInt32(b) | UInt32(g) << 8 | UInt32(r) << 16 | UInt32(a) << 24
  }
  public var description: String { "BGRA(b: \(b), g: \(g), r: \(r), a: \(a))" }
}
