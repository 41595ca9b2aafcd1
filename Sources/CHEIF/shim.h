// libheif for Swift, loaded on first use. libheif reports every failure as a returned
// `struct heif_error` (it never jumps out of the caller), so Swift calls it directly, but through
// `struct sybil_heif_api`: a table of the functions Sybil uses, resolved with dlsym from a handle
// the caller got from dlopen, so a program that links this module does not load libheif (and its
// codecs) at start. It also adds a writer that collects an encoded file in memory (used to make
// HEIC test images when the library has an HEVC encoder).
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>

#pragma clang assume_nonnull begin

// Every libheif function Sybil calls (X-macro: each entry becomes a field and a dlsym lookup).
#define SYBIL_HEIF_FUNCTIONS(X)                                                                             \
    X(heif_context_alloc)                                                                                   \
    X(heif_context_free)                                                                                    \
    X(heif_context_read_from_memory_without_copy)                                                           \
    X(heif_context_get_primary_image_handle)                                                                \
    X(heif_context_get_encoder_for_format)                                                                  \
    X(heif_context_encode_image)                                                                            \
    X(heif_context_write)                                                                                   \
    X(heif_image_handle_get_width)                                                                          \
    X(heif_image_handle_get_height)                                                                         \
    X(heif_image_handle_has_alpha_channel)                                                                  \
    X(heif_image_handle_release)                                                                            \
    X(heif_decode_image)                                                                                    \
    X(heif_image_create)                                                                                    \
    X(heif_image_add_plane)                                                                                 \
    X(heif_image_get_plane)                                                                                 \
    X(heif_image_get_plane_readonly)                                                                        \
    X(heif_image_get_width)                                                                                 \
    X(heif_image_get_height)                                                                                \
    X(heif_image_get_bits_per_pixel_range)                                                                  \
    X(heif_image_release)                                                                                   \
    X(heif_have_encoder_for_format)                                                                         \
    X(heif_encoder_set_lossy_quality)                                                                       \
    X(heif_encoder_release)

// The functions above, each a pointer of the exact type the header declares.
struct sybil_heif_api {
#define SYBIL_HEIF_FIELD(name) __typeof__(name) *name;
    SYBIL_HEIF_FUNCTIONS(SYBIL_HEIF_FIELD)
#undef SYBIL_HEIF_FIELD
};

// Fills `api` from `library` (a dlopen handle); returns NULL, or the name of the first function
// the library lacks (then `api` is incomplete and must not be used).
static inline const char *_Nullable sybil_heif_api_load(void *library, struct sybil_heif_api *api) {
#define SYBIL_HEIF_RESOLVE(name)                                                                            \
    {                                                                                                       \
        void *symbol = dlsym(library, #name);                                                               \
        if (symbol == NULL) {                                                                               \
            return #name;                                                                                   \
        }                                                                                                   \
        memcpy(&api->name, &symbol, sizeof symbol);                                                         \
    }
    SYBIL_HEIF_FUNCTIONS(SYBIL_HEIF_RESOLVE)
#undef SYBIL_HEIF_RESOLVE
    return NULL;
}

struct sybil_heif_buffer {
    uint8_t *_Nullable bytes;
    size_t count;
    size_t capacity;
    int failed;
};

static struct heif_error sybil_heif_buffer_write(
    struct heif_context *context, const void *data, size_t size, void *userdata) {
    (void)context;
    struct sybil_heif_buffer *buffer = (struct sybil_heif_buffer *)userdata;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};
    struct heif_error full = {heif_error_Encoding_error, heif_suberror_Cannot_write_output_data, "out of memory"};
    if (size > SIZE_MAX - buffer->count) {
        buffer->failed = 1;
        return full;
    }
    if (buffer->count + size > buffer->capacity) {
        size_t capacity = buffer->capacity == 0 ? 4096 : buffer->capacity;
        while (capacity < buffer->count + size) {
            if (capacity > SIZE_MAX / 2) {
                capacity = buffer->count + size;
                break;
            }
            capacity *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(buffer->bytes, capacity);
        if (grown == NULL) {
            buffer->failed = 1;
            return full;
        }
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->count, data, size);
    buffer->count += size;
    return ok;
}

// Writes `context` as a HEIF file into a malloc'd buffer (*out, *out_size; free it with free()).
static inline struct heif_error sybil_heif_write_to_memory(
    const struct sybil_heif_api *api, struct heif_context *context, uint8_t *_Nullable *_Nonnull out,
    size_t *out_size) {
    struct sybil_heif_buffer buffer = {NULL, 0, 0, 0};
    struct heif_writer writer;
    writer.writer_api_version = 1;
    writer.write = sybil_heif_buffer_write;
    struct heif_error error = api->heif_context_write(context, &writer, &buffer);
    if (error.code != heif_error_Ok) {
        free(buffer.bytes);
        *out = NULL;
        *out_size = 0;
        return error;
    }
    *out = buffer.bytes;
    *out_size = buffer.count;
    return error;
}

#pragma clang assume_nonnull end
