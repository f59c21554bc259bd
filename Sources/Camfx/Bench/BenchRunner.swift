/// Times `BenchCase`s on the calling thread (one core).
///
/// Each case is prepared, warmed up (a tenth of the budget, at least one frame), then
/// run in batches of about a millisecond until `secondsPerCase` is used up. The
/// per-frame time of every batch is kept; the result reports the best and the median.
public struct BenchRunner {
  public var secondsPerCase: Double

  public init(secondsPerCase: Double = 0.5) {
    self.secondsPerCase = secondsPerCase
  }

  /// Runs `cases` in order; `progress` is called after each.
  /// Rows of the same size get their ratio to that size's `memcpy` row.
  public func run(_ cases: [BenchCase], progress: (BenchResult) -> Void = { _ in }) throws -> [BenchResult] {
    var results: [BenchResult] = []
    var memcpyFPS: [FrameGeometry: Double] = [:]
    for benchCase in cases {
      var result = try measure(benchCase)
      if benchCase.name == BenchCase.memcpyName { memcpyFPS[benchCase.size] = result.framesPerSecond }
      result.memcpyFramesPerSecond = memcpyFPS[benchCase.size]
      results.append(result)
      progress(result)
    }
    return results
  }

  /// Measures one case.
  public func measure(_ benchCase: BenchCase) throws -> BenchResult {
    let body = try benchCase.prepare()
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
      bestSeconds: samples[0], medianSeconds: samples[samples.count / 2], memcpyFramesPerSecond: nil)
  }
}
