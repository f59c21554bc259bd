import CamfxCore

#if canImport(Glibc)
import Glibc
#endif

/// Finds motion in a stream of pictures: the luma plane, reduced to about 160 pixels
/// across, against a slowly adapting background.
///
///     let detector = try MotionDetector(width: 1920, height: 1080, options: .init())
///     let result = detector.analyze(picture, at: seconds)   // per frame, in order
///     if let began = result.began { … }                      // motion began then
///
/// Per frame:
/// 1. Each reduced pixel is the mean of a square of the frame's (1080p: 12×12), which
///    also divides the sensor's noise.
/// 2. The difference from the background, less its median over the picture: a light
///    that dims slowly, or an exposure step, moves every pixel alike and is taken out.
/// 3. A pixel changed when that difference passes the threshold: given, or five times
///    the noise measured from the differences' median absolute deviation (at least 6
///    levels), so a noisier camera needs a larger change.
/// 4. A zone (the whole watched picture when there are none) changed when at least its
///    `area` percent of it did; `frames` changed frames in a row make motion, which
///    began at the first of them and ends at the first unchanged frame.
/// 5. When more than `lightSwitch` percent of the picture changed at once, with or
///    without its brightness change taken out (a light switched on, an IR filter), the
///    background is learned again and nothing fires.
/// 6. The background follows the picture with a time constant of 2 s, and 30 s where it
///    changed, so that a thing that stops becomes background in time.
///
/// The first second only learns. Not thread-safe: one caller, frames in order. Nothing is
/// allocated per frame but the result's boxes.
public final class MotionDetector {
  public struct Options: Sendable, Equatable {
    /// Luma levels a pixel must change by; nil: from the measured noise.
    public var threshold: Int?
    /// Percent of the watched picture (or of a zone) that must change.
    public var area: Double
    /// Changed frames in a row that make motion.
    public var frames: Int
    /// Percent of the picture that, changing at once, is a light switch, not motion.
    public var lightSwitch: Double
    /// Where motion counts: white in the mask (black is ignored), outside `ignore`.
    public var mask: MotionMask?
    public var ignore: [MotionPolygon]
    /// Named zones with rules of their own; with zones, only motion inside them counts.
    public var zones: [MotionZone]
    /// About how many pixels across the detector works on.
    public var analysisWidth: Int

    public init(
      threshold: Int? = nil, area: Double = 0.5, frames: Int = 2, lightSwitch: Double = 60, mask: MotionMask? = nil,
      ignore: [MotionPolygon] = [], zones: [MotionZone] = [], analysisWidth: Int = 160
    ) {
      self.threshold = threshold
      self.area = area
      self.frames = frames
      self.lightSwitch = lightSwitch
      self.mask = mask
      self.ignore = ignore
      self.zones = zones
      self.analysisWidth = analysisWidth
    }

    /// `2%` or `2` → 2, within `range`.
    public static func percent(_ text: String, option: String, range: ClosedRange<Double>) throws(MotionOptionError)
      -> Double
    {
      let number = text.hasSuffix("%") ? String(text.dropLast()) : text
      guard let value = Double(number), value.isFinite, range.contains(value) else {
        throw MotionOptionError(
          "\(option) '\(text)' must be a percentage from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
      }
      return value
    }

    /// A luma difference, 1 to 255.
    public static func level(_ text: String, option: String) throws(MotionOptionError) -> Int {
      guard let value = Int(text), (1...255).contains(value) else {
        throw MotionOptionError("\(option) '\(text)' must be a whole number of luma levels from 1 to 255")
      }
      return value
    }

    private static func format(_ value: Double) -> String {
      value == value.rounded() ? String(Int(value)) : String(value)
    }
  }

  public let options: Options
  public let width: Int
  public let height: Int
  /// The reduced picture: `columns`×`rows` squares of `factor`×`factor` pixels.
  public let factor: Int
  public let columns: Int
  public let rows: Int

