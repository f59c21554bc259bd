import BenchSupport

/// The comparison as Markdown (for the README) and as JSON (for machines).
struct Report: Codable {
  let date: String
  let rounds: Int
  let budgetMilliseconds: Int
  let measurements: [Measurement]

  func figure(_ operation: String, _ size: String, _ library: Library) -> Measurement? {
    measurements.first { $0.operation == operation && $0.size == size && $0.library == library }
  }

  func ratio(_ operation: String, _ size: String, over peer: Library) -> Double? {
    guard let c = figure(operation, size, .camfx), let p = figure(operation, size, peer) else { return nil }
    return p.nanosecondsPerFrame / c.nanosecondsPerFrame
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
    lines.append("Ratios are camfx ÷ peer (above 1: camfx is faster). FFmpeg is libavfilter for the filters")
    lines.append("and libswscale for the conversions.")
    lines.append("")
    lines.append("The last column is the operation's own memory ceiling where it has one: reading the")
    lines.append("whole source once and writing the whole destination once (the scales).")
    lines.append("")
    lines.append("| operation | size | camfx fps | libyuv fps | FFmpeg fps | camfx ÷ libyuv | camfx ÷ FFmpeg | read + write fps |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|")
    for size in sizes {
      for op in operations {
        let c = figure(op, size, .camfx), y = figure(op, size, .libyuv), f = figure(op, size, .ffmpeg)
        guard c != nil || y != nil || f != nil else { continue }
        let ceiling = figure(op, size, .reference)
        lines.append(
          "| \(op) | \(size) | \(fps(c)) | \(fps(y)) | \(fps(f)) | \(ratioText(ratio(op, size, over: .libyuv))) | \(ratioText(ratio(op, size, over: .ffmpeg))) | \(fps(ceiling)) |")
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
    lines.append("")
    lines.append("Targets of issue 5 at 1920x1080:")
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

  private func fps(_ m: Measurement?) -> String {
    guard let m else { return "—" }
    let v = m.framesPerSecond
    return v >= 100_000 ? "\(Int((v / 1000).rounded()))k" : "\(Int(v.rounded()))"
  }

  private func micro(_ m: Measurement) -> String {
    let us = m.nanosecondsPerFrame / 1000
    return us < 10 ? "\((us * 10).rounded() / 10) µs" : "\(Int(us.rounded())) µs"
  }

  private func ratioText(_ r: Double?) -> String {
    guard let r else { return "—" }
    return r >= 100 ? "\(Int(r.rounded()))×" : "\((r * 100).rounded() / 100)×"
  }
}
