import CamfxCore

/// `text` with a default: the frame's capture time as `%Y-%m-%d %H:%M:%S` in local time,
/// at the top left. Every `text` key works, `text` included (to change the format).
///
///     camfx record --source /dev/video0 --filter timestamp=box=black@0.5 -o cam.mp4
public struct Timestamp: InPlaceVideoFilter, YUV420VideoFilter, ClockedVideoFilter {
  public static let name = "timestamp"
  public static let summary = "Draws the capture time (text with a default of %Y-%m-%d %H:%M:%S, top left)."
  public static let example = "camfx snapshot --filter timestamp=size=24:box=black@0.5 -o stamped.png"
  public static let defaultFormat = "%Y-%m-%d %H:%M:%S"
  public static let options = Text.optionTable(text: defaultFormat)

  private var text: Text

  public init(options: FilterOptions) throws {
    text = try Text(options: options, name: Self.name)
  }

  public mutating func setClock(_ clock: FrameClock) { text.setClock(clock) }

  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    try text.configure(input: input)
  }

  public func process(_ frame: inout PixelBuffer) { text.process(&frame) }

  public var acceptsYUV420: Bool { text.acceptsYUV420 }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    text.process(yuv420: source, into: destination)
  }
}