  private struct Zone {
    let name: String
    let area: Double
    let threshold: Int?
    let watched: Int
  }
  private let zones: [Zone]
  private static let unwatched: UInt8 = 255
  private let watchedTotal: Int

  // The detector's own memory, allocated once in `init` and freed in `deinit`: the
  // per-pixel loops use it through these pointers, with no copy-on-write or
  // exclusivity checks per access.
  /// The zone of each reduced pixel, or `unwatched`.
  private let zoneOf: UnsafeMutableBufferPointer<UInt8>
  private let background: UnsafeMutableBufferPointer<Float>
  private let current: UnsafeMutableBufferPointer<Float>
  private let changedMask: UnsafeMutableBufferPointer<UInt8>
  /// One frame row's worth of column sums (at most 257 rows of 255 fit in 16 bits).
  private let lineSums: UnsafeMutableBufferPointer<UInt16>
  private let offsetHistogram: UnsafeMutableBufferPointer<Int32>
  private let spreadHistogram: UnsafeMutableBufferPointer<Int32>
  private let changedPerZone: UnsafeMutableBufferPointer<Int>
  private let thresholds: UnsafeMutableBufferPointer<Float>
  private let labels: UnsafeMutableBufferPointer<Int32>
  private let stack: UnsafeMutableBufferPointer<Int32>

  private var frameCount = 0
  private var firstTime = 0.0
  private var lastTime = 0.0
  private var noise = 0.0
  private var runLength = 0
  private var runStart = 0.0
  private var moving = false

