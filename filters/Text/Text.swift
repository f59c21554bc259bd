#if canImport(Glibc)
import Glibc
#endif
import CamfxCore

/// Draws a line of text with FreeType: any font file (`font`, default DejaVu Sans from
/// Debian's `fonts-dejavu-core`), at `size` pixels, in `color` (alpha allowed), with an
/// optional `box` behind it and a `border` around the glyphs, placed like `watermark`
/// (`position` and `margin`, or `x`/`y`).
///
///     camfx snapshot --filter 'text=text=Camera 1 %H\:%M:box=black@0.5:position=bottom-left' -o label.png
///
/// The text may hold strftime fields (`%Y-%m-%d %H:%M:%S`: the frame's capture time in
/// local time — for a live source the wall clock at the first frame plus the frame's
/// timestamp since then, for a movie its creation time plus the timestamp, else the
/// timestamp from 00:00:00; see `FrameClock`) and `%{frame}`, `%{pts}` (hh:mm:ss.mmm), `%{fps}` (measured). Glyphs are
/// rendered once and kept; the text is drawn into a strip only when it changes (once a
/// second for a clock), and every frame costs one blend of that strip, so the cost
/// follows the text's area, not the frame's. A missing font, an unknown field or a text
/// that does not fit the frame is an error before the first frame.
///
/// Decoded yuv420p pictures get the strip blended into their planes (luma per pixel,
/// chroma per 2×2 block), in BT.601 limited range as the BGRA path would encode it.
public struct Text: InPlaceVideoFilter, YUV420VideoFilter, ClockedVideoFilter {
  public static let name = "text"
  public static let summary = "Draws text (strftime fields, %{frame}, %{pts}, %{fps}) with FreeType."
  public static let example = "camfx snapshot --filter text=text=camfx:size=48:box=black@0.5 -o label.png"
  public static let options = optionTable(text: nil)

  /// The option table, with `text` required (nil) or defaulted.
  static func optionTable(text: String?) -> [FilterOption] {
    [
      FilterOption(
        "text", .string, default: text, required: text == nil,
        help: "what to draw: strftime fields (%Y %H ...), %{frame}, %{pts}, %{fps}; escape ':' as '\\:'"),
      FilterOption("font", .path, default: Self.defaultFont, help: "a font file FreeType opens (TrueType, OpenType, ...)"),
      FilterOption("size", .integer(4...1024), default: "32", help: "font size in pixels"),
      FilterOption("color", .color, default: "white", help: "text colour, alpha allowed (white@0.8)"),
      FilterOption("box", .color, help: "colour of a box behind the text (default: none), e.g. black@0.5"),
      FilterOption("border", .integer(0...64), default: "0", help: "width in pixels of an outline around the glyphs"),
      FilterOption("bordercolor", .color, default: "black", help: "colour of the outline"),
      FilterOption(
        "position", .choice(FramePosition.allCases.map(\.rawValue)), default: FramePosition.topLeft.rawValue,
        help: "corner or centre (ignored for a side given by x or y)"),
      FilterOption("margin", .integer(0...FrameGeometry.maximumSide), default: "16", help: "pixels from the edges for position"),
      FilterOption("x", .integer(0...FrameGeometry.maximumSide), help: "left edge of the box in pixels (overrides position)"),
      FilterOption("y", .integer(0...FrameGeometry.maximumSide), help: "top edge of the box in pixels (overrides position)"),
    ]
  }

  /// Debian's `fonts-dejavu-core`.
  public static let defaultFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

  public let text: String
  public let position: FramePosition
  public let margin: Int
  public let x: Int?
  public let y: Int?
  let name: String
  let template: TextTemplate
  let face: FontFace
  let style: TextOverlay.Style
  private var state: TextState?
  private var frameSize = FrameGeometry(width: 0, height: 0)
  private var clock = FrameClock.wallClockAtFirstFrame

  public mutating func setClock(_ clock: FrameClock) {
    self.clock = clock
  }

  public init(options: FilterOptions) throws {
    try self.init(options: options, name: Self.name)
  }

  /// - Parameter name: the filter's name in messages (`text` or `timestamp`).
  init(options: FilterOptions, name: String) throws {
    self.name = name
    text = options.string("text") ?? ""
    do {
      template = try TextTemplate(text)
    } catch {
      throw FilterError(filter: name, key: "text", value: text, reason: error.reason)
    }
    let font = options.string("font") ?? Self.defaultFont
    let size = options.integer("size") ?? 32
    do {
      face = try FontFace(path: font, pixelSize: size, filter: name)
    } catch var error as FilterError {
      if font == Self.defaultFont { error.reason += " (install Debian's fonts-dejavu-core, or give font=PATH)" }
      throw error
    }
    style = TextOverlay.Style(
      color: options.color("color") ?? BGRA(r: 255, g: 255, b: 255), box: options.color("box"),
      borderWidth: options.integer("border") ?? 0, borderColor: options.color("bordercolor") ?? BGRA(r: 0, g: 0, b: 0))
    position = FramePosition(rawValue: options.string("position") ?? "") ?? .topLeft
    margin = options.integer("margin") ?? 16
    x = options.isSet("x") ? options.integer("x") : nil
    y = options.isSet("y") ? options.integer("y") : nil
  }

