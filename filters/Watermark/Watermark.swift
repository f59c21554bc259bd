import CamfxCore
import CamfxPNG

/// Draws an image over each frame with correct source-over blending: a PNG of any
/// colour type (`image=mark.png`), or the built-in camfx mark when `image` is not given.
///
///     camfx snapshot --filter watermark=position=top-left:opacity=0.5 -o marked.png
///     camfx snapshot --filter watermark=image=logo.png:x=20:y=20 -o logo.png
///
/// The image is placed in a corner or the centre (`position`, `margin` pixels from the
/// edges) or at an explicit top-left (`x`, `y`, either of which overrides `position`
/// on its axis; they may be negative). A mark partly outside the frame is clipped; one
/// entirely outside is an error when the chain is configured.
///
/// The image is read, converted to BGRA and premultiplied by its alpha and `opacity`
/// once, when the filter is made (see `PremultipliedMark`). Each frame then touches
/// only the rectangle the mark covers, so the cost grows with the mark's area, not the
/// frame's.
public struct Watermark: RowLocalYUV420Filter {
  public static let name = "watermark"
  public static let summary = "Blends a PNG (or the built-in camfx mark) over the frame."
  public static let example = "camfx snapshot --filter watermark=position=top-left:opacity=0.5 -o marked.png"
  public static let options: [FilterOption] = [
    FilterOption("image", .path, help: "PNG to draw, any colour type (default: the built-in camfx mark)"),
    FilterOption(
      "position", .choice(Position.allCases.map(\.rawValue)), default: Position.bottomRight.rawValue,
      help: "where to put the mark"),
    FilterOption("margin", .integer(0...FrameGeometry.maximumSide), default: "16", help: "distance from the frame's edges in pixels"),
    FilterOption(
      "x", .integer(-FrameGeometry.maximumSide...FrameGeometry.maximumSide),
      help: "left edge in pixels, may be negative (overrides position)"),
    FilterOption(
      "y", .integer(-FrameGeometry.maximumSide...FrameGeometry.maximumSide),
      help: "top edge in pixels, may be negative (overrides position)"),
    FilterOption("opacity", .number(0...1), default: "1", help: "0 is invisible, 1 draws the image as it is"),
  ]

  /// Where the mark goes when `x`/`y` are not given.
  public typealias Position = FramePosition

  public let position: Position
  public let margin: Int
  public let x: Int?
  public let y: Int?
  public let opacity: Double
  let mark: PremultipliedMark
  /// The image as given (straight alpha), for the yuv420p tables made at `configure`.
  let image: PixelBuffer
  /// The mark in yuv420p at its place in the frame; set by `configure(input:)` for
  /// frames of even width and height.
  private(set) var yuv420Mark: YUV420Mark?
  /// What part of the mark is drawn, and where in the frame; set by `configure(input:)`.
  private var visible = PixelRectangle(x: 0, y: 0, width: 0, height: 0)
  private var origin = (x: 0, y: 0)
  private(set) var frameSize = FrameGeometry(width: 0, height: 0)

  /// The mark's size in pixels.
  public var markSize: FrameGeometry { FrameGeometry(width: mark.width, height: mark.height) }

  /// Creates a watermark from a straight-alpha BGRA image (the built-in mark if `nil`).
  public init(image: PixelBuffer? = nil, position: Position = .bottomRight, margin: Int = 16,
              x: Int? = nil, y: Int? = nil, opacity: Double = 1) {
    self.position = position
    self.margin = margin
    self.x = x
    self.y = y
    self.opacity = min(max(opacity, 0), 1)
    self.image = image ?? Self.builtinMark()
    self.mark = PremultipliedMark(straight: self.image, opacity: self.opacity)
  }

  /// - Throws: `FilterError` (key `image`, the path as value) when the PNG is missing,
  ///   unreadable, not a PNG, truncated or too large, with the PNG reader's reason.
  public init(options: FilterOptions) throws {
    var image: PixelBuffer? = nil
    if let path = options.string("image") {
      do {
        image = try PNGFile.read(path: path)
      } catch let error as PNGError {
        throw FilterError(filter: Self.name, key: "image", value: path, reason: error.message)
      }
    }
    self.init(
      image: image, position: Position(rawValue: options.string("position") ?? "") ?? .bottomRight,
      margin: options.integer("margin") ?? 16,
      x: options.isSet("x") ? options.integer("x") : nil, y: options.isSet("y") ? options.integer("y") : nil,
      opacity: options.number("opacity") ?? 1)
  }

  /// Places the mark in frames of `input` size.
  /// - Throws: `FilterError` when no pixel of the mark would land inside the frame.
  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    let w = mark.width, h = mark.height
    var (left, top) = position.origin(of: FrameGeometry(width: w, height: h), in: input, margin: margin)
    if let x { left = x }
    if let y { top = y }
    let placed = PixelRectangle(x: left, y: top, width: w, height: h)
    guard let inside = placed.intersection(PixelRectangle(x: 0, y: 0, width: input.width, height: input.height)) else {
      throw FilterError(
        filter: Self.name,
        reason: "mark \(w)x\(h) at (\(left), \(top)) lies entirely outside the \(input) input frame")
    }
    visible = PixelRectangle(x: inside.x - left, y: inside.y - top, width: inside.width, height: inside.height)
    origin = (inside.x, inside.y)
    frameSize = input
    yuv420Mark = input.width % 2 == 0 && input.height % 2 == 0
      ? YUV420Mark(straight: image, opacity: opacity, visible: visible, origin: origin) : nil
    return input
  }

  public func process(_ frame: inout PixelBuffer) {
    precondition(frame.geometry == frameSize, "watermark configured for \(frameSize), got \(frame.geometry)")
    let bytesPerRow = frame.bytesPerRow
    frame.withUnsafeMutableBytes { base in
      mark.blend(onto: base, bytesPerRow: bytesPerRow, visible: visible, at: origin)
    }
  }

  /// The mark covers fixed rows; a band gets the part of it that falls in its rows.
  public var isRowLocal: Bool { true }

  public func process(band: inout PixelBuffer, firstRow: Int) {
    precondition(band.width == frameSize.width && firstRow >= 0 && firstRow + band.height <= frameSize.height,
      "watermark configured for \(frameSize), got rows \(firstRow)..<\(firstRow + band.height) of width \(band.width)")
    let top = max(origin.y, firstRow), bottom = min(origin.y + visible.height, firstRow + band.height)
    guard top < bottom else { return }
    let part = PixelRectangle(x: visible.x, y: visible.y + (top - origin.y), width: visible.width, height: bottom - top)
    let bytesPerRow = band.bytesPerRow
    band.withUnsafeMutableBytes { base in
      mark.blend(onto: base, bytesPerRow: bytesPerRow, visible: part, at: (origin.x, top - firstRow))
    }
  }
}