  /// - Throws: `MotionOptionError` when an option is out of range, the mask is not the
  ///   frame's size, a polygon leaves the frame, or a zone watches nothing.
  public init(width: Int, height: Int, options: Options) throws(MotionOptionError) {
    guard width >= 16, height >= 16 else {
      throw MotionOptionError("motion detection needs a picture of at least 16x16, not \(width)x\(height)")
    }
    if let threshold = options.threshold, !(1...255).contains(threshold) {
      throw MotionOptionError("--motion-threshold '\(threshold)' must be a whole number of luma levels from 1 to 255")
    }
    guard options.area > 0, options.area <= 100 else {
      throw MotionOptionError("--motion-area '\(options.area)' must be a percentage from 0.01 to 100")
    }
    guard (1...300).contains(options.frames) else {
      throw MotionOptionError("--motion-frames '\(options.frames)' must be from 1 to 300")
    }
    guard options.lightSwitch > 0, options.lightSwitch <= 100 else {
      throw MotionOptionError("--motion-light-switch '\(options.lightSwitch)' must be a percentage from 1 to 100")
    }
    if let mask = options.mask, mask.width != width || mask.height != height {
      throw MotionOptionError(
        "the mask '\(mask.path)' is \(mask.width)x\(mask.height), the picture \(width)x\(height): make them the same size")
    }
    for polygon in options.ignore {
      if let point = polygon.pointOutside(width: width, height: height) {
        throw MotionOptionError(
          "--motion-ignore: the point \(Self.format(point)) is outside the \(width)x\(height) picture")
      }
    }
    var names = Set<String>()
    for zone in options.zones {
      guard names.insert(zone.name).inserted else { throw MotionOptionError("two zones are named '\(zone.name)'") }
      if let point = zone.polygon.pointOutside(width: width, height: height) {
        throw MotionOptionError(
          "zone '\(zone.name)': the point \(Self.format(point)) is outside the \(width)x\(height) picture")
      }
    }
    guard options.zones.count < Int(Self.unwatched) else { throw MotionOptionError("at most 254 zones") }
    // A square's column sums are 16 bits: at most 257 rows of 255.
    guard (16...4096).contains(options.analysisWidth), (width + options.analysisWidth - 1) / options.analysisWidth <= 257
    else {
      throw MotionOptionError("the analysis width \(options.analysisWidth) does not fit a \(width)-pixel picture")
    }
    guard height >= (width + options.analysisWidth - 1) / options.analysisWidth else {
      throw MotionOptionError("a \(width)x\(height) picture is too flat for motion detection")
    }
    self.options = options
    self.width = width
    self.height = height
    factor = max(1, (width + options.analysisWidth - 1) / options.analysisWidth)
    columns = width / factor
    rows = height / factor
    let count = columns * rows

    var zoneOf = [UInt8](repeating: Self.unwatched, count: count)
    for row in 0..<rows {
      for column in 0..<columns {
        let x = Double(column * factor) + Double(factor) / 2, y = Double(row * factor) + Double(factor) / 2
        if let mask = options.mask, mask.pixels[Int(y) * width + Int(x)] < 128 { continue }
        if options.ignore.contains(where: { $0.contains(x: x, y: y) }) { continue }
        if options.zones.isEmpty {
          zoneOf[row * columns + column] = 0
        } else if let index = options.zones.firstIndex(where: { $0.polygon.contains(x: x, y: y) }) {
          zoneOf[row * columns + column] = UInt8(index)
        }
      }
    }
    var watched = [Int](repeating: 0, count: max(1, options.zones.count))
    for zone in zoneOf where zone != Self.unwatched { watched[Int(zone)] += 1 }
    if options.zones.isEmpty {
      guard watched[0] > 0 else {
        throw MotionOptionError("the mask and --motion-ignore leave nothing of the picture to watch")
      }
      zones = [Zone(name: "frame", area: options.area, threshold: options.threshold, watched: watched[0])]
    } else {
      var made: [Zone] = []
      for (index, zone) in options.zones.enumerated() {
        guard watched[index] > 0 else {
          throw MotionOptionError(
            "zone '\(zone.name)' covers no watched part of the picture (it must hold the centre of a \(factor)x\(factor) square)")
        }
        made.append(Zone(
          name: zone.name, area: zone.area ?? options.area, threshold: zone.threshold ?? options.threshold,
          watched: watched[index]))
      }
      zones = made
    }
    watchedTotal = watched.reduce(0, +)
    func allocate<T>(_ count: Int, _ value: T) -> UnsafeMutableBufferPointer<T> {
      let memory = UnsafeMutableBufferPointer<T>.allocate(capacity: count)
      memory.initialize(repeating: value)
      return memory
    }
    self.zoneOf = allocate(count, 0)
    _ = self.zoneOf.update(fromContentsOf: zoneOf)
    background = allocate(count, 0)
    current = allocate(count, 0)
    changedMask = allocate(count, 0)
    lineSums = allocate(columns * factor, 0)
    offsetHistogram = allocate(Self.offsetBins, 0)
    spreadHistogram = allocate(Self.spreadBins, 0)
    changedPerZone = allocate(zones.count, 0)
    thresholds = allocate(zones.count, 0)
    labels = allocate(count, 0)
    stack = allocate(count, 0)
  }

  deinit {
    for memory in [zoneOf, changedMask] as [UnsafeMutableBufferPointer<UInt8>] { memory.deallocate() }
    background.deallocate()
    current.deallocate()
    lineSums.deallocate()
    offsetHistogram.deallocate()
    spreadHistogram.deallocate()
    changedPerZone.deallocate()
    thresholds.deallocate()
    labels.deallocate()
    stack.deallocate()
  }

  /// Differences from −256 to 256 in steps of 1/2 level; spreads from 0 to 64 in 1/8.
  private static let offsetBins = 1024
  private static let spreadBins = 512

