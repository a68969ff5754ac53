// libpng 1.6 (Debian 12: libpng-dev), wrapped for Swift.
//
// Why this header holds real code: libpng reports errors by calling
// longjmp() out of its error callback. A longjmp must never cross Swift
// frames (Swift does not unwind, so it would skip releases and corrupt
// state). Every libpng call therefore happens inside the static inline
// functions below, which call setjmp themselves, read from / write to memory
// buffers through C callbacks defined here, and return an error code plus a
// message. Swift calls only the `stack_png_…` functions.
#ifndef STACK_CPNG_SHIM_H
#define STACK_CPNG_SHIM_H

#include <png.h>
#include <zlib.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// Result codes of the stack_png_… functions.
enum {
    STACK_PNG_OK = 0,        // success
    STACK_PNG_ERROR = 1,     // libpng reported an error; see the message
    STACK_PNG_TOO_LARGE = 2, // width × height exceeds max_pixels (size filled in)
    STACK_PNG_NO_MEMORY = 3  // an allocation failed
};

/// A decoded PNG: interleaved samples, alpha dropped, palette and low bit
/// depths expanded. 16-bit samples are in native byte order.
typedef struct stack_png_image {
    unsigned char *pixels; // malloc'd; release with stack_png_free
    uint32_t width;
    uint32_t height;
    int channels;          // 1 (gray) or 3 (RGB)
    int bit_depth;         // 8 or 16
} stack_png_image;

/// Shared state of one decode or encode call, reached from the callbacks
/// through libpng's io and error pointers.
typedef struct stack_png_context {
    const unsigned char *input;  // decode: the file bytes
    size_t input_size;
    size_t input_pos;
    unsigned char *output;       // encode: the growing output buffer
    size_t output_size;
    size_t output_capacity;
    char *message;               // where the error text goes
    size_t message_size;
} stack_png_context;

// Exists because libpng must not print or return from an error: records the
// message, then jumps back to the setjmp in the calling stack_png_ function.
static void stack_png_error_fn(png_structp png, png_const_charp msg) {
    stack_png_context *ctx = (stack_png_context *)png_get_error_ptr(png);
    if (ctx != NULL && ctx->message != NULL && ctx->message_size > 0) {
        strncpy(ctx->message, msg != NULL ? msg : "unknown libpng error", ctx->message_size - 1);
        ctx->message[ctx->message_size - 1] = '\0';
    }
    png_longjmp(png, 1);
}

// Exists to keep libpng's warnings (e.g. a bad ancillary chunk CRC) off
// stderr; the image still decodes.
static void stack_png_warning_fn(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}

// Exists because we decode from memory, not a FILE*: bounds-checked reads
// from the input buffer; running out of bytes is an error.
static void stack_png_read_fn(png_structp png, png_bytep data, size_t length) {
    stack_png_context *ctx = (stack_png_context *)png_get_io_ptr(png);
    if (ctx->input_pos > ctx->input_size || length > ctx->input_size - ctx->input_pos) {
        png_error(png, "truncated PNG data");
    }
    memcpy(data, ctx->input + ctx->input_pos, length);
    ctx->input_pos += length;
}

// Exists because we encode to memory: appends to a growing malloc'd buffer.
static void stack_png_write_fn(png_structp png, png_bytep data, size_t length) {
    stack_png_context *ctx = (stack_png_context *)png_get_io_ptr(png);
    if (length > SIZE_MAX - ctx->output_size) png_error(png, "output too large");
    size_t needed = ctx->output_size + length;
    if (needed > ctx->output_capacity) {
        size_t capacity = ctx->output_capacity < 65536 ? 65536 : ctx->output_capacity;
        while (capacity < needed) {
            if (capacity > SIZE_MAX / 2) { capacity = needed; break; }
            capacity *= 2;
        }
        unsigned char *grown = (unsigned char *)realloc(ctx->output, capacity);
        if (grown == NULL) png_error(png, "out of memory");
        ctx->output = grown;
        ctx->output_capacity = capacity;
    }
    memcpy(ctx->output + ctx->output_size, data, length);
    ctx->output_size = needed;
}

// Exists because the output lives in memory: nothing to flush.
static void stack_png_flush_fn(png_structp png) { (void)png; }

