#if canImport(Glibc)
import Glibc
#endif
import BenchSupport
import Camfx

/// One contender's figure in the comparison.
struct Measurement: Codable {
  let operation: String
  let width: Int
  let height: Int
  let library: Library
  let detail: String
  /// The best (least disturbed) of the interleaved rounds, in nanoseconds per frame.
  let nanosecondsPerFrame: Double
  /// Every round's mean, to show the spread.
  let rounds: [Double]
  /// True when each call took the next of a pool of frames larger than the last-level
  /// cache (as a pipeline's frames come from memory); false or absent: one frame,
  /// called again and again, so it sits in the cache.
  var cold: Bool?
  /// The operation's least bytes read and written a frame, if it has that figure.
  var bytesMoved: Int?

  var framesPerSecond: Double { 1e9 / nanosecondsPerFrame }
  var size: String { "\(width)x\(height)" }
  var isCold: Bool { cold ?? false }
}

/// Measures every contender of `operation` in interleaved rounds (camfx, libyuv, FFmpeg,
/// camfx, libyuv, ...), so a burst of load from elsewhere hits all of them alike. Cold:
/// each contender is set up as many times as it takes for its buffers to fill
/// `poolBytes`, and the calls go round the copies.
func measure(
  _ operation: FrameOperation, rounds: Int, budgetNanoseconds: UInt64, temperature: BenchFrames = .hot,
  poolBytes: Int = 0
) throws -> [Measurement] {
  let g = operation.geometry
  let copies =
    temperature == .hot
    ? 1 : BenchFrames.copies(poolBytes: poolBytes, bytesPerCopy: operation.bytesMoved ?? 2 * g.width * g.height * 4)
  var jobs: [(Contender, FrameJob)] = []
  for contender in operation.contenders {
    var pool: [FrameJob] = []
    for _ in 0..<copies {
      let job = try contender.make()
      try job()  // warm-up: page in buffers, build lookup tables, fill graph pools
      pool.append(job)
    }
    if copies == 1 {
      jobs.append((contender, pool[0]))
    } else {
      var next = 0
      let cycle: FrameJob = {
        try pool[next]()
        next = next + 1 == pool.count ? 0 : next + 1
      }
      jobs.append((contender, cycle))
    }
  }
  // Cold rounds run at least one turn of the pool each.
  let budget = max(budgetNanoseconds, temperature == .hot ? 0 : UInt64(copies) * 2_000_000)
  var times = Array(repeating: [Double](), count: jobs.count)
  for _ in 0..<rounds {
    for (i, (_, job)) in jobs.enumerated() {
      times[i].append(try Stopwatch.nanosecondsPerCall(budgetNanoseconds: budget, job))
    }
  }
  return jobs.enumerated().map { i, entry in
    Measurement(
      operation: operation.name, width: g.width, height: g.height, library: entry.0.library, detail: entry.0.detail,
      nanosecondsPerFrame: times[i].min()!, rounds: times[i], cold: temperature == .cold, bytesMoved: operation.bytesMoved)
  }
}

/// The machine's copy bandwidth from memory to memory, in bytes (read plus written) per
/// nanosecond: memcpy of 8 MiB blocks taken in turn from a pool of `poolBytes`, the
/// best of `rounds`.
func copyBandwidth(poolBytes: Int, rounds: Int) -> Double {
  let block = 8 << 20
  let count = max(2, poolBytes / block)
  let sources = (0..<count).map { _ in PlaneBuffer(byteCount: block) }
  let destinations = (0..<count).map { _ in PlaneBuffer(byteCount: block) }
  var best = Double.infinity
  for _ in 0..<rounds {
    let start = Stopwatch.now()
    for i in 0..<count { memcpy(destinations[i].baseAddress, sources[i].baseAddress, block) }
    best = min(best, Double(Stopwatch.now() - start) / Double(count))
  }
  return Double(2 * block) / best
}
