#ifndef CAMFX_CPNG_SHIM_H
#define CAMFX_CPNG_SHIM_H
// libpng reports errors by longjmp; camfx only uses the simplified png_image_* API,
// which catches that longjmp inside libpng and returns 0 with a message in
// image->message, so no longjmp ever crosses a Swift frame.
#include <png.h>

// PNG_IMAGE_SIZE and friends are function-like macros Swift cannot import.
static inline size_t camfx_png_image_row_stride(const png_image *image) {
  return PNG_IMAGE_ROW_STRIDE(*image);
}
#endif
