import CamfxCore

/// Keeps a rectangle of the frame: `width` × `height` pixels whose top-left corner is
/// at (`x`, `y`), centred when `x` or `y` is not given.
///
///     camfx snapshot --size 1280x720 --filter crop=width=640:height=360 -o centre.png
///
/// The rectangle must lie inside the input frame; a chain that asks for more is
/// rejected when it is configured, before the first frame. Cropping copies nothing: the
/// frame becomes a narrower view of the same memory (`PixelBuffer.crop`), and later
/// stages honour its `bytesPerRow`.
public struct Crop: InPlaceVideoFilter, YUV420VideoFilter {
  public static let name = "crop"
  public static let summary = "Keeps a width x height rectangle at (x, y), centred by default; no copy."
  public static let example = "camfx snapshot --size 1280x720 --filter crop=width=640:height=360 -o centre.png"
  public static let options: [FilterOption] = [
    FilterOption("x", .integer(0...FrameGeometry.maximumSide), help: "left edge in pixels (default: centred)"),
    FilterOption("y", .integer(0...FrameGeometry.maximumSide), help: "top edge in pixels (default: centred)"),
    FilterOption("width", .integer(1...FrameGeometry.maximumSide), required: true, help: "width of the rectangle in pixels"),
    FilterOption("height", .integer(1...FrameGeometry.maximumSide), required: true, help: "height of the rectangle in pixels"),
  ]

  /// The requested left and top edges; `nil` means centred in the input.
  public let requestedX: Int?
  public let requestedY: Int?
  public let width: Int
  public let height: Int
  /// The rectangle's top-left corner in the input, known after `configure(input:)`.
  public private(set) var x = 0
  public private(set) var y = 0
  /// The frame size, known after `configure(input:)`.
  private(set) var inputSize = FrameGeometry(width: 0, height: 0)

  public init(x: Int? = nil, y: Int? = nil, width: Int, height: Int) {
    self.requestedX = x
    self.requestedY = y
    self.width = width
    self.height = height
  }

  public init(options: FilterOptions) throws {
    // The table makes width and height required and checks every range.
    self.init(
      x: options.isSet("x") ? options.integer("x") : nil,
      y: options.isSet("y") ? options.integer("y") : nil,
      width: options.integer("width") ?? 1, height: options.integer("height") ?? 1)
  }

  /// - Throws: `FilterError` when the rectangle does not fit inside `input`.
  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    let left = requestedX ?? (input.width - width) / 2
    let top = requestedY ?? (input.height - height) / 2
    guard left >= 0, top >= 0, left + width <= input.width, top + height <= input.height else {
      throw FilterError(
        filter: Self.name,
        reason: "rectangle \(width)x\(height) at (\(left), \(top)) does not fit inside the \(input) input frame")
    }
    x = left
    y = top
    inputSize = input
    return FrameGeometry(width: width, height: height)
  }

  public func process(_ frame: inout PixelBuffer) {
    frame.crop(x: x, y: y, width: width, height: height)
  }
}
