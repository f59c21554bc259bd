#if canImport(Glibc)
import Glibc
#endif

/// Where a benchmark's frames come from. Hot: one frame, over and over, so it stays in
/// the cache (what a kernel's own speed is). Cold: a pool of frames larger than the
/// last-level cache, taken in turn, so each call reads its frame from memory and writes
/// one the cache does not hold (what the pipeline sees: a camera's frame was written by
/// the driver's DMA or by another thread long enough ago to have left the cache).
public enum BenchFrames: String, Sendable, CaseIterable {
  case hot, cold

  /// Twice the last-level cache: after a turn of the pool, none of its frames is left.
  public static var defaultPoolBytes: Int { 2 * lastLevelCacheBytes() }

  /// How many copies of a case's buffers, each `bytesPerCopy`, fill `poolBytes`: at
  /// least 2, and at most 4096 (tiny frames then make a smaller pool).
  public static func copies(poolBytes: Int, bytesPerCopy: Int) -> Int {
    min(4096, max(2, (poolBytes + bytesPerCopy - 1) / max(1, bytesPerCopy)))
  }

  /// The largest cache of cpu0 in bytes, from sysfs, or 32 MiB when the kernel does
  /// not say.
  public static func lastLevelCacheBytes() -> Int {
    var largest = 0
    for index in 0..<8 {
      guard let file = fopen("/sys/devices/system/cpu/cpu0/cache/index\(index)/size", "r") else { continue }
      defer { fclose(file) }
      var buffer = [CChar](repeating: 0, count: 32)
      guard fgets(&buffer, 32, file) != nil else { continue }
      var text = String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      var scale = 1
      switch text.last {
      case "K": scale = 1 << 10
      case "M": scale = 1 << 20
      case "G": scale = 1 << 30
      default: break
      }
      if scale > 1 { text.removeLast() }
      if let value = Int(text) { largest = max(largest, value * scale) }
    }
    return largest > 0 ? largest : 32 << 20
  }
}
