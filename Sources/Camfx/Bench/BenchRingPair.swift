#if canImport(Glibc)
import Glibc
#endif

/// The ring benchmark's ring and its consumer thread, which pops until the ring is
/// closed. Dropping the pair (when the runner drops the timed body) closes the ring
/// and joins the thread, so no thread outlives its row.
///
/// Only the benchmark thread touches the pair (it pushes and, in `deinit`, closes);
/// the consumer thread holds the ring alone.
final class BenchRingPair {
  let ring: FrameRing<Int>
  private let thread: pthread_t

  init(capacity: Int) throws {
    ring = FrameRing<Int>(capacity: capacity)
    let box = Unmanaged.passRetained(ring)
    var t = pthread_t()
    let created = pthread_create(&t, nil, { arg in
      let ring = Unmanaged<FrameRing<Int>>.fromOpaque(arg!).takeRetainedValue()
      var sum = 0
      while let item = ring.pop() { sum &+= item }
      // Keeps the pops from being optimised away.
      if sum == -1 { print(sum) }
      return nil
    }, box.toOpaque())
    guard created == 0 else {
      box.release()
      throw BenchError(operation: "pthread_create", code: created)
    }
    thread = t
  }

  deinit {
    ring.close()
    pthread_join(thread, nil)
  }
}
