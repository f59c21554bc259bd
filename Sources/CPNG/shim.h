#ifndef CAMFX_CPNG_SHIM_H
#define CAMFX_CPNG_SHIM_H
// libpng reports errors by longjmp; camfx only uses the simplified png_image_* API,
// which catches that longjmp inside libpng and returns 0 with a message in
// image->message, so no longjmp ever crosses a Swift frame.
#include <png.h>
#include <string.h>

// PNG_IMAGE_SIZE and friends are function-like macros Swift cannot import.
static inline size_t camfx_png_image_row_stride(const png_image *image) {
  return PNG_IMAGE_ROW_STRIDE(*image);
}

// Format macros built from other macros with `|`: copied as constants so Swift sees
// them with the right type.
static const png_uint_32 CAMFX_PNG_FORMAT_BGRA = PNG_FORMAT_BGRA;
static const png_uint_32 CAMFX_PNG_FORMAT_BGR = PNG_FORMAT_BGR;
/// 16-bit RGBA with the values as stored (linear output of a file read as linear).
static const png_uint_32 CAMFX_PNG_FORMAT_RGBA16 = PNG_FORMAT_LINEAR_RGB_ALPHA;
static const png_uint_32 CAMFX_PNG_IMAGE_VERSION = PNG_IMAGE_VERSION;

/// A png_image ready for png_image_begin_read_* / png_image_write_*: zeroed, with
/// `version` set (libpng refuses a structure without it).
static inline png_image camfx_png_image_make(void) {
  png_image image;
  memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  return image;
}

/// PNG_IMAGE_FAILED: true when the last simplified-API call ended in an error
/// (as opposed to success, possibly with a warning).
static inline int camfx_png_image_failed(const png_image *image) {
  return PNG_IMAGE_FAILED(*image);
}

/// libpng's NUL-terminated message (an error or a warning) inside `image`.
static inline const char *camfx_png_image_message(const png_image *image) {
  return image->message;
}
#endif
