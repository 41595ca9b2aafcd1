// libjpeg(-turbo) for Swift. libjpeg reports errors by calling error_exit, which must not
// return; Swift cannot catch a longjmp, so each whole compression or decompression runs inside
// one C function, which sets the jump point and turns an error into a return code and a message.
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

struct sybil_jpeg_error_manager {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void sybil_jpeg_error_exit(j_common_ptr info) {
    struct sybil_jpeg_error_manager *manager = (struct sybil_jpeg_error_manager *)info->err;
    (*info->err->format_message)(info, manager->message);
    longjmp(manager->jump, 1);
}

// Compresses `height` rows of `width` RGB pixels (3 bytes each, rows packed) at `quality`
// (1...100) into a malloc'd buffer (*out, *out_size; free it with free()). Returns 0, or 1
// with a message in `message`.
static inline int sybil_jpeg_encode_rgb(
    const unsigned char *rgb, unsigned int width, unsigned int height, int quality,
    unsigned char **out, unsigned long *out_size, char *message, size_t message_size) {
    struct jpeg_compress_struct info;
    struct sybil_jpeg_error_manager errors;
    *out = NULL;
    *out_size = 0;
    info.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = sybil_jpeg_error_exit;
    errors.message[0] = 0;
    if (setjmp(errors.jump)) {
        jpeg_destroy_compress(&info);
        if (*out != NULL) {
            free(*out);
            *out = NULL;
        }
        snprintf(message, message_size, "%s", errors.message);
        return 1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, out, out_size);
    info.image_width = width;
    info.image_height = height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)info.next_scanline * width * 3);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    return 0;
}

static void sybil_jpeg_quiet(j_common_ptr info) { (void)info; }

// Decompresses a JPEG to RGB (3 bytes per pixel, rows packed) into a malloc'd buffer (*out;
// free it with free()), refusing before any pixel is decoded an image of more than
// `max_pixels` pixels. Returns 0; 1 with a message in `message`; 2 when the image is too large
// (*width and *height are set). Warnings about corrupt data are not printed.
static inline int sybil_jpeg_decode_rgb(
    const unsigned char *data, unsigned long size, unsigned long long max_pixels,
    unsigned char **out, unsigned int *width, unsigned int *height, char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    struct sybil_jpeg_error_manager errors;
    unsigned char *volatile pixels = NULL;
    *out = NULL;
    *width = 0;
    *height = 0;
    info.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = sybil_jpeg_error_exit;
    errors.base.output_message = sybil_jpeg_quiet;
    errors.message[0] = 0;
    if (setjmp(errors.jump)) {
        jpeg_destroy_decompress(&info);
        free(pixels);
        snprintf(message, message_size, "%s", errors.message);
        return 1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, size);
    jpeg_read_header(&info, TRUE);
    *width = info.image_width;
    *height = info.image_height;
    if ((unsigned long long)info.image_width * info.image_height > max_pixels) {
        jpeg_destroy_decompress(&info);
        return 2;
    }
    info.out_color_space = JCS_RGB;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * 3;
    pixels = (unsigned char *)malloc(stride * info.output_height);
    if (pixels == NULL) {
        jpeg_destroy_decompress(&info);
        snprintf(message, message_size, "out of memory");
        return 1;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)info.output_scanline * stride);
        jpeg_read_scanlines(&info, &row, 1);
    }
    *width = info.output_width;
    *height = info.output_height;
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    *out = pixels;
    return 0;
}
