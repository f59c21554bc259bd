#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A fixed set of objects lent out again and again, with no call to give one back: an
/// object is free when the pool holds the only reference to it, so it returns by itself
/// when the last value using it goes away. The reuse rule of `PixelBufferPool` (pixel
/// storage) and of CamfxFrames' pool of yuv420p frames (`YUV420FramePool`).
///
/// Taking an object allocates nothing.
///
/// `@unchecked Sendable`: the list is only touched under the mutex; an object handed out
/// is used by one taker at a time, since the pool hands it out only when nobody else
/// holds it.
public final class ReusableObjects<Element: AnyObject>: @unchecked Sendable {
  private let objects: Mutex<[Element]>
  public let capacity: Int

  public init(_ objects: sending [Element]) {
    precondition(!objects.isEmpty, "a pool needs at least one object")
    capacity = objects.count
    self.objects = Mutex(objects)
  }

  /// A free object, or `nil` when every one is in use.
  public func tryTake() -> Element? {
    objects.withLock { list in
      // The first free one, not round-robin: the same few stay warm in the cache, and
      // spares that only a stall needs are never touched (so never paged in).
      for i in list.indices where isKnownUniquelyReferenced(&list[i]) { return list[i] }
      return nil
    }
  }

  /// A free object, waiting for one to come back if all are in use (back-pressure).
  /// Returns `nil` only if `shouldStop` becomes true while waiting.
  public func take(shouldStop: () -> Bool) -> Element? {
    var backoff = Backoff(first: 50e-6, maximum: 2e-3)
    while true {
      if let object = tryTake() { return object }
      if shouldStop() { return nil }
      MonotonicClock.sleep(seconds: backoff.next())
    }
  }

  /// How many objects are out of the pool right now (a snapshot; for stats and tests).
  public var inUseCount: Int {
    objects.withLock { list in
      var used = 0
      for i in list.indices where !isKnownUniquelyReferenced(&list[i]) { used += 1 }
      return used
    }
  }
}
