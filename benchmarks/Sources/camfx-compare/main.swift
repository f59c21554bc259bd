// camfx-compare: camfx next to libyuv and FFmpeg, interleaved in one process.
//
//   camfx-compare [table] [--sizes WxH,...] [--rounds N] [--budget-ms MS] [--out DIR]
//                 [--operations NAME,...] [--frames hot,cold] [--pool-mb MB] [--no-files]
//       the peer table; writes DIR/comparison.{md,json,png} (default DIR: results).
//       hot: one frame over and over (in the cache); cold: a pool of frames twice the
//       last-level cache (or --pool-mb), taken in turn, as a pipeline's come from memory
//   camfx-compare ring [--rounds N]      SPSC ring items/s and round-trip latency
//   camfx-compare chart [--out DIR]      redraw DIR/comparison.{png,md} from DIR/comparison.json
//   camfx-compare check                  largest difference between camfx's and each peer's output
//   camfx-compare bands [--sizes WxH,...] [--rounds N]
//       one core vs the frame split into two row bands on two threads
#if canImport(Glibc)
import Glibc
#endif
import BenchSupport
import Camfx
import CamfxPNG

struct Options {
  var mode = "table"
  var sizes = TestImages.sizes
  var rounds = 5
  var budgetMilliseconds = 60
  var outputDirectory = "results"
  var writeFiles = true
  /// Only these operations (`--operations a,b`); all when empty.
  var operations: [String] = []
  var temperatures: [BenchFrames] = [.hot, .cold]
  /// The cold pool's size; twice the last-level cache unless `--pool-mb` says.
  var poolBytes = BenchFrames.defaultPoolBytes

  init(_ arguments: [String]) throws {
    var args = arguments[...]
    if let first = args.first, !first.hasPrefix("-") { mode = first; args = args.dropFirst() }
    guard ["table", "ring", "bands", "check", "chart"].contains(mode) else { throw UsageError("unknown mode '\(mode)' (table, ring, bands, check, chart)") }
    while let arg = args.popFirst() {
      func value() throws -> String {
        guard let v = args.popFirst() else { throw UsageError("\(arg) needs a value") }
        return v
      }
      switch arg {
      case "--sizes": sizes = try value().split(separator: ",").map { try FrameGeometry(parsing: String($0)) }
      case "--rounds":
        let v = try value()
        guard let n = Int(v), n > 0 else { throw UsageError("--rounds: '\(v)' is not a positive number") }
        rounds = n
      case "--budget-ms":
        let v = try value()
        guard let n = Int(v), n > 0 else { throw UsageError("--budget-ms: '\(v)' is not a positive number") }
        budgetMilliseconds = n
      case "--out": outputDirectory = try value()
      case "--no-files": writeFiles = false
      case "--operations": operations = try value().split(separator: ",").map(String.init)
      case "--frames":
        let v = try value()
        temperatures = try v.split(separator: ",").map { name in
          guard let t = BenchFrames(rawValue: String(name)) else { throw UsageError("--frames: '\(name)' is not hot or cold") }
          return t
        }
      case "--pool-mb":
        let v = try value()
        guard let n = Int(v), n > 0 else { throw UsageError("--pool-mb: '\(v)' is not a positive number") }
        poolBytes = n << 20
      default: throw UsageError("unknown option '\(arg)'")
      }
    }
  }
}

struct UsageError: Error, CustomStringConvertible {
  let description: String
  init(_ d: String) { description = d }
}

