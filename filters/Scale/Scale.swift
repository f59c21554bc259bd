import CamfxCore

/// Resizes the frame to `width` × `height` with one of five methods (`ScaleMethod`:
/// `bicubic` by default, as ffmpeg's `scale`; `bilinear`, `fast_bilinear`, `area`,
/// `nearest`).
///
///     camfx snapshot --size 1280x720 --filter scale=width=640:height=-2 -o small.png
///
/// A side of `-1` keeps the input's aspect ratio; `-2` keeps it too and rounds to an
/// even number (what yuv420p encoders need). The result is within ±1 of the same
/// weights applied in floating point; `area` at an exact 2:1 is the mean of each 2×2
/// block. Decoded yuv420p pictures are scaled plane by plane, each plane on its own
/// grid (see `process(yuv420:into:)`).
public struct Scale: ResizingVideoFilter, YUV420VideoFilter {
  public static let name = "scale"
  public static let summary = "Resizes the frame (-1 or -2 for a side keeps the aspect ratio)."
  public static let example = "camfx snapshot --size 1280x720 --filter scale=width=640:height=-2 -o small.png"
  public static let options: [FilterOption] = [
    FilterOption(
      "width", .integer(-2...FrameGeometry.maximumSide), required: true,
      help: "width in pixels; -1 keeps the aspect ratio, -2 too with an even result"),
    FilterOption(
      "height", .integer(-2...FrameGeometry.maximumSide), required: true,
      help: "height in pixels; -1 keeps the aspect ratio, -2 too with an even result"),
    FilterOption(
      "method", .choice(ScaleMethod.allCases.map(\.rawValue)), default: ScaleMethod.bicubic.rawValue,
      help: "how source pixels are weighed: bicubic (as ffmpeg), bilinear, fast_bilinear (2 taps, aliases below 1:2), area (box mean) or nearest"),
  ]

  public let requestedWidth: Int
  public let requestedHeight: Int
  public let method: ScaleMethod
  /// The sizes, known after `configure(input:)`.
  public private(set) var inputSize = FrameGeometry(width: 0, height: 0)
  public private(set) var outputSize = FrameGeometry(width: 0, height: 0)
  private var bgra: PlaneScaler?
  private var luma: PlaneScaler?
  private var chroma: PlaneScaler?
  private var scratch = ScaleScratch(samples: 1)

  /// - Parameters:
  ///   - width, height: the size, or -1 / -2 for one of them to keep the aspect ratio.
  /// - Throws: `FilterError` for a side of 0 or both sides negative.
  public init(width: Int, height: Int, method: ScaleMethod = .bicubic) throws {
    guard width != 0, height != 0 else {
      throw FilterError(filter: Self.name, key: width == 0 ? "width" : "height", value: "0", reason: "must be at least 1, or -1 or -2")
    }
    guard width > 0 || height > 0 else {
      throw FilterError(filter: Self.name, reason: "only one of width and height may be -1 or -2")
    }
    requestedWidth = width
    requestedHeight = height
    self.method = method
  }

  public init(options: FilterOptions) throws {
    try self.init(
      width: options.integer("width") ?? 0, height: options.integer("height") ?? 0,
      method: ScaleMethod(rawValue: options.string("method") ?? "") ?? .bicubic)
  }

  /// The size that `width` × `height` (each possibly -1 or -2) asks for, from `input`.
  public static func resolvedSize(width: Int, height: Int, input: FrameGeometry) -> FrameGeometry {
    func keep(_ other: Int, _ num: Int, _ den: Int, even: Bool) -> Int {
      let exact = Double(other) * Double(num) / Double(den)
      if even { return max(2, Int((exact / 2).rounded()) * 2) }
      return max(1, Int(exact.rounded()))
    }
    let w = width > 0 ? width : keep(height, input.width, input.height, even: width == -2)
    let h = height > 0 ? height : keep(w, input.height, input.width, even: height == -2)
    return FrameGeometry(width: w, height: h)
  }

  /// - Throws: `FilterError` when the size worked out from the aspect ratio is too large.
  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    let output = Self.resolvedSize(width: requestedWidth, height: requestedHeight, input: input)
    guard output.width <= FrameGeometry.maximumSide, output.height <= FrameGeometry.maximumSide else {
      throw FilterError(
        filter: Self.name, reason: "\(input) gives \(output), larger than \(FrameGeometry.maximumSide) on a side")
    }
    inputSize = input
    outputSize = output
    bgra = PlaneScaler(method: method, from: input, to: output, channels: 4)
    luma = PlaneScaler(method: method, from: input, to: output, channels: 1)
    chroma = PlaneScaler(
      method: method, from: FrameGeometry(width: (input.width + 1) / 2, height: (input.height + 1) / 2),
      to: FrameGeometry(width: (output.width + 1) / 2, height: (output.height + 1) / 2), channels: 1)
    scratch = ScaleScratch(samples: max(input.width * 4, luma!.scratchSamples, chroma!.scratchSamples))
    return output
  }

  public func process(_ source: PixelBuffer, into destination: inout PixelBuffer) {
    guard let bgra else { preconditionFailure("scale is not configured") }
    precondition(source.geometry == inputSize && destination.geometry == outputSize,
      "scale configured for \(inputSize) → \(outputSize), got \(source.geometry) → \(destination.geometry)")
    let sourceStride = source.bytesPerRow, destinationStride = destination.bytesPerRow
    source.withUnsafeBytes { from in
      destination.withUnsafeMutableBytes { to in
        bgra.scale(
          from.assumingMemoryBound(to: UInt8.self), sourceStride: sourceStride,
          into: to.assumingMemoryBound(to: UInt8.self), destinationStride: destinationStride, scratch: scratch)
      }
    }
  }

  /// Every picture size works: each plane is scaled on its own grid.
  public var acceptsYUV420: Bool { true }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    guard let luma, let chroma else { preconditionFailure("scale is not configured") }
    precondition(source.geometry == inputSize && destination.geometry == outputSize,
      "scale configured for \(inputSize) → \(outputSize), got \(source.geometry) → \(destination.geometry)")
    for index in 0..<3 {
      let from = source.plane(index), to = destination.plane(index)
      (index == 0 ? luma : chroma).scale(
        from.base, sourceStride: from.stride, into: to.base, destinationStride: to.stride, scratch: scratch)
    }
  }
}
