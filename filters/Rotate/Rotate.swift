import CamfxCore

/// Turns the frame clockwise by 90, 180 or 270 degrees (a quarter turn swaps width and
/// height). The names of ffmpeg's `transpose` work too: `clock` (90), `cclock` (270).
///
///     camfx snapshot --size 640x360 --filter rotate=angle=90 -o upright.png
///
/// Bit-exact: pixels only move. On decoded yuv420p pictures each plane is turned on its
/// own, which is what `ffmpeg -vf transpose=1` (90), `hflip,vflip` (180) and
/// `transpose=2` (270) do, sample for sample. Quarter turns go through 32×32 tiles so
/// that reads and writes both stay in the cache.
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
        Self.turn(
          from.assumingMemoryBound(to: UInt32.self), sourceStride: sourceStride / 4,
          width: inputSize.width, height: inputSize.height,
          into: to.assumingMemoryBound(to: UInt32.self), destinationStride: destinationStride / 4, angle: angle)
      }
    }
  }

  public var acceptsYUV420: Bool { true }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    precondition(source.geometry == inputSize, "rotate configured for \(inputSize), got \(source.geometry)")
    for index in 0..<3 {
      let from = source.plane(index), to = destination.plane(index)
      Self.turn(
        UnsafePointer(from.base), sourceStride: from.stride, width: from.width, height: from.height,
        into: to.base, destinationStride: to.stride, angle: angle)
    }
  }

  static let tile = 32

  /// Turns a `width` × `height` grid of samples (strides in samples) into `destination`,
  /// which is `height` × `width` for a quarter turn and `width` × `height` for a half.
  ///
  ///     90:  destination[y][x] = source[height − 1 − x][y]
  ///     180: destination[y][x] = source[height − 1 − y][width − 1 − x]
  ///     270: destination[y][x] = source[x][width − 1 − y]
  static func turn<Sample>(
    _ source: UnsafePointer<Sample>, sourceStride: Int, width: Int, height: Int,
    into destination: UnsafeMutablePointer<Sample>, destinationStride: Int, angle: Angle
  ) {
    switch angle {
    case .half:
      for y in 0..<height {
        let from = source + (height - 1 - y) * sourceStride + width - 1
        let to = destination + y * destinationStride
        for x in 0..<width { to[x] = from[-x] }
      }
    case .quarter, .threeQuarters:
      // Destination is height × width; walk it in tiles.
      let outWidth = height, outHeight = width
      var ty = 0
      while ty < outHeight {
        let yEnd = min(ty + tile, outHeight)
        var tx = 0
        while tx < outWidth {
          let xEnd = min(tx + tile, outWidth)
          for y in ty..<yEnd {
            let to = destination + y * destinationStride
            if angle == .quarter {
              // Column y of the source, read bottom to top.
              for x in tx..<xEnd { to[x] = source[(height - 1 - x) * sourceStride + y] }
            } else {
              // Column width − 1 − y of the source, read top to bottom.
              let column = width - 1 - y
              for x in tx..<xEnd { to[x] = source[x * sourceStride + column] }
            }
          }
          tx = xEnd
        }
        ty = yEnd
      }
    }
  }
}
