import CFreeType
import CamfxCore

/// One font file opened with FreeType at one pixel size: the owner of an `FT_Library`
/// and its `FT_Face`, freed together in `deinit`.
///
/// FreeType objects are not thread-safe; a face is used by one filter, on the thread
/// that configures it and then on the filter stage's thread, never both at once.
final class FontFace: @unchecked Sendable {
  let path: String
  let pixelSize: Int
  /// Pixels from the baseline up to the top of the tallest glyphs, and down to the
  /// bottom of the lowest (positive).
  let ascender: Int
  let descender: Int
  private let library: FT_Library
  private let face: FT_Face

  /// - Throws: `FilterError` naming the font and what FreeType said.
  init(path: String, pixelSize: Int, filter: String) throws {
    var library: FT_Library?
    guard FT_Init_FreeType(&library) == 0, let library else {
      throw FilterError(filter: filter, reason: "FreeType could not start")
    }
    var face: FT_Face?
    let opened = FT_New_Face(library, path, 0, &face)
    guard opened == 0, let face else {
      FT_Done_FreeType(library)
      throw FilterError(filter: filter, key: "font", value: path, reason: Self.describe(opened))
    }
    let sized = FT_Set_Pixel_Sizes(face, 0, FT_UInt(pixelSize))
    guard sized == 0 else {
      FT_Done_Face(face)
      FT_Done_FreeType(library)
      throw FilterError(filter: filter, key: "font", value: path, reason: "cannot be drawn at \(pixelSize) px (\(Self.describe(sized)))")
    }
    self.library = library
    self.face = face
    self.path = path
    self.pixelSize = pixelSize
    let metrics = face.pointee.size.pointee.metrics
    ascender = Int((metrics.ascender + 63) >> 6)
    descender = Int((-metrics.descender + 63) >> 6)
  }

  deinit {
    FT_Done_Face(face)
    FT_Done_FreeType(library)
  }

  /// Renders `scalar` as an 8-bit coverage bitmap, or nil when the font has no glyph for
  /// it (FreeType's missing-glyph box is drawn then, as other programs do).
  func render(_ scalar: Unicode.Scalar) -> Glyph? {
    guard FT_Load_Char(face, FT_ULong(scalar.value), CAMFX_FT_LOAD_RENDER) == 0 else { return nil }
    let slot = face.pointee.glyph.pointee
    let bitmap = slot.bitmap
    let width = Int(bitmap.width), rows = Int(bitmap.rows), pitch = Int(bitmap.pitch)
    var coverage = [UInt8](repeating: 0, count: width * rows)
    if let buffer = bitmap.buffer, width > 0, rows > 0 {
      for y in 0..<rows {
        for x in 0..<width { coverage[y * width + x] = buffer[y * pitch + x] }
      }
    }
    return Glyph(
      width: width, height: rows, left: Int(slot.bitmap_left), top: Int(slot.bitmap_top),
      advance: Int((slot.advance.x + 32) >> 6), coverage: coverage)
  }

  private static func describe(_ error: FT_Error) -> String {
    switch error {
    case 0x01: return "cannot open the file"
    case 0x02: return "not a font file FreeType knows"
    case 0x03: return "broken font file"
    case 0x17: return "invalid pixel size"
    default: return "FreeType error \(error)"
    }
  }
}

/// One rendered glyph: its coverage bitmap and where it sits against the pen.
struct Glyph: Sendable {
  let width: Int
  let height: Int
  /// From the pen to the bitmap's left edge, and from the baseline up to its top row.
  let left: Int
  let top: Int
  /// How far the pen moves after it.
  let advance: Int
  /// `width × height` bytes, 0 (background) to 255 (ink).
  let coverage: [UInt8]
}
