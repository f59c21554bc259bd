// The pipeline's plumbing: the SPSC ring between two threads (items per second and
// round-trip latency), pool acquire/release, and one pooled frame through a whole
// filter chain and a ring hop, the steady state of `camfx record` (target: 0 mallocs).
import Benchmark
import BenchSupport
import Camfx
#if canImport(Glibc)
import Glibc
#endif

let benchmarks: @Sendable () -> Void = {
  // As in Kernels: allocations exact; time within CAMFX_BENCH_TIME_TOLERANCE percent
  // (default 200: this shared 2-core machine swings by up to 3x between runs).
  let percent = getenv("CAMFX_BENCH_TIME_TOLERANCE").flatMap { Double(String(cString: $0)) } ?? 200
  let tolerances: [BenchmarkMetric: BenchmarkThresholds] = [
    .wallClock: .init(relative: [.p90: percent]),
    .throughput: .init(relative: [.p90: 100 - 100 / (1 + percent / 100)]),
    .mallocCountTotal: .init(absolute: [.p90: 0]),
  ]
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    warmupIterations: 2,
    maxDuration: .seconds(1),
    maxIterations: 10_000,
    thresholds: tolerances)

  // 1M Ints per iteration from a producer thread to this one. Throughput is in M
  // items/s; the few mallocs per iteration are the producer thread's start-up, not the
  // ring (1M items, so per item it is 0).
  Benchmark("ring_items_1M", configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega, maxDuration: .seconds(2), thresholds: tolerances)) { benchmark in
    blackHole(RingBench.transfer(count: benchmark.scaledIterations.count))
  }

  // 1000 round trips per iteration to an echo thread and back through two rings:
  // wall clock per iteration / 1000 = one round trip.
  let echoBox = EchoBox()
  Benchmark("ring_round_trip_x1000", configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .kilo, thresholds: tolerances)) { benchmark in
    echoBox.echo?.roundTrips(benchmark.scaledIterations.count)
  } setup: {
    echoBox.echo = RingBench.Echo()
  } teardown: {
    echoBox.echo?.finish()
    echoBox.echo = nil
  }

  // Acquire a 1080p buffer from a pool of 4 and let it go back, 1000 times.
  let pool = PixelBufferPool(geometry: FrameGeometry(width: 1920, height: 1080), capacity: 4)
  Benchmark("pool_acquire_release_x1000", configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .kilo, thresholds: tolerances)) { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(pool.tryAcquire())
    }
  }

  // The steady state of the video path for one 1080p frame: pooled buffer -> chain
  // (mirror, grayscale, watermark) -> ring -> consumer drops it -> back in the pool.
  for geometry in TestImages.sizes {
    let chainBox = ChainBox()
    Benchmark("pooled_chain_ring_\(geometry.width)x\(geometry.height)") { benchmark in
      guard let state = chainBox.state else { return }
      for _ in benchmark.scaledIterations {
        guard var frame = state.pool.tryAcquire() else { fatalError("pool exhausted: a frame did not come back") }
        state.chain.process(&frame)
        guard state.ring.tryPush(frame) else { fatalError("ring full") }
        blackHole(state.ring.tryPop())
      }
    } setup: {
      chainBox.state = try ChainBox.State(geometry: geometry)
    } teardown: {
      chainBox.state = nil
    }
  }
}

/// @unchecked Sendable (both boxes): setup, body and teardown run one after another.
final class EchoBox: @unchecked Sendable { var echo: RingBench.Echo? }
final class ChainBox: @unchecked Sendable {
  struct State {
    let pool: PixelBufferPool
    let chain: FilterChain
    let ring = FrameRing<PixelBuffer>(capacity: 4)
    init(geometry: FrameGeometry) throws {
      pool = PixelBufferPool(geometry: geometry, capacity: 4)
      chain = try PipelineChain.make(geometry)
    }
  }
  var state: State?
}
