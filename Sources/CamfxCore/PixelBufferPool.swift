/// A fixed set of reusable `PixelBuffer`s of one geometry, like
/// `AVAssetWriterInputPixelBufferAdaptor.pixelBufferPool`.
///
/// A buffer goes back to the pool by itself when the last `PixelBuffer` viewing its
/// storage goes away: the pool keeps one reference to every storage and hands out a
/// storage again only when its own reference is the only one left. After the pool is
/// created, acquiring and releasing allocate nothing.
public final class PixelBufferPool: Sendable {
  public let geometry: FrameGeometry
  public let bytesPerRow: Int
  public let capacity: Int
  private let storages: ReusableObjects<PixelStorage>

  /// Creates `capacity` buffers of `geometry` up front, rows padded to 64 bytes
  /// (frame-sized ones take RAM only once used: see `PixelStorage.init(byteCount:)`).
  public init(geometry: FrameGeometry, capacity: Int) {
    precondition(capacity > 0 && geometry.width > 0 && geometry.height > 0)
    self.geometry = geometry
    self.capacity = capacity
    self.bytesPerRow = PixelBuffer.alignedBytesPerRow(width: geometry.width)
    let bytes = bytesPerRow * geometry.height
    storages = ReusableObjects((0..<capacity).map { _ in PixelStorage(byteCount: bytes) })
  }

  /// A free buffer stamped with `presentationTime`, or `nil` when every buffer is in use
  /// (a live source counts that as a frame dropped for "out of buffers").
  public func tryAcquire(presentationTime: MediaTime = .zero) -> PixelBuffer? {
    storages.tryTake().map { buffer(on: $0, presentationTime: presentationTime) }
  }

  /// A free buffer, waiting for one to come back if all are in use (back-pressure for
  /// file sources). Returns `nil` only if `shouldStop` becomes true while waiting.
  public func acquire(presentationTime: MediaTime = .zero, shouldStop: () -> Bool = { false }) -> PixelBuffer? {
    storages.take(shouldStop: shouldStop).map { buffer(on: $0, presentationTime: presentationTime) }
  }

  /// How many buffers are out of the pool right now (a snapshot; for stats and tests).
  public var buffersInUse: Int { storages.inUseCount }

  private func buffer(on storage: PixelStorage, presentationTime: MediaTime) -> PixelBuffer {
    PixelBuffer(
      storage: storage, offset: 0, width: geometry.width, height: geometry.height,
      bytesPerRow: bytesPerRow, presentationTime: presentationTime)
  }
}
