import BenchSupport

/// The comparison as Markdown (for the README) and as JSON (for machines).
struct Report: Codable {
  let date: String
  let rounds: Int
  let budgetMilliseconds: Int
  let measurements: [Measurement]
  /// Which kernels the build holds, and the CPU (absent in older reports).
  var build: String?
  var cpu: String?
  /// memcpy's bytes read plus written a nanosecond, from memory to memory.
  var copyBytesPerNanosecond: Double?
  var poolBytes: Int?

  func figure(_ operation: String, _ size: String, _ library: Library, cold: Bool = false) -> Measurement? {
    measurements.first { $0.operation == operation && $0.size == size && $0.library == library && $0.isCold == cold }
  }

  func ratio(_ operation: String, _ size: String, over peer: Library, cold: Bool = false) -> Double? {
    guard let c = figure(operation, size, .camfx, cold: cold), let p = figure(operation, size, peer, cold: cold) else {
      return nil
    }
    return p.nanosecondsPerFrame / c.nanosecondsPerFrame
  }

  /// The ratio in camfx's worst round: the least of the peer's time over camfx's in the
  /// same round (rounds are interleaved, so round k of each ran side by side).
  func worstRoundRatio(_ operation: String, _ size: String, over peer: Library, cold: Bool = false) -> Double? {
    guard let c = figure(operation, size, .camfx, cold: cold), let p = figure(operation, size, peer, cold: cold) else {
      return nil
    }
    return zip(p.rounds, c.rounds).map { $0 / $1 }.min()
  }

  /// Frames a second that memory allows for `operation` at `size`: hot, the reference
  /// contender's (reading the source and writing the destination); cold, the copy
  /// bandwidth over the operation's bytes moved.
  func ceilingFramesPerSecond(_ operation: String, _ size: String, cold: Bool) -> Double? {
    if !cold { return figure(operation, size, .reference).map(\.framesPerSecond) }
    guard let bandwidth = copyBytesPerNanosecond,
      let bytes = measurements.first(where: { $0.operation == operation && $0.size == size })?.bytesMoved
    else { return nil }
    return bandwidth * 1e9 / Double(bytes)
  }

  var temperatures: [Bool] {
    var seen: [Bool] = []
    for m in measurements where !seen.contains(m.isCold) { seen.append(m.isCold) }
    return seen
  }

  var sizes: [String] {
    var seen: [String] = []
    for m in measurements where !seen.contains(m.size) { seen.append(m.size) }
    return seen
  }

  var operations: [String] {
    var seen: [String] = []
    for m in measurements where m.library != .reference && !seen.contains(m.operation) { seen.append(m.operation) }
    return seen
  }

