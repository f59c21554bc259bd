import Camfx
import Synchronization

/// The SPSC ring measured the way rigtorp's SPSCQueue benchmark measures its queue: two
/// threads, both spinning on `tryPush`/`tryPop` (no sleeping back-off), `Int` items.
public enum RingBench {
  /// Moves `count` integers from a producer thread to the calling thread through a ring
  /// of `capacity` slots; checks they arrive in order.
  /// - Returns: seconds taken.
  public static func transfer(count: Int, capacity: Int = 1024) -> Double {
    let ring = FrameRing<Int>(capacity: capacity)
    let start = ContinuousClock.now
    let producer = BackgroundThread {
      var i = 0
      while i < count {
        if ring.tryPush(i) { i += 1 }
      }
    }
    var expected = 0
    while expected < count {
      if let v = ring.tryPop() {
        precondition(v == expected, "ring delivered \(v), expected \(expected)")
        expected += 1
      }
    }
    producer.join()
    return seconds(ContinuousClock.now - start)
  }

  /// Pushes 512 items, then pops them, `rounds` times, on the calling thread alone: the
  /// cost of the ring's own instructions without any cross-core traffic or scheduling
  /// (what stays measurable on a machine too busy for two spinning threads).
  /// - Returns: seconds taken for `rounds * 512` items.
  public static func singleThread(rounds: Int, capacity: Int = 1024) -> Double {
    let ring = FrameRing<Int>(capacity: capacity)
    var sum = 0
    let start = ContinuousClock.now
    for r in 0..<rounds {
      for i in 0..<512 { _ = ring.tryPush(r &+ i) }
      for _ in 0..<512 { sum &+= ring.tryPop() ?? 0 }
    }
    let elapsed = seconds(ContinuousClock.now - start)
    precondition(sum != 42, "unlikely; keeps the loop")
    return elapsed
  }

  /// A persistent echo thread: what it pops from `ping` it pushes to `pong`. Measures
  /// round trips from the calling thread.
  public final class Echo: @unchecked Sendable {
    // @unchecked Sendable: `ping` has one producer (the caller) and one consumer (the echo
    // thread); `pong` the reverse; `stop` is atomic.
    let ping = FrameRing<Int>(capacity: 1024)
    let pong = FrameRing<Int>(capacity: 1024)
    let stop = Atomic<Bool>(false)
    private var thread: BackgroundThread?

    public init() {
      thread = BackgroundThread { [self] in
        while !stop.load(ordering: .relaxed) {
          if let v = ping.tryPop() {
            while !pong.tryPush(v) {}
          }
        }
      }
    }

    /// `count` round trips, one item in flight at a time.
    public func roundTrips(_ count: Int) {
      for i in 0..<count {
        while !ping.tryPush(i) {}
        while true {
          if let v = pong.tryPop() {
            precondition(v == i, "echo returned \(v), expected \(i)")
            break
          }
        }
      }
    }

    /// Stops and joins the echo thread.
    public func finish() {
      stop.store(true, ordering: .relaxed)
      thread?.join()
      thread = nil
    }

    deinit { finish() }
  }

  static func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
  }
}