  /// Looks at the next frame (`time` in seconds, increasing).
  public func analyze(_ picture: LumaPicture, at time: Double) -> MotionFrame {
    precondition(picture.width == width && picture.height == height, "the detector was made for \(width)x\(height)")
    reduce(picture)
    var result = MotionFrame(time: time)
    let count = columns * rows
    let dt = frameCount == 0 ? 1.0 / 30 : min(1, max(0.001, time - lastTime))
    if frameCount == 0 {
      firstTime = time
      _ = background.update(fromContentsOf: current)
    }
    frameCount += 1
    lastTime = time
    let learning = time - firstTime < 1.0

    // The picture's brightness change (the median difference) and its noise (the
    // median absolute deviation of the rest).
    let offset = Self.median(of: offsetHistogram, total: watchedTotal) { hist in
      for i in 0..<count where zoneOf[i] != Self.unwatched {
        let bin = Int((current[i] - background[i] + 256) * 2)
        hist[min(Self.offsetBins - 1, max(0, bin))] += 1
      }
    } / 2 - 256
    let spread = Self.median(of: spreadHistogram, total: watchedTotal) { hist in
      for i in 0..<count where zoneOf[i] != Self.unwatched {
        let bin = Int(abs(current[i] - background[i] - Float(offset)) * 8)
        hist[min(Self.spreadBins - 1, bin)] += 1
      }
    } / 8
    let frameNoise = 1.4826 * spread
    noise = frameCount <= 2 ? frameNoise : noise * 0.95 + frameNoise * 0.05
    let automatic = max(6, 5 * noise)
    result.noise = noise
    result.brightness = offset

    // Which pixels changed, per zone.
    for z in 0..<zones.count { changedPerZone[z] = 0 }
    var changedTotal = 0
    // Pixels that changed before the brightness is taken out: when most did, and most
    // by different amounts (a lamp that lights part of the room), no median can take
    // it out and the picture is learned again.
    var changedUncompensated = 0
    for (index, zone) in zones.enumerated() { thresholds[index] = Float(zone.threshold.map(Double.init) ?? automatic) }
    for i in 0..<count {
      let zone = zoneOf[i]
      guard zone != Self.unwatched else {
        changedMask[i] = 0
        continue
      }
      let difference = current[i] - background[i]
      let changed = abs(difference - Float(offset)) > thresholds[Int(zone)]
      if abs(difference) > thresholds[Int(zone)] { changedUncompensated += 1 }
      changedMask[i] = changed ? 1 : 0
      if changed {
        changedPerZone[Int(zone)] += 1
        changedTotal += 1
      }
    }
    // The zone closest to its rule gives the score.
    var best = 0
    var bestRatio = -1.0
    for (index, zone) in zones.enumerated() {
      let ratio = Double(changedPerZone[index]) * 100 / Double(zone.watched) / zone.area
      if ratio > bestRatio {
        bestRatio = ratio
        best = index
      }
    }
    result.zone = zones[best].name
    result.threshold = zones[best].area
    result.pixelThreshold = Double(thresholds[best])
    result.score = Double(changedPerZone[best]) * 100 / Double(zones[best].watched)

    let switched =
      Double(max(changedTotal, changedUncompensated)) * 100 / Double(watchedTotal) >= options.lightSwitch
    if switched && !learning {
      // Learn the picture again: this is light, not motion.
      result.lightSwitch = true
      _ = background.update(fromContentsOf: current)
      endRun(&result)
      return result
    }
    result.changed = !learning && bestRatio >= 1
    if result.changed {
      runLength += 1
      if runLength == 1 { runStart = time }
      if runLength >= options.frames && !moving {
        moving = true
        result.began = runStart
      }
      result.boxes = boxes()
    } else {
      endRun(&result)
    }
    result.moving = moving

    // The background follows: fast where nothing changed, slowly where something did.
    let fast = Float(learning ? max(1 - exp(-dt / 2), 1 / Double(frameCount)) : 1 - exp(-dt / 2))
    let slow = Float(1 - exp(-dt / 30))
    for i in 0..<count {
      let rate = changedMask[i] == 0 ? fast : slow
      background[i] += rate * (current[i] - background[i])
    }
    return result
  }

