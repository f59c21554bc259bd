#if canImport(Glibc)
import Glibc
#endif
import BenchSupport
import Camfx

/// A horizontal bar chart of frames per second (log scale) for camfx, libyuv and FFmpeg
/// per operation at one size, drawn into a `PixelBuffer` (written with camfx's PNG writer).
enum Chart {
  static let background = BGRA(r: 255, g: 255, b: 255)
  static let ink = BGRA(r: 30, g: 30, b: 30)
  static let grid = BGRA(r: 215, g: 215, b: 215)
  static let memoryLine = BGRA(r: 200, g: 30, b: 30)
  static let colors: [Library: BGRA] = [
    .camfx: BGRA(r: 235, g: 120, b: 20), .libyuv: BGRA(r: 40, g: 110, b: 200), .ffmpeg: BGRA(r: 80, g: 150, b: 80),
  ]
  static let names: [Library: String] = [.camfx: "camfx", .libyuv: "libyuv", .ffmpeg: "FFmpeg"]

  static func render(_ report: Report, size: String) -> PixelBuffer {
    let libraries: [Library] = [.camfx, .libyuv, .ffmpeg]
    let operations = report.operations
    let width = 1600, left = 300, right = 330
    let barHeight = 20, barGap = 4, groupGap = 26, top = 170
    let groupHeight = libraries.count * barHeight + (libraries.count - 1) * barGap
    let plotHeight = operations.count * (groupHeight + groupGap)
    let height = top + plotHeight + 110
    let frame = PixelBuffer(width: width, height: height)
    frame.fill(background)

    // Axis: 10 fps ... 10^7 fps, log scale.
    let minDecade = 1.0, maxDecade = 7.0
    let plotWidth = width - left - right
    func xFor(_ fps: Double) -> Int {
      let d = min(max(log10(max(fps, 1)), minDecade), maxDecade)
      return left + Int((d - minDecade) / (maxDecade - minDecade) * Double(plotWidth))
    }

    BitmapFont.draw("camfx vs libyuv vs FFmpeg: \(size) BGRA, one core", on: frame, x: 30, y: 24, scale: 4, color: ink)
    BitmapFont.draw(
      "frames per second, log scale. best of \(report.rounds) interleaved rounds in one process. longer is faster.",
      on: frame, x: 30, y: 72, scale: 2, color: ink)
    var lx = 30
    for lib in libraries {
      Canvas.fill(frame, x: lx, y: 110, width: 28, height: 18, color: colors[lib]!)
      BitmapFont.draw(names[lib]!, on: frame, x: lx + 38, y: 112, scale: 2, color: ink)
      lx += 38 + BitmapFont.width(of: names[lib]!, scale: 2) + 40
    }
    Canvas.fill(frame, x: lx, y: 108, width: 3, height: 22, color: memoryLine)
    BitmapFont.draw("memcpy of one frame", on: frame, x: lx + 12, y: 112, scale: 2, color: ink)

    // Decade grid lines and labels.
    let labels = ["10", "100", "1k", "10k", "100k", "1M", "10M"]
    for (i, label) in labels.enumerated() {
      let x = xFor(pow(10, minDecade + Double(i)))
      Canvas.fill(frame, x: x, y: top - 10, width: 1, height: plotHeight + 10, color: grid)
      BitmapFont.draw(label, on: frame, x: x - BitmapFont.width(of: label, scale: 2) / 2, y: top + plotHeight + 8, scale: 2, color: ink)
    }
    BitmapFont.draw("frames per second", on: frame, x: left + plotWidth / 2 - 100, y: top + plotHeight + 36, scale: 2, color: ink)

    if let memcpy = report.measurements.first(where: { $0.size == size && $0.detail == "memcpy" }) {
      let x = xFor(memcpy.framesPerSecond)
      var y = top - 10
      while y < top + plotHeight {  // dashed
        Canvas.fill(frame, x: x, y: y, width: 3, height: 8, color: memoryLine)
        y += 14
      }
    }
    for (g, op) in operations.enumerated() {
      let y0 = top + g * (groupHeight + groupGap)
      let label = op.replacingOccurrences(of: "-to-", with: " > ")
      BitmapFont.draw(label, on: frame, x: left - 16 - BitmapFont.width(of: label, scale: 2), y: y0 + groupHeight / 2 - 7, scale: 2, color: ink)
      for (b, lib) in libraries.enumerated() {
        let y = y0 + b * (barHeight + barGap)
        guard let m = report.figure(op, size, lib) else {
          let text = "\(names[lib]!): not on main yet"
          Canvas.fill(frame, x: left + 4, y: y, width: BitmapFont.width(of: text, scale: 2) + 8, height: barHeight, color: background)
          BitmapFont.draw(text, on: frame, x: left + 8, y: y + 3, scale: 2, color: BGRA(r: 150, g: 150, b: 150))
          continue
        }
        let x1 = xFor(m.framesPerSecond)
        Canvas.fill(frame, x: left, y: y, width: max(2, x1 - left), height: barHeight, color: colors[lib]!)
        var text = fpsText(m.framesPerSecond)
        if lib == .camfx, op == "crop" { text += " (a view)" }
        if lib == .camfx, let r = report.ratio(op, size, over: .libyuv) {
          text += "  " + (r >= 100 ? "\(Int(r.rounded()))" : "\((r * 100).rounded() / 100)") + "x libyuv"
        }
        let textWidth = BitmapFont.width(of: text, scale: 2)
        if x1 + 8 + textWidth > width - 10 {
          // No room right of the bar: write inside its end, in white.
          BitmapFont.draw(text, on: frame, x: x1 - 8 - textWidth, y: y + 3, scale: 2, color: background)
        } else {
          Canvas.fill(frame, x: x1 + 4, y: y, width: textWidth + 8, height: barHeight, color: background)
          BitmapFont.draw(text, on: frame, x: x1 + 8, y: y + 3, scale: 2, color: ink)
        }
      }
    }
    Canvas.fill(frame, x: left, y: top - 10, width: 2, height: plotHeight + 10, color: ink)
    BitmapFont.draw(
      "FFmpeg = libavfilter (hflip, format=gray, crop, overlay) or libswscale (conversions). \(report.date)",
      on: frame, x: 30, y: top + plotHeight + 70, scale: 2, color: ink)
    return frame
  }

  static func fpsText(_ v: Double) -> String {
    if v >= 1_000_000 { return "\((v / 100_000).rounded() / 10)M fps" }
    if v >= 10_000 { return "\(Int((v / 1000).rounded()))k fps" }
    return "\(Int(v.rounded())) fps"
  }
}
