import CPNG
import CamfxCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads and writes PNG files with libpng's simplified `png_image_*` API.
///
/// That API catches libpng's internal `longjmp` itself and reports failure as a
/// return value plus a message, so no `longjmp` ever crosses a Swift frame.
///
///     let mark = try PNGFile.read(path: "mark.png")          // any PNG -> BGRA
///     try PNGFile.write(frame, to: "out.png", alpha: false)  // BGRA -> RGB PNG
public enum PNGFile {
  /// Reads a PNG of any colour type and bit depth (grey, palette, RGB, with or
  /// without alpha or `tRNS`, 1 to 16 bits) into an 8-bit BGRA buffer with straight
  /// (not premultiplied) alpha. Opaque images get alpha 255.
  ///
  /// The header is read first and images wider or taller than
  /// `FrameGeometry.maximumSide` are rejected before any pixel memory is allocated.
  ///
  /// - Parameter path: the file to read.
  /// - Returns: a new owning buffer with presentation time zero.
  /// - Throws: `PNGError` (operation `.read`) for a missing or unreadable file, a file
  ///   that is not a PNG, a truncated or corrupt one, or one that is too large.
  public static func read(path: String) throws -> PixelBuffer {
    // fopen() happily opens a directory and libpng would then report a bare
    // "Read Error"; say what is wrong instead.
    var st = stat()
    if stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR {
      throw PNGError(.read, path: path, reason: .system(EISDIR))
    }
    var image = camfx_png_image_make()
    // Frees libpng's state on every path; harmless after libpng already freed it.
    defer { png_image_free(&image) }

    guard png_image_begin_read_from_file(&image, path) != 0 else {
      throw PNGError(.read, path: path, reason: .libpng(message(of: &image)))
    }
    let width = Int(image.width), height = Int(image.height)
    guard width > 0, height > 0 else {
      throw PNGError(.read, path: path, reason: .libpng("image has no pixels"))
    }
    guard width <= FrameGeometry.maximumSide, height <= FrameGeometry.maximumSide else {
      throw PNGError(.read, path: path, reason: .tooLarge(width: width, height: height))
    }

    if image.format & png_uint_32(PNG_FORMAT_FLAG_LINEAR) != 0 {
      return try readSixteenBit(&image, width: width, height: height, path: path)
    }
    image.format = CAMFX_PNG_FORMAT_BGRA
    let frame = PixelBuffer(width: width, height: height)
    // row_stride counts components; for 8-bit BGRA a component is one byte.
    let ok = frame.withUnsafeMutableBytes { base in
      png_image_finish_read(&image, nil, base, png_int_32(frame.bytesPerRow), nil)
    }
    guard ok != 0 else {
      throw PNGError(.read, path: path, reason: .libpng(message(of: &image)))
    }
    return frame
  }

  /// A 16-bit file, read as its 16-bit values and rounded to 8 bits here
  /// (`round(v × 255 / 65535)`): libpng's own 16-to-8-bit path gets every other row
  /// of an interlaced 16-bit file wrong. The values are taken as stored, as browsers
  /// and ffmpeg do (libpng would otherwise take a 16-bit file without gAMA/sRGB as
  /// linear light and gamma-encode it: 0x8080 would read as 186, not 128).
  private static func readSixteenBit(
    _ image: inout png_image, width: Int, height: Int, path: String
  ) throws -> PixelBuffer {
    image.format = CAMFX_PNG_FORMAT_RGBA16
    var wide = [UInt16](repeating: 0, count: width * height * 4)
    let ok = wide.withUnsafeMutableBytes { base in
      png_image_finish_read(&image, nil, base.baseAddress, png_int_32(width * 4), nil)
    }
    guard ok != 0 else {
      throw PNGError(.read, path: path, reason: .libpng(message(of: &image)))
    }
    let frame = PixelBuffer(width: width, height: height)
    for y in 0..<height {
      for x in 0..<width {
        let i = (y * width + x) * 4
        func eight(_ v: UInt16) -> UInt8 { UInt8((UInt32(v) * 255 + 32767) / 65535) }
        frame[x, y] = BGRA(r: eight(wide[i]), g: eight(wide[i + 1]), b: eight(wide[i + 2]), a: eight(wide[i + 3]))
      }
    }
    return frame
  }

