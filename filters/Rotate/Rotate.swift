import CamfxCore

/// Turns the frame clockwise by 90, 180 or 270 degrees (a quarter turn swaps width and
/// height). The names of ffmpeg's `transpose` work too: `clock` (90), `cclock` (270).
///
///     camfx snapshot --size 640x360 --filter rotate=angle=90 -o upright.png
///
/// Bit-exact: pixels only move. On decoded yuv420p pictures each plane is turned on its
/// own, which is what `ffmpeg -vf transpose=1` (90), `hflip,vflip` (180) and
/// `transpose=2` (270) do, sample for sample. Quarter turns move 4×4 blocks of pixels
/// (8×8 of samples in yuv420p planes) inside 32×32 tiles, so that reads and writes
/// both stay in the cache.
public struct Rotate: ResizingVideoFilter, YUV420VideoFilter {
  public static let name = "rotate"
  public static let summary = "Turns the frame clockwise by 90, 180 or 270 degrees."
  public static let example = "camfx snapshot --size 640x360 --filter rotate=angle=90 -o upright.png"
  public static let options: [FilterOption] = [
    FilterOption(
      "angle", .choice(["90", "180", "270", "clock", "cclock"]), required: true,
      help: "clockwise degrees; clock and cclock as ffmpeg's transpose (90 and 270)"),
  ]

  /// A clockwise turn.
  public enum Angle: Int, Sendable, CaseIterable {
    case quarter = 90, half = 180, threeQuarters = 270
  }

  public let angle: Angle
  /// The input size, known after `configure(input:)`.
  public private(set) var inputSize = FrameGeometry(width: 0, height: 0)

  public init(angle: Angle) {
    self.angle = angle
  }

