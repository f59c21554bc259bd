#if canImport(Glibc)
import Glibc
#endif

/// How a stage waits when it has nothing to do: spin a little, yield, then sleep in
/// growing steps up to 1 ms, so an idle stage costs little CPU and a busy one stays fast.
struct IdleBackoff {
  private var rounds = 0

  mutating func reset() { rounds = 0 }

  mutating func wait() {
    rounds += 1
    if rounds < 32 { return }
    if rounds < 64 { sched_yield(); return }
    usleep(UInt32(min(1000, 20 * (rounds - 63))))
  }
}
