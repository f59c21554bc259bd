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

    image.format = CAMFX_PNG_FORMAT_BGRA
    // Without this, libpng's simplified API takes 16-bit files lacking gAMA/sRGB as
    // linear light and gamma-encodes them (0x8080 would read as 186, not 128). Other
    // decoders (browsers, ffmpeg) treat them as sRGB, so do the same.
    image.flags |= png_uint_32(PNG_IMAGE_FLAG_16BIT_sRGB)
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

  private static func message(of image: inout png_image) -> String {
    String(cString: camfx_png_image_message(&image))
  }
}
