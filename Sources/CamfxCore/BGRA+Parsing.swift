/// Colours as filter options give them: a name (`black`, `white`, `red`, ...),
/// `#RRGGBB`, `#RRGGBBAA`, `0xRRGGBB` or `0xRRGGBBAA`, optionally followed by
/// `@OPACITY` (0...1, as in ffmpeg's colour syntax: `black@0.5`).
extension BGRA {
  /// The names `init(parsing:)` knows, with their RGB values (CSS's).
  public static let colorNames: [(String, UInt32)] = [
    ("black", 0x000000), ("white", 0xFFFFFF), ("red", 0xFF0000), ("green", 0x008000), ("lime", 0x00FF00),
    ("blue", 0x0000FF), ("yellow", 0xFFFF00), ("cyan", 0x00FFFF), ("magenta", 0xFF00FF), ("gray", 0x808080),
    ("grey", 0x808080), ("orange", 0xFFA500), ("purple", 0x800080), ("navy", 0x000080), ("silver", 0xC0C0C0),
  ]

  /// Parses a colour option's value.
  /// - Throws: `ColorSyntaxError` saying what is accepted.
  public init(parsing text: String) throws(ColorSyntaxError) {
    var body = Substring(text.lowercased())
    var opacity: Double?
    if let at = body.firstIndex(of: "@") {
      guard let o = Double(body[body.index(after: at)...]), o.isFinite, (0...1).contains(o) else {
        throw ColorSyntaxError(text: text, reason: "the opacity after @ must be a number in 0...1")
      }
      opacity = o
      body = body[..<at]
    }
    var rgba: UInt32
    if let named = Self.colorNames.first(where: { $0.0 == body }) {
      rgba = named.1 << 8 | 0xFF
    } else {
      var hex = body
      if hex.hasPrefix("#") { hex = hex.dropFirst() } else if hex.hasPrefix("0x") { hex = hex.dropFirst(2) } else {
        throw ColorSyntaxError(text: text, reason: "expected a colour name (black, white, red, ...), #RRGGBB or #RRGGBBAA")
      }
      guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else {
        throw ColorSyntaxError(text: text, reason: "expected 6 or 8 hexadecimal digits, as #RRGGBB or #RRGGBBAA")
      }
      rgba = hex.count == 6 ? value << 8 | 0xFF : value
    }
    if let opacity { rgba = rgba & 0xFFFF_FF00 | UInt32((opacity * 255).rounded()) }
    self.init(r: UInt8(rgba >> 24), g: UInt8(rgba >> 16 & 0xFF), b: UInt8(rgba >> 8 & 0xFF), a: UInt8(rgba & 0xFF))
  }

  /// The colour in BT.601 limited range (Y 16...235, Cb and Cr 16...240), as camfx's
  /// BGRA → yuv420p conversion turns a block of this colour (alpha ignored).
  public var yCbCr: (y: UInt8, cb: UInt8, cr: UInt8) {
    let r = Int(self.r), g = Int(self.g), b = Int(self.b)
    let y = (66 * r + 129 * g + 25 * b + 128) >> 8 + 16
    let cb = (-38 * r - 74 * g + 112 * b + 128) >> 8 + 128
    let cr = (112 * r - 94 * g - 18 * b + 128) >> 8 + 128
    return (UInt8(clamping: y), UInt8(clamping: cb), UInt8(clamping: cr))
  }
}

/// A colour option's value that is not a colour.
public struct ColorSyntaxError: Error, CustomStringConvertible {
  public var text: String
  public var reason: String
  public var description: String { "invalid colour '\(text)': \(reason)" }
}
