#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A lock-free single-producer/single-consumer ring joining two pipeline stages.
///
/// Fixed power-of-two capacity; `tail` is written only by the producer and `head` only
/// by the consumer, each published with release ordering and read with acquiring
/// ordering, so the element (and the pixels it points to) written before a push is
/// visible after the matching pop. Each side keeps a cached copy of the other side's
/// index and re-reads the shared atomic only when the cache says full (or empty),
/// which keeps the two cache lines from bouncing between cores (rigtorp's SPSCQueue).
///
///     slots:  [ 0 ][ 1 ][ 2 ][ 3 ] ... [cap-1]      index & mask = slot
///                    ^head (consumer)    ^tail (producer)
///
/// Exactly one thread may push and exactly one thread may pop.
///
/// `push` and `pop` sleep on a `WakeSignal` when the ring is full or empty; every push
/// notifies `readable` and every pop `writable`, which costs a fence and a load while
/// nobody sleeps (see `WakeSignal`).
/// A consumer that drains several rings passes one `readable` signal to all of them.
///
/// `@unchecked Sendable`: the slots are plain memory shared by two threads; the
/// head/tail protocol above guarantees a slot is touched by one side at a time.
public final class FrameRing<Element: Sendable>: @unchecked Sendable {
  public let capacity: Int
  // The state below is @usableFromInline so that tryPush/tryPop/push/pop are inlined
  // and specialized for `Element` in the calling module: unspecialized, every slot
  // access goes through value witness calls and the ring is ~5x slower across modules
  // (benchmarks/README.md, "SPSC ring").
  @usableFromInline let mask: Int
  @usableFromInline let slots: UnsafeMutablePointer<Element>

  // Consumer's cache line: the index it owns and its cached view of the producer's.
  @usableFromInline let head = Atomic<Int>(0)
  @usableFromInline var consumerCachedTail = 0
  private let padding0: CacheLinePadding = .init()
  // Producer's cache line.
  @usableFromInline let tail = Atomic<Int>(0)
  @usableFromInline var producerCachedHead = 0
  private let padding1: CacheLinePadding = .init()
  @usableFromInline let closed = Atomic<Bool>(false)
  /// Notified after every push and on close: what the consumer sleeps on.
  public let readable: WakeSignal
  /// Notified after every pop: what a producer waiting for room sleeps on.
  public let writable = WakeSignal()

  /// - Parameters:
  ///   - capacity: a power of two, at least 2.
  ///   - readable: the signal the consumer waits on; share one between the rings a
  ///     single thread drains.
  public init(capacity: Int, readable: WakeSignal = WakeSignal()) {
    precondition(capacity >= 2 && capacity & (capacity - 1) == 0, "FrameRing capacity must be a power of two >= 2")
    self.capacity = capacity
    self.readable = readable
    self.mask = capacity - 1
    self.slots = .allocate(capacity: capacity)
  }

  deinit {
    var h = head.load(ordering: .relaxed)
    let t = tail.load(ordering: .relaxed)
    while h != t {
      (slots + (h & mask)).deinitialize(count: 1)
      h &+= 1
    }
    slots.deallocate()
  }

  // MARK: Producer side

  /// Appends `element` if there is room. Producer thread only.
  /// - Returns: `false` when the ring is full (the caller keeps or drops the element).
  @inlinable @inline(__always)
  public func tryPush(_ element: consuming Element) -> Bool {
    _tryPush(element)
  }

  @inlinable
  func _tryPush(_ element: consuming Element) -> Bool {
    let t = tail.load(ordering: .relaxed)
    if t &- producerCachedHead == capacity {
      producerCachedHead = head.load(ordering: .acquiring)
      if t &- producerCachedHead == capacity { return false }
    }
    (slots + (t & mask)).initialize(to: element)
    tail.store(t &+ 1, ordering: .releasing)
    readable.notify()
    return true
  }

  /// Appends `element`, waiting while the ring is full (back-pressure).
  /// - Returns: `false` if `shouldStop` became true before there was room.
  @inlinable
  public func push(_ element: Element, shouldStop: () -> Bool = { false }) -> Bool {
    var spins = 0
    while true {
      if _tryPush(element) { return true }
      if shouldStop() { return false }
      spins += 1
      if spins > Self.spinsBeforeSleeping {
        writable.wait { hasRoom }
      }
    }
  }

  /// How often a side retries before it sleeps: a stage that keeps up finds room (or an
  /// element) within a few tries; one that does not should not burn a core waiting.
  @usableFromInline static var spinsBeforeSleeping: Int { 64 }

  /// True when a push would succeed now. Producer thread only.
  @usableFromInline var hasRoom: Bool {
    tail.load(ordering: .relaxed) &- head.load(ordering: .acquiring) < capacity
  }

  /// True when a pop would find an element now. Consumer thread only.
  public var hasElements: Bool {
    tail.load(ordering: .acquiring) != head.load(ordering: .relaxed)
  }

  /// Tells the consumer no more elements will come. Producer thread only.
  public func close() {
    closed.store(true, ordering: .releasing)
    readable.notify()
  }

  // MARK: Consumer side

  /// Removes the oldest element, or returns `nil` when the ring is empty. Consumer only.
  @inlinable
  public func tryPop() -> Element? {
    let h = head.load(ordering: .relaxed)
    if h == consumerCachedTail {
      consumerCachedTail = tail.load(ordering: .acquiring)
      if h == consumerCachedTail { return nil }
    }
    let element = (slots + (h & mask)).move()
    head.store(h &+ 1, ordering: .releasing)
    writable.notify()
    return element
  }

  /// Removes the oldest element, waiting for one; `nil` once the producer has closed the
  /// ring and every element has been taken, or when `shouldStop` becomes true.
  @inlinable
  public func pop(shouldStop: () -> Bool = { false }) -> Element? {
    var spins = 0
    while true {
      if let e = tryPop() { return e }
      if closed.load(ordering: .acquiring) {
        return tryPop()  // an element pushed just before close()
      }
      if shouldStop() { return nil }
      spins += 1
      if spins > Self.spinsBeforeSleeping {
        readable.wait { hasElements || isClosed }
      }
    }
  }

  /// Elements in the ring now; exact only when called from one of the two threads.
  public var count: Int { tail.load(ordering: .acquiring) &- head.load(ordering: .acquiring) }
  public var isClosed: Bool { closed.load(ordering: .acquiring) }
}

/// 128 bytes, so that the producer's and the consumer's fields never share a cache line
/// (or an adjacent-line prefetch pair).
struct CacheLinePadding {
  let bytes: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) =
    (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
  init() {}
}
