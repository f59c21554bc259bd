// Per-frame kernels of camfx and of its peers (libyuv, libavfilter, libswscale), in one
// process, on the same frames, at 1280x720, 1920x1080 and 3840x2160.
//
// Names are `<operation>_<size>_<library>`; one iteration is one frame, so
// throughput is frames per second. `mallocCountTotal` per iteration is the allocation
// count per frame (camfx's target: 0).
import Benchmark
import BenchSupport
#if canImport(Glibc)
import Glibc
#endif

/// The per-frame job of the benchmark running now; made in setup, dropped in teardown
/// so only one benchmark's frames are alive at a time (4K frames are 33 MB each).
final class CurrentJob: @unchecked Sendable {
  // @unchecked Sendable: the benchmark runner calls setup, body and teardown in turn,
  // never at the same time.
  var job: FrameJob?
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    timeUnits: .microseconds,
    warmupIterations: 3,
    maxDuration: .milliseconds(700),
    maxIterations: 100_000,
    thresholds: KernelThresholds.tolerances)

  for geometry in TestImages.sizes {
    for operation in Catalog.operations(at: geometry) {
      for contender in operation.contenders {
        let current = CurrentJob()
        let name = "\(operation.name)_\(geometry.width)x\(geometry.height)_\(contender.library.rawValue)"
          + (contender.library == .reference ? "_\(contender.detail.prefix { $0 != " " })" : "")
        Benchmark(name) { benchmark in
          guard let job = current.job else { return }
          for _ in benchmark.scaledIterations {
            try job()
          }
        } setup: {
          current.job = try contender.make()
        } teardown: {
          current.job = nil
        }
      }
    }
  }
}

/// How far a run may drift from the committed thresholds (benchmarks/Thresholds) before
/// `swift package benchmark thresholds check` fails. Allocations are exact: one more
/// malloc per frame fails. Time on the shared 2-core machine the thresholds come from
/// swings by up to 3x between runs, so by default only a slow-down beyond 3x counts;
/// on a quiet, dedicated machine set e.g. `CAMFX_BENCH_TIME_TOLERANCE=15` (percent).
enum KernelThresholds {
  static var tolerances: [BenchmarkMetric: BenchmarkThresholds] {
    let percent = getenv("CAMFX_BENCH_TIME_TOLERANCE").flatMap { Double(String(cString: $0)) } ?? 200
    return [
      .wallClock: .init(relative: [.p90: percent]),
      // A throughput drop of `percent`% of the slower speed: 200% slower = a third of the speed.
      .throughput: .init(relative: [.p90: 100 - 100 / (1 + percent / 100)]),
      .mallocCountTotal: .init(absolute: [.p90: 0]),
    ]
  }
}