func utcNow() -> String {
  var t = time(nil)
  var tm = tm()
  gmtime_r(&t, &tm)
  var buffer = [CChar](repeating: 0, count: 32)
  strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M UTC", &tm)
  return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Which of camfx's kernels this build holds.
let kernelBuild: String = {
  #if CAMFX_AVX512
  return "AVX-512 and AVX2 kernels (CAMFX_AVX512)"
  #elseif CAMFX_AVX2
  return "AVX2 kernels, no AVX-512 (CAMFX_AVX2)"
  #else
  return "portable SIMD kernels"
  #endif
}()

/// The CPU's model name from /proc/cpuinfo.
func cpuModel() -> String {
  guard let file = fopen("/proc/cpuinfo", "r") else { return "unknown CPU" }
  defer { fclose(file) }
  var buffer = [CChar](repeating: 0, count: 512)
  while fgets(&buffer, 512, file) != nil {
    let line = String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if line.hasPrefix("model name"), let colon = line.firstIndex(of: ":") {
      return String(line[line.index(after: colon)...]).trimmingCharacters(in: " \t")
    }
  }
  return "unknown CPU"
}

extension String {
  fileprivate func trimmingCharacters(in set: String) -> String {
    var s = Substring(self)
    while let f = s.first, set.contains(f) { s = s.dropFirst() }
    while let l = s.last, set.contains(l) { s = s.dropLast() }
    return String(s)
  }
}

func runTable(_ options: Options) throws {
  var all: [Measurement] = []
  var bandwidth: Double?
  if options.temperatures.contains(.cold) {
    bandwidth = copyBandwidth(poolBytes: options.poolBytes, rounds: options.rounds)
    print("cold frames: pools of \(options.poolBytes >> 20) MB a contender; memcpy from memory moves \(Int((bandwidth! * 1000).rounded())) MB/s (read + written)")
  }
  for geometry in options.sizes {
    let everything = Catalog.operations(at: geometry) + Catalog.extraOperations(at: geometry)
    let unknown = options.operations.filter { name in !everything.contains { $0.name == name } }
    guard unknown.isEmpty else {
      throw UsageError("--operations: unknown '\(unknown.joined(separator: ","))' (\(everything.map(\.name).joined(separator: ",")))")
    }
    for operation in everything where options.operations.isEmpty || options.operations.contains(operation.name) {
      if let missing = operation.missing { print("note: \(operation.name) \(geometry): \(missing)") }
      for temperature in options.temperatures {
        // Set up twice the cache's worth of graphs and frames only for what the pool is for.
        if temperature == .cold && operation.name == "memory" { continue }
        let results = try measure(
          operation, rounds: options.rounds, budgetNanoseconds: UInt64(options.budgetMilliseconds) * 1_000_000,
          temperature: temperature, poolBytes: options.poolBytes)
        for m in results {
          print(
            "\(m.operation.padding(toLength: 16, withPad: " ", startingAt: 0)) \(m.size.padding(toLength: 10, withPad: " ", startingAt: 0)) "
              + "\(temperature.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0)) "
              + "\(m.library.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) "
              + "\(String(Int(m.framesPerSecond.rounded())).padding(toLength: 10, withPad: " ", startingAt: 0)) fps  \(m.detail)")
        }
        all += results
      }
      if operation.name == "jpeg-yuv420p" {
        let sizes = try Catalog.jpegSizes(at: geometry)
        print("jpeg-yuv420p     \(geometry): TurboJPEG q80 \(sizes.turbo) bytes, libavcodec mjpeg qscale \(Catalog.mjpegQScale) \(sizes.mjpeg) bytes")
      }
    }
  }
  let report = Report(
    date: utcNow(), rounds: options.rounds, budgetMilliseconds: options.budgetMilliseconds, measurements: all,
    build: kernelBuild, cpu: cpuModel(), copyBytesPerNanosecond: bandwidth,
    poolBytes: options.temperatures.contains(.cold) ? options.poolBytes : nil)
  let markdown = report.markdown()
  print("")
  print(markdown)
  guard options.writeFiles else { return }
  guard mkdir(options.outputDirectory, 0o755) == 0 || errno == EEXIST else {
    throw UsageError("cannot create \(options.outputDirectory): \(String(cString: strerror(errno)))")
  }
  try writeText(markdown, to: "\(options.outputDirectory)/comparison.md")
  try writeText(String(decoding: try JSONOutput.encode(report), as: UTF8.self), to: "\(options.outputDirectory)/comparison.json")
  let chartSize = report.sizes.contains("1920x1080") ? "1920x1080" : report.sizes[0]
  let png = "\(options.outputDirectory)/comparison.png"
  try PNGFile.write(Chart.render(report, size: chartSize), to: png, alpha: false)
  print("wrote \(options.outputDirectory)/comparison.md, comparison.json, comparison.png")
}

func writeText(_ text: String, to path: String) throws {
  guard let file = fopen(path, "w") else { throw UsageError("cannot write \(path): \(String(cString: strerror(errno)))") }
  defer { fclose(file) }
  guard fputs(text, file) >= 0 else { throw UsageError("cannot write \(path): \(String(cString: strerror(errno)))") }
}

func runRing(_ options: Options) {
  let items = 2_000_000, trips = 20_000, batches = 20_000
  var best = Double.infinity, bestTrip = Double.infinity, bestSingle = Double.infinity
  for round in 0..<options.rounds {
    let single = RingBench.singleThread(rounds: batches)
    bestSingle = min(bestSingle, single)
    let t = RingBench.transfer(count: items)
    let echo = RingBench.Echo()
    let start = Stopwatch.now()
    echo.roundTrips(trips)
    let trip = Double(Stopwatch.now() - start) / Double(trips)
    echo.finish()
    best = min(best, t)
    bestTrip = min(bestTrip, trip)
    print("camfx FrameRing round \(round): \(((Double(items) / t / 1e5).rounded()) / 10) M items/s, \(Int(trip.rounded())) ns/round trip, one thread \(((Double(batches * 512) / single / 1e5).rounded()) / 10) M push+pop/s")
  }
  print("camfx FrameRing best: \(((Double(items) / best / 1e5).rounded()) / 10) M items/s, \(Int(bestTrip.rounded())) ns/round trip, one thread \(((Double(batches * 512) / bestSingle / 1e5).rounded()) / 10) M push+pop/s")
}

do {
  let options = try Options(Array(CommandLine.arguments.dropFirst()))
  switch options.mode {
  case "ring": runRing(options)
  case "bands": try runBands(options)
  case "check": try runCheck(options)
  case "chart":
    // Redraws the chart and the Markdown from the last run's JSON, without measuring.
    let report = try JSONOutput.decode(Report.self, path: "\(options.outputDirectory)/comparison.json")
    try writeText(report.markdown(), to: "\(options.outputDirectory)/comparison.md")
    try PNGFile.write(Chart.render(report, size: report.sizes.contains("1920x1080") ? "1920x1080" : report.sizes[0]),
                      to: "\(options.outputDirectory)/comparison.png", alpha: false)
    print("redrew \(options.outputDirectory)/comparison.png and comparison.md from comparison.json")
  default: try runTable(options)
  }
} catch {
  let line = "camfx-compare: \(error)\n"
  _ = line.withCString { write(2, $0, strlen($0)) }
  exit(1)
}