/// True on a little-endian machine (16-bit PNG samples are big-endian).
static inline int stack_png_little_endian(void) {
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/// Releases a buffer returned by stack_png_decode or stack_png_encode.
/// Exists so Swift frees with the allocator that made the buffer.
static inline void stack_png_free(void *buffer) { free(buffer); }

/// Decodes a whole PNG from memory into `out` (interleaved, alpha dropped,
/// palette / gray < 8 bits expanded, 16-bit in native byte order).
/// Checks width × height against `max_pixels` after reading IHDR and before
/// allocating rows (then returns STACK_PNG_TOO_LARGE with the size in `out`).
/// Ancillary chunks other than tRNS are skipped unread, so no chunk length
/// in the file drives an allocation: what is allocated is the rows of the
/// image IHDR claims plus libpng's fixed buffers.
/// Exists so that libpng's longjmp stays inside C (see the file comment).
static inline int stack_png_decode(const unsigned char *data, size_t size, uint64_t max_pixels,
                                   stack_png_image *out, char *message, size_t message_size) {
    stack_png_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input = data;
    ctx.input_size = size;
    ctx.message = message;
    ctx.message_size = message_size;
    memset(out, 0, sizeof *out);
    if (message_size > 0) message[0] = '\0';

    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx,
                                             stack_png_error_fn, stack_png_warning_fn);
    if (png == NULL) return STACK_PNG_NO_MEMORY;
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        return STACK_PNG_NO_MEMORY;
    }
    // Written after setjmp, so volatile: their values must survive longjmp.
    unsigned char *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    volatile int result = STACK_PNG_ERROR;

    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        free(pixels);
        png_destroy_read_struct(&png, &info, NULL);
        memset(out, 0, sizeof *out);
        return result;
    }
    png_set_read_fn(png, &ctx, stack_png_read_fn);
    // Nothing here uses an ancillary chunk (no gamma, colour, text or EXIF
    // handling; tRNS only feeds the alpha we strip), so libpng skips them all,
    // unread and unallocated; a negative count means "every known ancillary
    // chunk but tRNS", and the default covers unknown ones. Otherwise it
    // allocates and zeroes a buffer of the chunk's declared length before
    // reading a byte of it: 1 GiB for a 57-byte file whose tEXt, zTXt, iTXt,
    // pCAL, sCAL or sPLT chunk claims 2^30 bytes. tRNS, PLTE and IHDR are
    // read into fixed-size buffers; IDAT is inflated in small pieces into the
    // rows allocated below, after the max_pixels check.
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_read_info(png, info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);
    out->width = width;
    out->height = height;
    if ((uint64_t)width * (uint64_t)height > max_pixels) {
        png_destroy_read_struct(&png, &info, NULL);
        return STACK_PNG_TOO_LARGE;
    }
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    png_set_strip_alpha(png);
    if (bit_depth == 16 && stack_png_little_endian()) png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    int channels = png_get_channels(png, info);
    int depth = png_get_bit_depth(png, info);
    if ((channels != 1 && channels != 3) || (depth != 8 && depth != 16)) {
        png_error(png, "unsupported PNG pixel layout");
    }
    size_t rowbytes = png_get_rowbytes(png, info);
    if (rowbytes != (size_t)width * (size_t)channels * (size_t)(depth / 8)) {
        png_error(png, "unexpected PNG row size");
    }
    if (height != 0 && rowbytes > SIZE_MAX / height) png_error(png, "image too large");
    result = STACK_PNG_NO_MEMORY;
    pixels = (unsigned char *)malloc(rowbytes * height + 1);
    rows = (png_bytep *)malloc(sizeof(png_bytep) * (height + 1));
    if (pixels == NULL || rows == NULL) png_error(png, "out of memory");
    result = STACK_PNG_ERROR;
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + (size_t)y * rowbytes;
    png_read_image(png, rows);
    png_read_end(png, NULL);

    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    out->pixels = pixels;
    out->channels = channels;
    out->bit_depth = depth;
    return STACK_PNG_OK;
}

