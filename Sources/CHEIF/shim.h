// libheif for Swift. libheif reports every failure as a returned `struct heif_error` (it never
// jumps out of the caller), so Swift calls it directly; this header only adds what Swift
// cannot write well: a writer callback that collects an encoded file in memory.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>

struct sybil_heif_buffer {
    uint8_t *bytes;
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
    struct heif_context *context, uint8_t **out, size_t *out_size) {
    struct sybil_heif_buffer buffer = {NULL, 0, 0, 0};
    struct heif_writer writer;
    writer.writer_api_version = 1;
    writer.write = sybil_heif_buffer_write;
    struct heif_error error = heif_context_write(context, &writer, &buffer);
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