  /// - Throws: `FilterError` when the text, at its widest, does not fit the frame.
  public mutating func configure(input: FrameGeometry) throws -> FrameGeometry {
    let overlay = TextOverlay(face: face, style: style, maximumWidth: input.width + 1)
    let state = TextState(template: template, overlay: overlay, clock: clock)
    // The widest this text gets in practice: large frame numbers, times and rates.
    let sample = state.expand(seconds: Double(time(nil)), frame: 999_999, pts: 35_999.999, fps: 999.9)
    let wide = overlay.measure(sample)
    let left = x ?? 0, top = y ?? 0
    guard wide + left <= input.width, overlay.height + top <= input.height else {
      throw FilterError(
        filter: name, key: "text", value: text,
        reason: "is \(wide)x\(overlay.height) px at size \(face.pixelSize)\(x != nil || y != nil ? " at (\(left), \(top))" : ""), larger than the \(input) frame")
    }
    self.state = state
    frameSize = input
    return input
  }

  public func process(_ frame: inout PixelBuffer) {
    guard let state else { preconditionFailure("\(name) is not configured") }
    let overlay = state.prepare(for: frame.presentationTime)
    overlay.blend(onto: frame, at: origin(of: overlay))
  }

  public var acceptsYUV420: Bool { true }

  public func process(yuv420 source: YUV420Picture, into destination: YUV420Picture) {
    guard let state else { preconditionFailure("\(name) is not configured") }
    if !source.isSamePicture(as: destination) { source.copyPixels(to: destination) }
    let overlay = state.prepare(for: source.presentationTime)
    overlay.blend(onto: destination, at: origin(of: overlay))
  }

  private func origin(of overlay: TextOverlay) -> (x: Int, y: Int) {
    let placed = position.origin(of: FrameGeometry(width: overlay.width, height: overlay.height), in: frameSize, margin: margin)
    return (x ?? placed.x, y ?? placed.y)
  }
}

/// What a configured text filter keeps between frames: the frame count, the clock
/// anchor, the measured rate and the expansion buffer.
///
/// `@unchecked Sendable`: used by one filter stage at a time (see `ScaleScratch`).
final class TextState: @unchecked Sendable {
  let template: TextTemplate
  let overlay: TextOverlay
  let clock: FrameClock
  private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: TextTemplate.capacity)
  private var frames = 0
  /// The calendar time (seconds since the epoch) at timestamp `pts`.
  private var anchor: (wall: Double, pts: Double)?
  private var windowStart = 0.0
  private var windowFrames = 0
  private var fps = 0.0
  private var lastPTS = -Double.infinity

  init(template: TextTemplate, overlay: TextOverlay, clock: FrameClock) {
    self.template = template
    self.overlay = overlay
    self.clock = clock
  }

  deinit { buffer.deallocate() }

  func expand(seconds: Double, frame: Int, pts: Double, fps: Double) -> UnsafeBufferPointer<UInt8> {
    let length = template.expand(
      into: buffer, capacity: TextTemplate.capacity, seconds: seconds, utc: clock == .timestampOnly, frame: frame, pts: pts,
      fps: fps)
    return UnsafeBufferPointer(start: buffer, count: length)
  }

  /// Brings the strip up to date for the next frame, whose timestamp is `time` (nil:
  /// unknown; frames are then taken to come at the measured or a 30 fps rate).
  func prepare(for time: MediaTime?) -> TextOverlay {
    let pts = time.map(\.seconds) ?? (lastPTS.isFinite ? lastPTS + 1 / (fps > 0 ? fps : 30) : 0)
    let start: (wall: Double, pts: Double)
    if let anchor {
      start = anchor
    } else {
      switch clock {
      case .wallClockAtFirstFrame:
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        start = (Double(now.tv_sec) + Double(now.tv_nsec) / 1e9, pts)
      case .origin(let epochSeconds, let time):
        start = (epochSeconds, time.seconds)
      case .timestampOnly:
        start = (0, 0)
      }
      anchor = start
      windowStart = pts
    }
    windowFrames += 1
    if pts - windowStart >= 1 {
      fps = Double(windowFrames - 1) / (pts - windowStart)
      windowStart = pts
      windowFrames = 1
    }
    lastPTS = pts
    let text = expand(seconds: start.wall + (pts - start.pts), frame: frames, pts: pts, fps: fps)
    frames += 1
    overlay.update(text)
    return overlay
  }
}
