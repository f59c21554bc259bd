// Per-frame kernels of camfx and of its peers (libyuv, libavfilter, libswscale), in one
// process, on the same frames, at 1280x720, 1920x1080 and 3840x2160.
//
// Names are `<operation>_<size>_<library>`; one iteration is one frame, so
// throughput is frames per second. `mallocCountTotal` per iteration is the allocation
// count per frame (camfx's target: 0).
import Benchmark
import BenchSupport

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
/// `swift package benchmark thresholds check` fails. Time on this shared 2-core machine
/// swings by up to 2x, so only a slow-down beyond that counts; allocations are exact.
enum KernelThresholds {
  static var tolerances: [BenchmarkMetric: BenchmarkThresholds] { [
    .wallClock: .init(relative: [.p90: 100.0]),
    .throughput: .init(relative: [.p90: 50.0]),
    .mallocCountTotal: .init(absolute: [.p90: 0]),
  ] }
}
