import CamfxCore

/// Places the frame on a larger `width` × `height` canvas of `color`, its top-left
/// corner at (`x`, `y`), centred by default (rounded down to even coordinates, so that
/// yuv420p pictures keep whole chroma samples).
///
///     camfx snapshot --size 640x360 --filter pad=width=640:height=480:color=navy -o boxed.png
///
/// The frame must fit on the canvas; a chain that asks for less is rejected when it is
/// configured. The colour's alpha is kept in BGRA (a PNG snapshot shows it); encoded
/// video has no alpha. Decoded yuv420p pictures are padded plane by plane when the
/// corner and the input's sides are even; other cases are padded in BGRA.
public struct Pad: ResizingVideoFilter, YUV420VideoFilter {
  public static let name = "pad"
  public static let summary = "Places the frame on a larger canvas of one colour (centred by default)."
  public static let example = "camfx snapshot --size 640x360 --filter pad=width=640:height=480:color=navy -o boxed.png"
  public static let options: [FilterOption] = [
    FilterOption("width", .integer(1...FrameGeometry.maximumSide), required: true, help: "canvas width in pixels"),
    FilterOption("height", .integer(1...FrameGeometry.maximumSide), required: true, help: "canvas height in pixels"),
    FilterOption("x", .integer(0...FrameGeometry.maximumSide), help: "left edge of the frame on the canvas (default: centred)"),
    FilterOption("y", .integer(0...FrameGeometry.maximumSide), help: "top edge of the frame on the canvas (default: centred)"),
    FilterOption("color", .color, default: "black", help: "canvas colour: a name, #RRGGBB or #RRGGBBAA"),
  ]

  public let width: Int
  public let height: Int
  public let requestedX: Int?
  public let requestedY: Int?
  public let color: BGRA
  /// Where the frame lands, known after `configure(input:)`.
  public private(set) var placement = PixelRectangle(x: 0, y: 0, width: 0, height: 0)

  public init(width: Int, height: Int, x: Int? = nil, y: Int? = nil, color: BGRA = BGRA(r: 0, g: 0, b: 0)) {
    self.width = width
    self.height = height
    self.requestedX = x
    self.requestedY = y
    self.color = color
  }

  public init(options: FilterOptions) throws {
    self.init(
      width: options.integer("width") ?? 1, height: options.integer("height") ?? 1,
      x: options.isSet("x") ? options.integer("x") : nil, y: options.isSet("y") ? options.integer("y") : nil,
      color: options.color("color") ?? BGRA(r: 0, g: 0, b: 0))
  }

  /// - Throws: `FilterError` when the input does not fit on the canvas at that place.
  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    let left = requestedX ?? max(0, (width - input.width) / 2) & ~1
    let top = requestedY ?? max(0, (height - input.height) / 2) & ~1
    guard left + input.width <= width, top + input.height <= height else {
      throw FilterError(
        filter: Self.name,
        reason: "the \(input) input at (\(left), \(top)) does not fit on a \(width)x\(height) canvas")
    }
    placement = PixelRectangle(x: left, y: top, width: input.width, height: input.height)
    return FrameGeometry(width: width, height: height)
  }

  public func process(_ source: PixelBuffer, into destination: inout PixelBuffer) {
    destination.fill(color, outside: placement)
    var inside = destination
    inside.crop(x: placement.x, y: placement.y, width: placement.width, height: placement.height)
    inside.copyPixels(from: source)
  }

  public var acceptsYUV420: Bool { placement.isChromaAligned }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    destination.fill(color, outside: placement)
    source.copyPixels(to: destination.subpicture(placement))
  }
}
