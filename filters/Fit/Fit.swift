import CamfxCore
import ScaleFilter

/// Scales the frame to fit inside `width` × `height` keeping its aspect ratio, and
/// centres it on a canvas of `color`: letterbox (bars above and below) or pillarbox
/// (bars left and right). The scaled sides and the corner are rounded to even numbers
/// (a side of 1 stays 1), so that yuv420p pictures keep whole chroma samples.
///
///     camfx snapshot --size 640x480 --filter fit=width=1280:height=720 -o widescreen.png
///
/// The same as `scale` to the fitted size followed by `pad`, without the frame in
/// between: the scale writes straight into the canvas.
public struct Fit: ResizingVideoFilter, YUV420VideoFilter {
  public static let name = "fit"
  public static let summary = "Scales to fit inside width x height, keeping the aspect ratio, and pads the rest."
  public static let example = "camfx snapshot --size 640x480 --filter fit=width=1280:height=720 -o widescreen.png"
  public static let options: [FilterOption] = [
    FilterOption("width", .integer(1...FrameGeometry.maximumSide), required: true, help: "canvas width in pixels"),
    FilterOption("height", .integer(1...FrameGeometry.maximumSide), required: true, help: "canvas height in pixels"),
    FilterOption(
      "method", .choice(ScaleMethod.allCases.map(\.rawValue)), default: ScaleMethod.bicubic.rawValue,
      help: "how source pixels are weighed, as for scale"),
    FilterOption("color", .color, default: "black", help: "colour of the bars: a name, #RRGGBB or #RRGGBBAA"),
  ]

  public let width: Int
  public let height: Int
  public let method: ScaleMethod
  public let color: BGRA
  /// Where the scaled frame lands on the canvas, known after `configure(input:)`.
  public private(set) var placement = PixelRectangle(x: 0, y: 0, width: 0, height: 0)
  private var scale: Scale?

  public init(width: Int, height: Int, method: ScaleMethod = .bicubic, color: BGRA = BGRA(r: 0, g: 0, b: 0)) {
    self.width = width
    self.height = height
    self.method = method
    self.color = color
  }

  public init(options: FilterOptions) throws {
    self.init(
      width: options.integer("width") ?? 1, height: options.integer("height") ?? 1,
      method: ScaleMethod(rawValue: options.string("method") ?? "") ?? .bicubic,
      color: options.color("color") ?? BGRA(r: 0, g: 0, b: 0))
  }

  /// Where a frame of `input` size lands inside a `width` × `height` canvas.
  public static func placement(of input: FrameGeometry, width: Int, height: Int) -> PixelRectangle {
    func even(_ exact: Double, limit: Int) -> Int {
      guard limit >= 2 else { return 1 }
      return min(max(2, Int((exact / 2).rounded()) * 2), limit & ~1)
    }
    let wider = input.width * height >= input.height * width
    let w = wider ? even(Double(width), limit: width) : even(Double(height * input.width) / Double(input.height), limit: width)
    let h = wider ? even(Double(width * input.height) / Double(input.width), limit: height) : even(Double(height), limit: height)
    return PixelRectangle(x: ((width - w) / 2) & ~1, y: ((height - h) / 2) & ~1, width: w, height: h)
  }

  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    let inner = Self.placement(of: input, width: width, height: height)
    var scale = try Scale(width: inner.width, height: inner.height, method: method)
    _ = try scale.configure(input: input)
    self.scale = scale
    placement = inner
    return FrameGeometry(width: width, height: height)
  }

  public func process(_ source: PixelBuffer, into destination: inout PixelBuffer) {
    guard let scale else { preconditionFailure("fit is not configured") }
    destination.fill(color, outside: placement)
    var inside = destination
    inside.crop(x: placement.x, y: placement.y, width: placement.width, height: placement.height)
    scale.process(source, into: &inside)
  }

  public var acceptsYUV420: Bool { placement.isChromaAligned }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    guard let scale else { preconditionFailure("fit is not configured") }
    destination.fill(color, outside: placement)
    scale.process(yuv420: source, into: destination.subpicture(placement))
  }
}