  func markdown() -> String {
    var lines: [String] = []
    lines.append("Frames per second on one core, best of \(rounds) interleaved rounds of \(budgetMilliseconds) ms")
    lines.append("per contender (camfx, libyuv, FFmpeg, camfx, ...), same frames, one process; \(date).")
    if let cpu, let build { lines.append("CPU: \(cpu); camfx built with \(build).") }
    lines.append("Ratios are camfx ÷ peer (above 1: camfx is faster): from the best rounds, and in brackets")
    lines.append("camfx's worst round against the peer's round beside it. FFmpeg is libavfilter for the filters")
    lines.append("and libswscale for the conversions and scales.")
    lines.append("")
    lines.append("Frames: hot is one frame over and over (it stays in the cache); cold takes frames in turn")
    lines.append("from a pool" + (poolBytes.map { " of \($0 >> 20) MB a contender (twice the last-level cache)" } ?? "")
      + ", as a pipeline's come from memory.")
    lines.append("The last column is what memory allows: hot, reading the whole source once and writing the")
    lines.append("whole destination once in the cache (the scales); cold, the bytes the operation must move")
    lines.append("over memcpy's bandwidth from memory"
      + (copyBytesPerNanosecond.map { " (\(Int(($0 * 1000).rounded())) MB/s read + written)" } ?? "") + ".")
    lines.append("")
    lines.append("| operation | size | frames | camfx fps | libyuv fps | FFmpeg fps | camfx ÷ libyuv | camfx ÷ FFmpeg | memory allows fps |")
    lines.append("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for size in sizes {
      for op in operations {
        for cold in temperatures {
          let c = figure(op, size, .camfx, cold: cold), y = figure(op, size, .libyuv, cold: cold)
          let f = figure(op, size, .ffmpeg, cold: cold)
          guard c != nil || y != nil || f != nil else { continue }
          let ceiling = ceilingFramesPerSecond(op, size, cold: cold)
          lines.append(
            "| \(op) | \(size) | \(cold ? "cold" : "hot") | \(fps(c)) | \(fps(y)) | \(fps(f)) | "
              + "\(ratioPair(op, size, .libyuv, cold)) | \(ratioPair(op, size, .ffmpeg, cold)) | \(fps(ceiling)) |")
        }
      }
    }
    lines.append("")
    lines.append("Reference points (same run): " + sizes.compactMap { size -> String? in
      let refs = measurements.filter { $0.size == size && $0.library == .reference && $0.operation == "memory" }
      guard !refs.isEmpty else { return nil }
      return "\(size): " + refs.map { "\($0.detail.split(separator: " ").first!) \(Int($0.framesPerSecond.rounded())) fps" }
        .joined(separator: ", ")
    }.joined(separator: "; ") + ".")
    let marks = sizes.compactMap { size -> String? in
      guard let c = figure("watermark", size, .camfx), let y = figure("watermark", size, .libyuv) else { return nil }
      return "\(size) camfx \(micro(c)) vs ARGBBlend \(micro(y))"
    }
    if !marks.isEmpty { lines.append("Watermark (256×64 mark) time per frame: " + marks.joined(separator: "; ") + ".") }
    let losers = losingRows()
    if !losers.isEmpty {
      lines.append("")
      lines.append("Behind a peer in its worst round: " + losers.joined(separator: "; ") + ".")
    }
    lines.append("")
    lines.append("Targets at 1920x1080 (hot frames):")
    lines.append("")
    lines.append("| target | measured | met |")
    lines.append("|---|---:|---|")
    for t in Target.all {
      let r = ratio(t.operation, "1920x1080", over: t.peer)
      let met = r.map { $0 >= t.minimumRatio ? "yes" : "**no**" } ?? "not measured"
      lines.append("| \(t.operation): \(t.text) | \(ratioText(r)) | \(met) |")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Every row where camfx's worst round is behind a peer: "rotate-90-i420 1920x1080
  /// cold: 0.91× libyuv".
  func losingRows() -> [String] {
    var rows: [String] = []
    for size in sizes {
      for op in operations {
        for cold in temperatures {
          for peer in [Library.libyuv, .ffmpeg] {
            guard let r = worstRoundRatio(op, size, over: peer, cold: cold), r < 1 else { continue }
            rows.append("\(op) \(size) \(cold ? "cold" : "hot"): \(ratioText(r)) \(peer == .libyuv ? "libyuv" : "FFmpeg")")
          }
        }
      }
    }
    return rows
  }

  private func ratioPair(_ op: String, _ size: String, _ peer: Library, _ cold: Bool) -> String {
    guard let best = ratio(op, size, over: peer, cold: cold) else { return "—" }
    let worst = worstRoundRatio(op, size, over: peer, cold: cold)
    return "\(ratioText(best)) (\(ratioText(worst)))"
  }

  private func fps(_ v: Double?) -> String {
    guard let v else { return "—" }
    return v >= 100_000 ? "\(Int((v / 1000).rounded()))k" : "\(Int(v.rounded()))"
  }

  private func fps(_ m: Measurement?) -> String { fps(m?.framesPerSecond) }

  private func micro(_ m: Measurement) -> String {
    let us = m.nanosecondsPerFrame / 1000
    return us < 10 ? "\((us * 10).rounded() / 10) µs" : "\(Int(us.rounded())) µs"
  }

  private func ratioText(_ r: Double?) -> String {
    guard let r else { return "—" }
    return r >= 100 ? "\(Int(r.rounded()))×" : "\((r * 100).rounded() / 100)×"
  }
}
