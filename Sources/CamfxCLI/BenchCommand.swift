import ArgumentParser
import Camfx

/// `camfx bench`: frames/s and GB/s of each built-in filter, the adaptor's BGRA →
/// yuv420p converter and the camera converters on one core, next to memcpy of the same
/// frame; and items/s through the frame ring between two threads.
struct BenchCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bench",
    abstract: "Measure the filters, the adaptor's BGRA→yuv420p, the camera converters and the ring.",
    discussion: """
      Rows: memcpy of the frame (the reference), each built-in filter, \
      bgra-to-yuv420p (the encoder adaptor's converter), yuyv-to-bgra and nv12-to-bgra \
      (the camera converters), nv12-to-yuv420p (an NV12 camera's frame into the planes \
      the filters and the encoder work on), mjpeg-to-yuv420p and mjpeg-to-yuv420p-libavcodec \
      (an MJPEG camera's 4:2:2 frame decoded into those planes by libjpeg-turbo, as camfx \
      does, and by libavcodec), yuv420-filter-pass, row-band-pass and whole-frame-pass \
      (a transcode's filter stage on one decoded yuv420p picture through \
      mirror,watermark: on the yuv420p planes as camfx runs these filters; to BGRA and \
      back in 16-row bands, as it runs a chain with a BGRA-only filter; and as three \
      whole-frame passes), all \
      on one core at each size; then ring, once: Ints \
      pushed through a FrameRing from this thread to a second one (frames/s is items/s, \
      size 1x1, no GB/s); last, transcode: a clip of the largest size, made from the test \
      pattern, run through the whole recording pipeline (decode, mirror,watermark, \
      libx264 veryfast) on every core. Each per-frame row runs for \
      --seconds after a warm-up, in batches of about a millisecond; frames/s is from \
      the fastest batch. Each row runs twice (--frames): hot, on one frame over and over, \
      which stays in the cache; cold, on a pool of frames twice the last-level cache \
      (--pool-mb), taken in turn, as the pipeline's frames come from memory; x memcpy \
      compares with memcpy from the same pool. Build with `swift build -c release` first: \
      debug builds are many times slower. Figures on a shared machine are noisy.
      """)

  @Option(name: .long, help: ArgumentHelp("Frame size WxH; repeat for several (default: 1280x720 and 1920x1080).", valueName: "WxH"))
  var size: [String] = []

  @Option(name: .long, help: ArgumentHelp("Seconds to time each row, after warm-up.", valueName: "S"))
  var seconds: Double = 0.5

  @Option(name: .long, help: ArgumentHelp("Only this filter's or row's rows (a filter, bgra-to-yuv420p, yuyv-to-bgra, nv12-to-bgra, nv12-to-yuv420p, mjpeg-to-yuv420p, mjpeg-to-yuv420p-libavcodec, yuv420-filter-pass, row-band-pass, whole-frame-pass, yuyv-mirror-via-bgra, yuyv-mirror-yuv420p, motion-detect, mosaic-hstack, mosaic-grid, ring or transcode; memcpy is always shown); repeatable.", valueName: "NAME"))
  var filter: [String] = []

  @Option(name: .long, help: ArgumentHelp("Where the frames come from: hot (one frame, in the cache), cold (a pool larger than the last-level cache), or hot,cold.", valueName: "LIST"))
  var frames: String = "hot,cold"

  @Option(name: .long, help: ArgumentHelp("The cold pool's size in MB (default: twice the last-level cache).", valueName: "MB"))
  var poolMb: Int?

  @Flag(name: .long, help: "Print JSON instead of a table.")
  var json = false

  func validate() throws {
    guard seconds.isFinite, seconds > 0, seconds <= 60 else {
      throw ValidationError("--seconds must be more than 0 and at most 60, got \(seconds)")
    }
    for spec in size { _ = try parseSize(spec) }
    _ = try sources()
    if let poolMb, poolMb < 1 || poolMb > 1 << 20 {
      throw ValidationError("--pool-mb must be from 1 to 1048576, got \(poolMb)")
    }
    let known = FilterRegistry.builtin.filters.map { $0.name } + BenchCase.pipelineNames + [TranscodeBenchmark.name]
    for name in filter where !known.contains(name) {
      throw ValidationError("unknown filter '\(name)' for --filter (known: \(known.joined(separator: ", ")))")
    }
  }

  func run() throws {
    FFmpegLogging.configure(verbose: false)
    let sizes = try size.isEmpty ? BenchCase.defaultSizes : size.map(parseSize)
    let selected = filter.isEmpty ? nil : Set(filter)
    let cases = BenchCase.filterCases(sizes: sizes, filters: selected) + BenchCase.pipelineCases(sizes: sizes, names: selected)
    let runner = BenchRunner(
      secondsPerCase: seconds, sources: try sources(), poolBytes: poolMb.map { $0 << 20 } ?? BenchFrames.defaultPoolBytes)
    // The end-to-end row, once, at the largest size: about 4 s of video per second asked.
    let largest = sizes.max { $0.pixelCount < $1.pixelCount }!
    let transcode = selected.map { $0.contains(TranscodeBenchmark.name) } ?? true
      ? TranscodeBenchmark(size: largest, frames: max(30, Int((seconds * 120).rounded()))) : nil
    if json {
      var results = try runner.run(cases)
      if let transcode { results.append(try transcode.run()) }
      print(results.json(secondsPerCase: seconds), terminator: "")
    } else {
      print("camfx bench: one core, \(seconds) s per row, frames/s from the fastest batch"
        + (runner.sources.contains(.cold) ? "; cold frames from a pool of \(runner.poolBytes >> 20) MB" : ""))
      var printedHeader = false
      let nameWidth = max(18, cases.map(\.name.count).max() ?? 0)
      // Print rows as they finish, so a long run shows progress.
      func printRow(_ result: BenchResult) {
        let lines = [result].table(nameWidth: nameWidth).split(separator: "\n")
        if !printedHeader { print(lines[0]); printedHeader = true }
        print(lines[1])
      }
      _ = try runner.run(cases, progress: printRow)
      if let transcode {
        printRow(try transcode.run())
        print("transcode: \(transcode.frames) frames of a \(largest) H.264 clip through \(transcode.filters) to H.264 "
          + "(veryfast, CRF 23), the whole pipeline on every core")
      }
    }
  }

  private func sources() throws -> [BenchFrames] {
    let names = frames.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    var sources: [BenchFrames] = []
    for name in names {
      guard let source = BenchFrames(rawValue: name) else {
        throw ValidationError("--frames: '\(name)' is not hot or cold (e.g. --frames hot,cold)")
      }
      if !sources.contains(source) { sources.append(source) }
    }
    return sources
  }

  private func parseSize(_ text: String) throws -> FrameGeometry {
    do {
      return try FrameGeometry(parsing: text)
    } catch let error as GeometryError {
      throw ValidationError("--size: \(error)")
    }
  }
}
