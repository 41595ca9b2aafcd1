// libjpeg(-turbo) for Swift. libjpeg reports errors by calling error_exit, which must not
// return; Swift cannot catch a longjmp, so the whole compression runs inside this C function,
// which sets the jump point and turns an error into a return code and a message.
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
