#if canImport(Glibc)
import Glibc
#endif

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
  private let ownership: Ownership

  private enum Ownership {
    case heap
    case mapped(length: Int)
    case borrowed
  }

  /// The alignment of every owned allocation and of every row start in pooled buffers.
  public static let alignment = 64

  /// From this size on, memory comes straight from the kernel (`mmap`).
  static let mappedThreshold = 256 * 1024

  /// Allocates `byteCount` zeroed bytes, 64-byte aligned.
  ///
  /// Frame-sized storage is mapped anonymous memory: the kernel zero-fills a page the
  /// first time it is touched, so a pool's spare buffers cost no RAM until a stall
  /// actually needs them (a live pool is sized for the worst stall, not the usual case).
  public init(byteCount: Int) {
    precondition(byteCount >= 0)
    self.byteCount = byteCount
    if byteCount >= Self.mappedThreshold,
      let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      mapped != MAP_FAILED
    {
      // Page-aligned, which is 64-byte aligned too.
      self.baseAddress = mapped
      self.ownership = .mapped(length: byteCount)
      return
    }
    self.baseAddress = UnsafeMutableRawPointer.allocate(
      byteCount: max(byteCount, 1), alignment: Self.alignment)
    self.baseAddress.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
    self.ownership = .heap
  }

  /// Wraps memory owned elsewhere. The caller keeps it alive while this storage lives.
  public init(borrowing pointer: UnsafeMutableRawPointer, byteCount: Int) {
    self.baseAddress = pointer
    self.byteCount = byteCount
    self.ownership = .borrowed
  }

  deinit {
    switch ownership {
    case .heap: baseAddress.deallocate()
    case .mapped(let length): munmap(baseAddress, length)
    case .borrowed: break
    }
  }
}