  /// Writes `frame` as an 8-bit PNG, RGBA when `alpha` is true (straight alpha, as
  /// stored), RGB otherwise (alpha dropped). Colours are written exactly, with no
  /// gamma or colour conversion. Rows are read with the frame's own `bytesPerRow`, so
  /// padded buffers and crop views are fine.
  ///
  /// The file is written in place; callers that must never leave a partial file
  /// behind write to a temporary name and rename it (see `OutputFile` in `Camfx`).
  ///
  /// - Throws: `PNGError` (operation `.write`) when the file cannot be created or
  ///   written (libpng's message, e.g. `Permission denied`).
  public static func write(_ frame: PixelBuffer, to path: String, alpha: Bool) throws {
    var image = camfx_png_image_make()
    defer { png_image_free(&image) }
    image.width = png_uint_32(frame.width)
    image.height = png_uint_32(frame.height)

    let ok: Int32
    if alpha {
      image.format = CAMFX_PNG_FORMAT_BGRA
      ok = frame.withUnsafeBytes { base in
        png_image_write_to_file(&image, path, 0, base, png_int_32(frame.bytesPerRow), nil)
      }
    } else {
      // The simplified API has no "skip the fourth byte" format, so pack BGR rows
      // once. Snapshots are not a per-frame hot path.
      image.format = CAMFX_PNG_FORMAT_BGR
      let rowBytes = frame.width * 3
      let packed = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * frame.height)
      defer { packed.deallocate() }
      frame.withUnsafeBytes { base in
        for y in 0..<frame.height {
          let src = (base + y * frame.bytesPerRow).assumingMemoryBound(to: UInt8.self)
          let dst = packed + y * rowBytes
          for x in 0..<frame.width {
            dst[3 * x] = src[4 * x]
            dst[3 * x + 1] = src[4 * x + 1]
            dst[3 * x + 2] = src[4 * x + 2]
          }
        }
      }
      ok = png_image_write_to_file(&image, path, 0, packed, png_int_32(rowBytes), nil)
    }
    guard ok != 0 else {
      throw PNGError(.write, path: path, reason: .libpng(message(of: &image)))
    }
  }

  /// The PNG file `write(_:to:alpha:)` would write (RGB, no alpha), in memory: for a
  /// preview server's `/snapshot.png`.
  /// - Throws: `PNGError` (operation `.write`) with libpng's message.
  public static func encode(_ frame: PixelBuffer) throws -> [UInt8] {
    var image = camfx_png_image_make()
    defer { png_image_free(&image) }
    image.width = png_uint_32(frame.width)
    image.height = png_uint_32(frame.height)
    // Written as RGB: the fourth byte is dropped the way `write` does.
    image.format = CAMFX_PNG_FORMAT_BGR
    var size = 0
    let rowBytes = frame.width * 3
    var packed = [UInt8](repeating: 0, count: rowBytes * frame.height)
    frame.withUnsafeBytes { base in
      packed.withUnsafeMutableBufferPointer { dst in
        for y in 0..<frame.height {
          let src = (base + y * frame.bytesPerRow).assumingMemoryBound(to: UInt8.self)
          let row = dst.baseAddress! + y * rowBytes
          for x in 0..<frame.width {
            row[3 * x] = src[4 * x]
            row[3 * x + 1] = src[4 * x + 1]
            row[3 * x + 2] = src[4 * x + 2]
          }
        }
      }
    }
    // Two passes, as png_image_write_get_memory_size: the size, then the bytes.
    guard png_image_write_to_memory(&image, nil, &size, 0, packed, png_int_32(rowBytes), nil) != 0 else {
      throw PNGError(.write, path: "(memory)", reason: .libpng(message(of: &image)))
    }
    var bytes = [UInt8](repeating: 0, count: size)
    let ok = bytes.withUnsafeMutableBytes { out in
      png_image_write_to_memory(&image, out.baseAddress, &size, 0, packed, png_int_32(rowBytes), nil)
    }
    guard ok != 0 else { throw PNGError(.write, path: "(memory)", reason: .libpng(message(of: &image))) }
    return Array(bytes.prefix(size))
  }

  private static func message(of image: inout png_image) -> String {
    String(cString: camfx_png_image_message(&image))
  }
}