  private func endRun(_ result: inout MotionFrame) {
    runLength = 0
    if moving {
      moving = false
      result.ended = result.time
    }
    result.moving = false
  }

  /// The mean of each `factor`×`factor` square into `current`.
  private func reduce(_ picture: LumaPicture) {
    let f = factor, columns = columns
    let scale = 1 / Float(f * f)
    let used = columns * f
    for row in 0..<rows {
      // Each column of the frame summed down the square's rows (vectorizes), then the
      // squares across: f additions per pixel and one per column.
      lineSums.update(repeating: 0)
      for line in 0..<f {
        let start = picture.base + (row * f + line) * picture.bytesPerRow
        switch picture.layout {
        case .luma:
          for x in 0..<used { lineSums[x] &+= UInt16(start[x]) }
        case .bgra:
          for x in 0..<used {
            let b = UInt32(start[4 * x]), g = UInt32(start[4 * x + 1]), r = UInt32(start[4 * x + 2])
            lineSums[x] &+= UInt16(truncatingIfNeeded: (66 &* r &+ 129 &* g &+ 25 &* b &+ 128) >> 8 &+ 16)
          }
        }
      }
      for c in 0..<columns {
        var sum: UInt32 = 0
        for k in 0..<f { sum &+= UInt32(lineSums[c * f + k]) }
        current[row * columns + c] = Float(sum) * scale
      }
    }
  }

  /// The median bin (with a linear share of it) of what `fill` counts in `histogram`.
  private static func median(
    of histogram: UnsafeMutableBufferPointer<Int32>, total: Int, _ fill: (UnsafeMutableBufferPointer<Int32>) -> Void
  ) -> Double {
    let bins = histogram.count
    histogram.update(repeating: 0)
    fill(histogram)
    let half = Int32(total / 2)
    var seen: Int32 = 0
    for i in 0..<bins {
      let next = seen + histogram[i]
      if next > half { return Double(i) + Double(half - seen) / Double(histogram[i]) }
      seen = next
    }
    return Double(bins - 1)
  }

  /// The changed regions' boxes (8-connected, at least 2 cells), largest first, at most 8.
  private func boxes() -> [PixelRectangle] {
    let count = columns * rows, columns = columns
    labels.update(repeating: 0)
    var found: [(cells: Int, box: PixelRectangle)] = []
    var next: Int32 = 1
    for seed in 0..<count where changedMask[seed] != 0 && labels[seed] == 0 {
      var top = 0
      stack[top] = Int32(seed)
      top += 1
      labels[seed] = next
      var cells = 0
      var minX = Int.max, minY = Int.max, maxX = 0, maxY = 0
      while top > 0 {
        top -= 1
        let i = Int(stack[top])
        let x = i % columns, y = i / columns
        cells += 1
        minX = min(minX, x)
        maxX = max(maxX, x)
        minY = min(minY, y)
        maxY = max(maxY, y)
        for dy in -1...1 {
          let ny = y + dy
          guard ny >= 0, ny < rows else { continue }
          for dx in -1...1 {
            let nx = x + dx
            guard nx >= 0, nx < columns else { continue }
            let j = ny * columns + nx
            if changedMask[j] != 0 && labels[j] == 0 {
              labels[j] = next
              stack[top] = Int32(j)
              top += 1
            }
          }
        }
      }
      next += 1
      if cells >= 2 {
        found.append((
          cells,
          PixelRectangle(
            x: minX * factor, y: minY * factor, width: (maxX - minX + 1) * factor, height: (maxY - minY + 1) * factor)
        ))
      }
    }
    return found.sorted { $0.cells > $1.cells }.prefix(8).map(\.box)
  }

  private static func format(_ point: (x: Double, y: Double)) -> String {
    let f = { (v: Double) in v == v.rounded() ? String(Int(v)) : String(v) }
    return "\(f(point.x)),\(f(point.y))"
  }
}
