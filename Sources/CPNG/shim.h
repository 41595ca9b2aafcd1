// libpng for Swift: only the simplified read API (png_image_*), which reports errors in
// image.message instead of jumping out of the caller, so Swift can call it directly.
#include <png.h>

// The decoded size, in bytes, of an image in `format`.
static inline size_t sybil_png_image_size(const png_image *image) {
    return PNG_IMAGE_SIZE(*image);
}

// The row stride, in components, of an image in its format.
static inline int sybil_png_row_stride(const png_image *image) {
    return (int)PNG_IMAGE_ROW_STRIDE(*image);
}

// Format codes (composite macros Swift cannot import).
static inline png_uint_32 sybil_png_format_rgb(void) { return PNG_FORMAT_RGB; }
static inline png_uint_32 sybil_png_format_rgba(void) { return PNG_FORMAT_RGBA; }
