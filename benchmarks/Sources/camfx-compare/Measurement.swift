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

  var framesPerSecond: Double { 1e9 / nanosecondsPerFrame }
  var size: String { "\(width)x\(height)" }
}

/// Measures every contender of `operation` in interleaved rounds (camfx, libyuv, FFmpeg,
/// camfx, libyuv, ...), so a burst of load from elsewhere hits all of them alike.
func measure(_ operation: FrameOperation, rounds: Int, budgetNanoseconds: UInt64) throws -> [Measurement] {
  var jobs: [(Contender, FrameJob)] = []
  for contender in operation.contenders {
    let job = try contender.make()
    try job()  // warm-up: page in buffers, build lookup tables, fill graph pools
    jobs.append((contender, job))
  }
  var times = Array(repeating: [Double](), count: jobs.count)
  for _ in 0..<rounds {
    for (i, (_, job)) in jobs.enumerated() {
      times[i].append(try Stopwatch.nanosecondsPerCall(budgetNanoseconds: budgetNanoseconds, job))
    }
  }
  return jobs.enumerated().map { i, entry in
    Measurement(
      operation: operation.name, width: operation.geometry.width, height: operation.geometry.height,
      library: entry.0.library, detail: entry.0.detail, nanosecondsPerFrame: times[i].min()!, rounds: times[i])
  }
}
