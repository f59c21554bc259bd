/// The memory behind one or more `PixelBuffer` views.
///
/// Either *owning* (allocated here, 64-byte aligned, freed in `deinit`) or *borrowed*
/// (someone else's memory, e.g. a V4L2 mmap buffer, which this object never frees).
/// A `PixelBufferPool` recognises that a storage is free again when the pool holds the
/// only reference to it, so returning a frame to its pool costs no allocation.
///
/// `@unchecked Sendable`: the pointer is only ever written by the one stage that
/// currently holds the frame; frames are handed between stages through `FrameRing`,
/// whose release/acquire ordering publishes the pixel writes to the next stage.
public final class PixelStorage: @unchecked Sendable {
  /// First byte of the memory.
  public let baseAddress: UnsafeMutableRawPointer
  /// Size of the memory in bytes.
  public let byteCount: Int
  private let owned: Bool

  /// The alignment of every owned allocation and of every row start in pooled buffers.
  public static let alignment = 64

  /// Allocates `byteCount` zeroed bytes, 64-byte aligned.
  public init(byteCount: Int) {
    precondition(byteCount >= 0)
    self.byteCount = byteCount
    self.baseAddress = UnsafeMutableRawPointer.allocate(
      byteCount: max(byteCount, 1), alignment: Self.alignment)
    self.baseAddress.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
    self.owned = true
  }

  /// Wraps memory owned elsewhere. The caller keeps it alive while this storage lives.
  public init(borrowing pointer: UnsafeMutableRawPointer, byteCount: Int) {
    self.baseAddress = pointer
    self.byteCount = byteCount
    self.owned = false
  }

  deinit {
    if owned { baseAddress.deallocate() }
  }
}
