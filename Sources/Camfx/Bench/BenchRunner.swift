/// Times `BenchCase`s on the calling thread (one core).
///
/// Each case is prepared, warmed up (a tenth of the budget, at least one frame), then
/// run in batches of about a millisecond until `secondsPerCase` is used up. The
/// per-frame time of every batch is kept; the result reports the best and the median.
public struct BenchRunner {
  public var secondsPerCase: Double
  /// Each case is timed with its frames from each of these, in turn.
  public var sources: [BenchFrames]
  /// The cold pool's size: each cold case is prepared as many times as it takes for
  /// its frames (taken as a BGRA source and destination) to fill it.
  public var poolBytes: Int

  public init(secondsPerCase: Double = 0.5, sources: [BenchFrames] = [.hot], poolBytes: Int = BenchFrames.defaultPoolBytes) {
    self.secondsPerCase = secondsPerCase
    self.sources = sources
    self.poolBytes = poolBytes
  }

  /// Runs `cases` in order, each from every source; `progress` is called after each row.
  /// Rows of the same size and source get their ratio to that size's `memcpy` row.
  /// Cases that move no frame bytes (the ring) run hot only.
  public func run(_ cases: [BenchCase], progress: (BenchResult) -> Void = { _ in }) throws -> [BenchResult] {
    var results: [BenchResult] = []
    var memcpyFPS: [String: Double] = [:]
    for benchCase in cases {
      for source in sources where source == .hot || benchCase.bytesPerFrame > 0 {
        var result = try measure(benchCase, from: source)
        let key = "\(benchCase.size) \(source)"
        if benchCase.name == BenchCase.memcpyName { memcpyFPS[key] = result.framesPerSecond }
        result.memcpyFramesPerSecond = memcpyFPS[key]
        results.append(result)
        progress(result)
      }
    }
    return results
  }

  /// Measures one case with its frames from `source`.
  public func measure(_ benchCase: BenchCase, from source: BenchFrames = .hot) throws -> BenchResult {
    let body: () -> Void
    if source == .cold {
      let copies = BenchFrames.copies(poolBytes: poolBytes, bytesPerCopy: benchCase.size.width * benchCase.size.height * 8)
      let bodies = try (0..<copies).map { _ in try benchCase.prepare() }
      // Every copy once: page faults and first-call set-up are not what is timed.
      for copy in bodies { copy() }
      var next = 0
      body = {
        bodies[next]()
        next = next + 1 == bodies.count ? 0 : next + 1
      }
    } else {
      body = try benchCase.prepare()
    }
    // Warm-up: caches, page faults, branch predictors; also sizes the batches.
    var start = MonotonicClock.seconds()
    body()
    var warmFrames = 1
    while MonotonicClock.seconds() - start < secondsPerCase / 10 {
      body()
      warmFrames += 1
    }
    let perFrame = (MonotonicClock.seconds() - start) / Double(warmFrames)
    let batch = max(1, Int(0.001 / max(perFrame, 1e-9)))

    var samples: [Double] = []
    samples.reserveCapacity(Int(secondsPerCase / 0.001) + 16)
    var frames = 0
    start = MonotonicClock.seconds()
    repeat {
      let t0 = MonotonicClock.seconds()
      for _ in 0..<batch { body() }
      samples.append((MonotonicClock.seconds() - t0) / Double(batch))
      frames += batch
    } while MonotonicClock.seconds() - start < secondsPerCase
    samples.sort()
    return BenchResult(
      name: benchCase.name, size: benchCase.size, bytesPerFrame: benchCase.bytesPerFrame, frames: frames,
      bestSeconds: samples[0], medianSeconds: samples[samples.count / 2], memcpyFramesPerSecond: nil, source: source)
  }
}