  public init(options: FilterOptions) throws {
    switch options.string("angle") {
    case "90", "clock": self.init(angle: .quarter)
    case "180": self.init(angle: .half)
    default: self.init(angle: .threeQuarters)  // the table admits only 270 and cclock here
    }
  }

  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    inputSize = input
    return angle == .half ? input : FrameGeometry(width: input.height, height: input.width)
  }

  public func process(_ source: PixelBuffer, into destination: inout PixelBuffer) {
    precondition(source.geometry == inputSize, "rotate configured for \(inputSize), got \(source.geometry)")
    let sourceStride = source.bytesPerRow, destinationStride = destination.bytesPerRow
    source.withUnsafeBytes { from in
      destination.withUnsafeMutableBytes { to in
        let s = from.assumingMemoryBound(to: UInt32.self), d = to.assumingMemoryBound(to: UInt32.self)
        #if CAMFX_AVX2 && arch(x86_64)
        if angle == .half {
          Self.halfTurnPixelsAVX2(
            s, sourceStride: sourceStride / 4, width: inputSize.width, height: inputSize.height,
            into: d, destinationStride: destinationStride / 4)
        } else {
          Self.quarterTurnPixelsAVX2(
            s, sourceStride: sourceStride / 4, width: inputSize.width, height: inputSize.height,
            into: d, destinationStride: destinationStride / 4, clockwise: angle == .quarter)
        }
        #else
        if angle == .half {
          Self.halfTurn(
            s, sourceStride: sourceStride / 4, width: inputSize.width, height: inputSize.height,
            into: d, destinationStride: destinationStride / 4)
        } else {
          Self.quarterTurnPixels(
            s, sourceStride: sourceStride / 4, width: inputSize.width, height: inputSize.height,
            into: d, destinationStride: destinationStride / 4, clockwise: angle == .quarter)
        }
        #endif
      }
    }
  }

  /// A quarter turn of 32-bit pixels, 4×4 blocks at a time: four source rows are read
  /// four pixels wide and written as four destination rows (a 4×4 transpose in SIMD
  /// registers), inside 32×32 tiles; the edges that do not fill a block go one by one.
  static func quarterTurnPixels(
    _ source: UnsafePointer<UInt32>, sourceStride: Int, width: Int, height: Int,
    into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int, clockwise: Bool
  ) {
    typealias Quad = SIMD4<UInt32>
    // Destination (x, y) reads source (column, row): clockwise (y, height − 1 − x),
    // counter-clockwise (width − 1 − y, x).
    @inline(__always) func sourceRow(_ x: Int) -> Int { clockwise ? height - 1 - x : x }
    @inline(__always) func sourceColumn(_ y: Int) -> Int { clockwise ? y : width - 1 - y }
    let raw = UnsafeRawPointer(source)
    forEachBlock(width: height, height: width, size: 4) { x, y in
      // Source columns of destination rows y ..< y + 4, as a run of 4 left to right.
      let column = clockwise ? y : width - 4 - y
      let a = raw.loadUnaligned(fromByteOffset: (sourceRow(x) * sourceStride + column) * 4, as: Quad.self)
      let b = raw.loadUnaligned(fromByteOffset: (sourceRow(x + 1) * sourceStride + column) * 4, as: Quad.self)
      let c = raw.loadUnaligned(fromByteOffset: (sourceRow(x + 2) * sourceStride + column) * 4, as: Quad.self)
      let d = raw.loadUnaligned(fromByteOffset: (sourceRow(x + 3) * sourceStride + column) * 4, as: Quad.self)
      // Destination row y + k takes element k of each run (clockwise), or element
      // 3 − k (counter-clockwise: the run was read left to right).
      let out = UnsafeMutableRawPointer(destination + y * destinationStride + x)
      let rowBytes = destinationStride * 4
      let r0 = Quad(a[0], b[0], c[0], d[0]), r1 = Quad(a[1], b[1], c[1], d[1])
      let r2 = Quad(a[2], b[2], c[2], d[2]), r3 = Quad(a[3], b[3], c[3], d[3])
      out.storeBytes(of: clockwise ? r0 : r3, as: Quad.self)
      out.storeBytes(of: clockwise ? r1 : r2, toByteOffset: rowBytes, as: Quad.self)
      out.storeBytes(of: clockwise ? r2 : r1, toByteOffset: 2 * rowBytes, as: Quad.self)
      out.storeBytes(of: clockwise ? r3 : r0, toByteOffset: 3 * rowBytes, as: Quad.self)
    } edge: { x, y in
      destination[y * destinationStride + x] = source[sourceRow(x) * sourceStride + sourceColumn(y)]
    }
  }

  /// Calls `block(x, y)` for every `size` × `size` block (x, y its top-left corner) that
  /// fits in a `width` × `height` destination, walking it in 32 × 32 tiles so that the
  /// reads and the writes of a tile both stay in the cache; then `edge(x, y)` for every
  /// sample of the right and bottom edges the blocks do not cover.
  @inline(__always)
  static func forEachBlock(
    width: Int, height: Int, size: Int, block: (Int, Int) -> Void, edge: (Int, Int) -> Void
  ) {
    let blockWidth = width / size * size, blockHeight = height / size * size
    var ty = 0
    while ty < blockHeight {
      let yEnd = min(ty + tile, blockHeight)
      var tx = 0
      while tx < blockWidth {
        let xEnd = min(tx + tile, blockWidth)
        var y = ty
        while y < yEnd {
          var x = tx
          while x < xEnd {
            block(x, y)
            x += size
          }
          y += size
        }
        tx = xEnd
      }
      ty = yEnd
    }
    for y in 0..<height {
      for x in (y < blockHeight ? blockWidth : 0)..<width { edge(x, y) }
    }
  }

  public var acceptsYUV420: Bool { true }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    precondition(source.geometry == inputSize, "rotate configured for \(inputSize), got \(source.geometry)")
    for index in 0..<3 {
      let from = source.plane(index), to = destination.plane(index)
      let s = UnsafePointer(from.base)
      if angle == .half {
        #if CAMFX_AVX2 && arch(x86_64)
        Self.halfTurnBytesAVX2(
          s, sourceStride: from.stride, width: from.width, height: from.height, into: to.base,
          destinationStride: to.stride)
        #else
        Self.halfTurn(
          s, sourceStride: from.stride, width: from.width, height: from.height, into: to.base,
          destinationStride: to.stride)
        #endif
      } else {
        #if CAMFX_AVX2 && arch(x86_64)
        Self.quarterTurnBytesAVX2(
          s, sourceStride: from.stride, width: from.width, height: from.height, into: to.base,
          destinationStride: to.stride, clockwise: angle == .quarter)
        #elseif arch(x86_64)
        Self.quarterTurnBytesSSE2(
          s, sourceStride: from.stride, width: from.width, height: from.height, into: to.base,
          destinationStride: to.stride, clockwise: angle == .quarter)
        #else
        Self.quarterTurnBytes(
          s, sourceStride: from.stride, width: from.width, height: from.height, into: to.base,
          destinationStride: to.stride, clockwise: angle == .quarter)
        #endif
      }
    }
  }

  /// A quarter turn of 8-bit samples, 8×8 blocks at a time: eight source rows read as
  /// 64-bit words and transposed in three steps of masked shifts (2×2 blocks of bytes,
  /// then of 16-bit pairs, then of 32-bit quads), written as eight destination rows.
  static func quarterTurnBytes(
    _ source: UnsafePointer<UInt8>, sourceStride: Int, width: Int, height: Int,
    into destination: UnsafeMutablePointer<UInt8>, destinationStride: Int, clockwise: Bool
  ) {
    @inline(__always) func sourceRow(_ x: Int) -> Int { clockwise ? height - 1 - x : x }
    @inline(__always) func sourceColumn(_ y: Int) -> Int { clockwise ? y : width - 1 - y }
    @inline(__always) func swap(_ a: inout UInt64, _ b: inout UInt64, _ shift: UInt64, _ mask: UInt64) {
      let t = ((a >> shift) ^ b) & mask
      b ^= t
      a ^= t << shift
    }
    let raw = UnsafeRawPointer(source), out = UnsafeMutableRawPointer(destination)
    forEachBlock(width: height, height: width, size: 8) { x, y in
      let column = clockwise ? y : width - 8 - y
      @inline(__always) func load(_ k: Int) -> UInt64 {
        raw.loadUnaligned(fromByteOffset: sourceRow(x + k) * sourceStride + column, as: UInt64.self)
      }
      var r0 = load(0), r1 = load(1), r2 = load(2), r3 = load(3), r4 = load(4), r5 = load(5), r6 = load(6), r7 = load(7)
      let m1: UInt64 = 0x00FF_00FF_00FF_00FF, m2: UInt64 = 0x0000_FFFF_0000_FFFF, m4: UInt64 = 0x0000_0000_FFFF_FFFF
      swap(&r0, &r1, 8, m1); swap(&r2, &r3, 8, m1); swap(&r4, &r5, 8, m1); swap(&r6, &r7, 8, m1)
      swap(&r0, &r2, 16, m2); swap(&r1, &r3, 16, m2); swap(&r4, &r6, 16, m2); swap(&r5, &r7, 16, m2)
      swap(&r0, &r4, 32, m4); swap(&r1, &r5, 32, m4); swap(&r2, &r6, 32, m4); swap(&r3, &r7, 32, m4)
      // Row k of the transpose is destination row y + k (clockwise) or y + 7 − k.
      let base = y * destinationStride + x
      @inline(__always) func store(_ word: UInt64, _ k: Int) {
        out.storeBytes(of: word, toByteOffset: base + (clockwise ? k : 7 - k) * destinationStride, as: UInt64.self)
      }
      store(r0, 0); store(r1, 1); store(r2, 2); store(r3, 3)
      store(r4, 4); store(r5, 5); store(r6, 6); store(r7, 7)
    } edge: { x, y in
      destination[y * destinationStride + x] = source[sourceRow(x) * sourceStride + sourceColumn(y)]
    }
  }

  static let tile = 32

  /// Which way `forEachStrip` walks a destination.
  enum StripOrder {
    /// x steps `across` (a strip of source rows), and y walks the strip `along` at a
    /// time (along the source rows, which are then read as sequential streams).
    case sourceRows
    /// y steps `along` (a strip of destination rows), and x walks the strip `across` at
    /// a time (each destination row of the strip is written from front to back).
    case destinationRows
  }

  /// Calls `block(x, y)` for `across` × `along` blocks (x, y their top-left corner) of a
  /// `width` × `height` destination, strip by strip in `order`. Where a size is not a
  /// multiple of the block, the last block of each strip or the last strip overlaps the
  /// one before (it writes the same values again); `edge(x, y)` only covers a
  /// destination smaller than a block.
  @inline(__always)
  static func forEachStrip(
    width: Int, height: Int, across: Int, along: Int, order: StripOrder = .sourceRows, block: (Int, Int) -> Void,
    edge: (Int, Int) -> Void
  ) {
    guard width >= across, height >= along else {
      for y in 0..<height { for x in 0..<width { edge(x, y) } }
      return
    }
    /// Calls `body` with the start of each step of `step` along `length`, the last one
    /// overlapping the one before where `length` is not a multiple of `step`.
    @inline(__always) func forEachStart(_ length: Int, _ step: Int, _ body: (Int) -> Void) {
      var i = 0
      while true {
        body(i)
        if i + step == length { break }
        i = min(i + step, length - step)
      }
    }
    switch order {
    case .sourceRows: forEachStart(width, across) { x in forEachStart(height, along) { y in block(x, y) } }
    case .destinationRows: forEachStart(height, along) { y in forEachStart(width, across) { x in block(x, y) } }
    }
  }

  /// A half turn of a `width` × `height` grid of samples (strides in samples):
  /// `destination[y][x] = source[height − 1 − y][width − 1 − x]`.
  static func halfTurn<Sample>(
    _ source: UnsafePointer<Sample>, sourceStride: Int, width: Int, height: Int,
    into destination: UnsafeMutablePointer<Sample>, destinationStride: Int
  ) {
    for y in 0..<height {
      let from = source + (height - 1 - y) * sourceStride + width - 1
      let to = destination + y * destinationStride
      for x in 0..<width { to[x] = from[-x] }
    }
  }
}
