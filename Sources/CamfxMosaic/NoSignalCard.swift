import CamfxCore
import TextFilter

/// What a mosaic's cell shows while its camera has no picture: a dark grey card with the
/// camera's name and "no signal" under it, drawn once when the mosaic is made, with the
/// `text` filter's machinery (FreeType, DejaVu Sans by default) on the yuv420p planes,
/// and copied into the cell whenever it is needed.
///
///     ┌──────────────────────┐
///     │                      │
///     │        garden        │   the name, then "no signal" a little smaller,
///     │      no signal       │   white on grey (Y 49), centred
///     │                      │
///     └──────────────────────┘
///
/// The font size follows the cell's height (1/8 of it for the name) and shrinks until
/// the name fits the width; a cell too small for any text stays plain grey.
final class NoSignalCard: @unchecked Sendable {
  // @unchecked Sendable: the planes are written once in init and only read afterwards.
  let planes: YUV420Planes

  /// BT.601 limited-range dark grey (RGB 38, 38, 38).
  static let luma: UInt8 = 49

  /// - Throws: `FilterError` when the font cannot be opened.
  init(camera: String, size: FrameGeometry, font: String) throws {
    planes = YUV420Planes(width: size.width, height: size.height)
    let picture = planes.picture
    picture.fill(
      PixelRectangle(x: 0, y: 0, width: size.width, height: size.height), luma: Self.luma, cb: 128, cr: 128)
    // `%` starts a field in the text filter's template: a name's own is doubled.
    let name = camera.replacingPercents()
    var pixels = min(1024, size.height / 8)  // the text filter's largest size
    while pixels >= 8 {
      let small = max(4, pixels * 3 / 4)
      let nameHeight = pixels * 5 / 4, gap = pixels / 4
      let top = (size.height - nameHeight - gap - small * 5 / 4) / 2
      if top >= 0,
        var title = try Self.text(name, pixels: pixels, top: top, font: font),
        var note = try Self.text("no signal", pixels: small, top: top + nameHeight + gap, font: font),
        (try? title.configure(input: size)) != nil, (try? note.configure(input: size)) != nil
      {
        title.process(yuv420: picture, into: picture)
        note.process(yuv420: picture, into: picture)
        return
      }
      pixels = pixels * 7 / 8
    }
  }

  /// A centred white `text` filter at `top`; nil when the size is out of the filter's range.
  private static func text(_ text: String, pixels: Int, top: Int, font: String) throws -> Text? {
    guard pixels >= 4 else { return nil }
    let options = try FilterOptions(
      filter: Text.name, table: Text.options,
      arguments: [
        ("text", text), ("font", font), ("size", "\(pixels)"), ("color", "white"), ("position", FramePosition.center.rawValue),
        ("y", "\(top)"),
      ])
    return try Text(options: options)
  }

  /// Copies the card into `cell` of `picture` (the card's size).
  func draw(into picture: YUV420Picture) {
    planes.picture.copyPixels(to: picture)
  }
}

extension String {
  fileprivate func replacingPercents() -> String {
    var out = ""
    for c in self { out += c == "%" ? "%%" : String(c) }
    return out
  }
}
