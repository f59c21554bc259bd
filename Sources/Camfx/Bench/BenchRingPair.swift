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
  private let thread: NamedThread

  init(capacity: Int) throws {
    let ring = FrameRing<Int>(capacity: capacity)
    self.ring = ring
    do {
      thread = try NamedThread("camfx.bench") {
        var sum = 0
        while let item = ring.pop() { sum &+= item }
        // Keeps the pops from being optimised away.
        if sum == -1 { print(sum) }
      }
    } catch {
      throw BenchError(operation: "pthread_create", code: error.code)
    }
  }

  deinit {
    ring.close()
    thread.join()
  }
}