/// Encodes interleaved samples (`channels` 1 = gray or 3 = RGB; `bit_depth`
/// 8, or 16 in native byte order) as a PNG in memory. On success `*out`
/// holds a malloc'd buffer of `*out_size` bytes (release with
/// stack_png_free). `exif` (may be NULL) is stored in an eXIf chunk, `icc`
/// (may be NULL) in an iCCP chunk named "ICC Profile" (libpng compresses it;
/// a profile libpng finds invalid for the image, such as a gray profile on
/// RGB, is left out with a warning), and `xmp` (NUL-terminated, may be NULL)
/// in an uncompressed iTXt chunk keyed `XML:com.adobe.xmp`.
/// Exists so that libpng's longjmp stays inside C (see the file comment).
static inline int stack_png_encode(const unsigned char *pixels, uint32_t width, uint32_t height,
                                   int channels, int bit_depth,
                                   const unsigned char *exif, uint32_t exif_size,
                                   const unsigned char *icc, uint32_t icc_size,
                                   const char *xmp,
                                   unsigned char **out, size_t *out_size,
                                   char *message, size_t message_size) {
    *out = NULL;
    *out_size = 0;
    if (message_size > 0) message[0] = '\0';
    // On the heap, and the pointer set before setjmp: the callbacks change
    // the context after setjmp, and the error path must see those changes.
    stack_png_context *const ctx = (stack_png_context *)calloc(1, sizeof(stack_png_context));
    if (ctx == NULL) return STACK_PNG_NO_MEMORY;
    ctx->message = message;
    ctx->message_size = message_size;

    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, ctx,
                                              stack_png_error_fn, stack_png_warning_fn);
    if (png == NULL) { free(ctx); return STACK_PNG_NO_MEMORY; }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        free(ctx);
        return STACK_PNG_NO_MEMORY;
    }
    png_bytep *volatile rows = NULL;

    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        png_destroy_write_struct(&png, &info);
        free(ctx->output);
        free(ctx);
        return STACK_PNG_ERROR;
    }
    png_set_write_fn(png, ctx, stack_png_write_fn, stack_png_flush_fn);
    int color_type = channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB;
    png_set_IHDR(png, info, width, height, bit_depth, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
#ifdef PNG_eXIf_SUPPORTED
    if (exif != NULL && exif_size > 0) png_set_eXIf_1(png, info, exif_size, (png_bytep)exif);
#endif
    // An unusable profile is a benign error: skipped with a warning, not a failed write.
    png_set_benign_errors(png, 1);
    if (icc != NULL && icc_size > 0) png_set_iCCP(png, info, "ICC Profile", 0, (png_const_bytep)icc, icc_size);
    if (xmp != NULL && xmp[0] != '\0') {
        png_text text;
        memset(&text, 0, sizeof text);
        text.compression = PNG_ITXT_COMPRESSION_NONE;
        text.key = (png_charp)"XML:com.adobe.xmp";
        text.text = (png_charp)xmp;
        text.lang = (png_charp)"";
        text.lang_key = (png_charp)"";
        png_set_text(png, info, &text, 1);
    }
    // zlib level 3 instead of the default 6: measured on a noisy 12 MP RGB
    // frame, 8-bit encodes in 1.55 s instead of 3.0 s for 14 % more bytes
    // (16-bit: no difference either way).
    png_set_compression_level(png, 3);
    png_write_info(png, info);
    if (bit_depth == 16 && stack_png_little_endian()) png_set_swap(png);

    size_t rowbytes = (size_t)width * (size_t)channels * (size_t)(bit_depth / 8);
    rows = (png_bytep *)malloc(sizeof(png_bytep) * ((size_t)height + 1));
    if (rows == NULL) png_error(png, "out of memory");
    for (uint32_t y = 0; y < height; y++) rows[y] = (png_bytep)pixels + (size_t)y * rowbytes;
    png_write_image(png, rows);
    png_write_end(png, NULL);

    free(rows);
    png_destroy_write_struct(&png, &info);
    *out = ctx->output;
    *out_size = ctx->output_size;
    free(ctx);
    return STACK_PNG_OK;
}

/// Inflates the zlib stream `in` (a PNG iCCP profile or compressed iTXt
/// text) into a malloc'd buffer (release with stack_png_free), grown as
/// needed but never past `limit` bytes. Returns the buffer and sets
/// `*out_size`, or NULL when the stream is corrupt, truncated, or would
/// inflate past `limit`.
/// Exists because libpng is told to skip these chunks (see
/// stack_png_decode), so Swift walks them itself and needs zlib, which
/// libpng links, to open the compressed ones with a bound of its own.
static inline unsigned char *stack_png_inflate(const unsigned char *in, size_t in_size, size_t limit,
                                               size_t *out_size) {
    *out_size = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return NULL;
    size_t capacity = limit < 65536 ? limit : 65536;
    unsigned char *out = (unsigned char *)malloc(capacity > 0 ? capacity : 1);
    if (out == NULL) { inflateEnd(&z); return NULL; }
    z.next_in = (Bytef *)in;
    size_t fed = 0, produced = 0;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        if (z.avail_in == 0) {
            size_t chunk = in_size - fed < 1u << 30 ? in_size - fed : 1u << 30;
            if (chunk == 0) break;  // truncated stream
            z.next_in = (Bytef *)(in + fed);
            z.avail_in = (uInt)chunk;
            fed += chunk;
        }
        if (produced == capacity) {
            if (capacity >= limit) break;  // would pass the limit
            size_t grown = capacity * 2 < limit ? capacity * 2 : limit;
            unsigned char *bigger = (unsigned char *)realloc(out, grown);
            if (bigger == NULL) break;
            out = bigger;
            capacity = grown;
        }
        size_t room = capacity - produced < 1u << 30 ? capacity - produced : 1u << 30;
        z.next_out = out + produced;
        z.avail_out = (uInt)room;
        rc = inflate(&z, Z_NO_FLUSH);
        produced += room - z.avail_out;
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) break;
        if (rc == Z_BUF_ERROR && z.avail_in == 0 && fed == in_size) break;  // truncated
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END) { free(out); return NULL; }
    *out_size = produced;
    return out;
}

#endif // STACK_CPNG_SHIM_H
