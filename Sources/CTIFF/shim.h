// libtiff 4.5 (Debian 12: libtiff-dev), wrapped for Swift.
//
// Why this header holds real code:
// - We decode from and encode to memory, so libtiff needs client I/O
//   callbacks (read / write / seek / size) over a buffer; they are C
//   functions defined here.
// - libtiff reports errors through handlers that receive a printf format and
//   a va_list; only C can format those. The handlers are set per TIFF handle
//   (TIFFOpenOptionsSetErrorHandlerExtR, new in 4.5), write into the caller's
//   message buffer and return 1, so libtiff never calls its process-wide
//   handlers (which print to stderr) and concurrent files do not share state.
// - TIFFGetField / TIFFSetField are variadic, which Swift cannot call.
// Swift calls only the `stack_tiff_…` functions.
#ifndef STACK_CTIFF_SHIM_H
#define STACK_CTIFF_SHIM_H

#include <tiffio.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Result codes of the stack_tiff_… functions.
enum {
    STACK_TIFF_OK = 0,          // success
    STACK_TIFF_ERROR = 1,       // libtiff reported an error; see the message
    STACK_TIFF_TOO_LARGE = 2,   // width × height exceeds max_pixels (size filled in)
    STACK_TIFF_NO_MEMORY = 3,   // an allocation failed
    STACK_TIFF_UNSUPPORTED = 4  // a layout we do not read; the message is a whole sentence
};

/// What the first directory of a TIFF holds, as far as we use it.
typedef struct stack_tiff_layout {
    uint32_t width;
    uint32_t height;
    int channels;        // 1 (gray) or 3 (RGB): what decoding returns
    int bits;            // 8, 16 (unsigned integer) or 32 (IEEE float)
    int is_float;        // 1 for 32-bit float samples
    uint16_t samples;    // samples per pixel in the file (extra ones are dropped)
    int separate;        // 1 for PLANARCONFIG_SEPARATE
    int tiled;
    uint32_t chunk_width;   // tile width, or the image width for strips
    uint32_t chunk_height;  // tile length, or rows per strip
    int rgba;            // 1: decoded through TIFFReadRGBAImage (old-style JPEG)
} stack_tiff_layout;

/// A decoded TIFF: `channels` planes of width × height samples one after
/// the other, each sample `bits / 8` bytes in native byte order
/// (uint8, uint16 or float).
typedef struct stack_tiff_image {
    void *samples;       // malloc'd; release with stack_tiff_free
    stack_tiff_layout layout;
} stack_tiff_image;

/// The memory "file" behind one TIFF handle, and where errors go.
typedef struct stack_tiff_io {
    const unsigned char *input;  // decode: the file bytes
    size_t input_size;
    unsigned char *output;       // encode: the growing file
    size_t output_size;          // logical length (highest byte written + 1)
    size_t output_capacity;
    uint64_t position;           // current offset for read / write
    char *message;               // the first error's text goes here
    size_t message_size;
    int failed;                  // set by the error handler
    char jpeg_warning[160];      // libjpeg's first warning through the OJPEG codec, or ""
} stack_tiff_io;

// Exists to keep libtiff's errors off stderr and per file: records the first
// message in the handle's own buffer; returning 1 stops libtiff from calling
// the process-wide handlers.
static int stack_tiff_error_handler(TIFF *tif, void *user_data, const char *module,
                                    const char *fmt, va_list ap) {
    (void)tif;
    (void)module;
    stack_tiff_io *io = (stack_tiff_io *)user_data;
    if (io != NULL) {
        if (!io->failed && io->message != NULL && io->message_size > 0) {
            vsnprintf(io->message, io->message_size, fmt, ap);
        }
        io->failed = 1;
    }
    return 1;
}

// Exists to drop libtiff's warnings (unknown tags and the like): the image
// still decodes, and nothing may reach stderr. The first warning libjpeg
// raises inside the old-style JPEG codec (module "LibJpeg": corrupt or
// truncated data, which it fills with grey) is kept, so that such a file can
// be refused as damaged JPEG data is elsewhere.
static int stack_tiff_warning_handler(TIFF *tif, void *user_data, const char *module,
                                      const char *fmt, va_list ap) {
    (void)tif;
    stack_tiff_io *io = (stack_tiff_io *)user_data;
    if (io != NULL && module != NULL && strcmp(module, "LibJpeg") == 0 && io->jpeg_warning[0] == '\0') {
        vsnprintf(io->jpeg_warning, sizeof io->jpeg_warning, fmt, ap);
    }
    return 1;
}

/// Removes libtiff's process-wide error and warning handlers (which print to
/// stderr). Only the few messages libtiff raises where no TIFF handle exists
/// go there; everything else reaches the per-handle handlers above. Call
/// once before the first TIFF call; exists because the setters return the old
/// handler, which Swift would have to type.
static inline void stack_tiff_silence_global_handlers(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

// Exists because we decode from memory: reads at the position, short at
// the end of the buffer (libtiff then reports the truncation).
static tmsize_t stack_tiff_read_fn(thandle_t handle, void *buffer, tmsize_t size) {
    stack_tiff_io *io = (stack_tiff_io *)handle;
    if (size <= 0 || io->input == NULL || io->position >= io->input_size) return 0;
    uint64_t left = io->input_size - io->position;
    size_t n = (uint64_t)size < left ? (size_t)size : (size_t)left;
    memcpy(buffer, io->input + io->position, n);
    io->position += n;
    return (tmsize_t)n;
}

// Exists because we encode to memory: writes at the position into a growing
// malloc'd buffer; a gap left by a seek past the end is zero-filled.
static tmsize_t stack_tiff_write_fn(thandle_t handle, void *buffer, tmsize_t size) {
    stack_tiff_io *io = (stack_tiff_io *)handle;
    if (size < 0 || io->input != NULL) return -1;
    if (io->position > SIZE_MAX - (uint64_t)size) return -1;
    size_t end = (size_t)io->position + (size_t)size;
    if (end > io->output_capacity) {
        size_t capacity = io->output_capacity < 65536 ? 65536 : io->output_capacity;
        while (capacity < end) {
            if (capacity > SIZE_MAX / 2) { capacity = end; break; }
            capacity *= 2;
        }
        unsigned char *grown = (unsigned char *)realloc(io->output, capacity);
        if (grown == NULL) return -1;
        io->output = grown;
        io->output_capacity = capacity;
    }
    if (io->position > io->output_size) {
        memset(io->output + io->output_size, 0, (size_t)io->position - io->output_size);
    }
    memcpy(io->output + io->position, buffer, (size_t)size);
    io->position = end;
    if (end > io->output_size) io->output_size = end;
    return size;
}

// Exists for libtiff's random access; refuses positions before the start.
static toff_t stack_tiff_seek_fn(thandle_t handle, toff_t offset, int whence) {
    stack_tiff_io *io = (stack_tiff_io *)handle;
    uint64_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = io->position; break;
    case SEEK_END: base = io->input != NULL ? io->input_size : io->output_size; break;
    default: return (toff_t)-1;
    }
    int64_t delta = (int64_t)offset;  // libtiff passes negative offsets as wrapped toff_t
    if (delta < 0 && (uint64_t)(-delta) > base) return (toff_t)-1;
    if (delta > 0 && (uint64_t)delta > UINT64_MAX / 2 - base) return (toff_t)-1;
    io->position = base + (uint64_t)delta;
    return (toff_t)io->position;
}

// Exists because libtiff asks for the file size (to validate offsets).
static toff_t stack_tiff_size_fn(thandle_t handle) {
    stack_tiff_io *io = (stack_tiff_io *)handle;
    return (toff_t)(io->input != NULL ? io->input_size : io->output_size);
}

// Exists because libtiff requires a close callback; the buffer is ours.
static int stack_tiff_close_fn(thandle_t handle) { (void)handle; return 0; }

// Exists to tell libtiff the memory "file" cannot be mapped (it then reads
// through stack_tiff_read_fn and never writes into the caller's bytes).
static int stack_tiff_map_fn(thandle_t handle, void **base, toff_t *size) {
    (void)handle; (void)base; (void)size;
    return 0;
}

static void stack_tiff_unmap_fn(thandle_t handle, void *base, toff_t size) {
    (void)handle; (void)base; (void)size;
}

// Opens a TIFF over `io` with per-handle error handlers; NULL on failure
// (the message is in io). `max_alloc` caps any single libtiff allocation.
static TIFF *stack_tiff_open(stack_tiff_io *io, const char *mode, tmsize_t max_alloc) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, stack_tiff_error_handler, io);
    TIFFOpenOptionsSetWarningHandlerExtR(options, stack_tiff_warning_handler, io);
    if (max_alloc > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_alloc);
    TIFF *tif = TIFFClientOpenExt("memory", mode, (thandle_t)io,
                                  stack_tiff_read_fn, stack_tiff_write_fn, stack_tiff_seek_fn,
                                  stack_tiff_close_fn, stack_tiff_size_fn,
                                  stack_tiff_map_fn, stack_tiff_unmap_fn, options);
    TIFFOpenOptionsFree(options);
    return tif;
}

// Writes our own sentence (not a libtiff message) for an unsupported layout.
static int stack_tiff_unsupported(char *message, size_t message_size, const char *text) {
    if (message_size > 0) snprintf(message, message_size, "%s", text);
    return STACK_TIFF_UNSUPPORTED;
}

/// What the first IFD itself says about where the pixel data lies, read
/// from the file's bytes. libtiff trims or zero-pads the strip and tile
/// arrays to the length the image geometry implies, and may rewrite
/// RowsPerStrip (strip chopping), so a disagreement is visible only here.
typedef struct stack_tiff_raw_ifd {
    uint64_t rows_per_strip;  // RowsPerStrip as stored; UINT32_MAX when absent
    int64_t strip_offsets;    // entry counts; -1 when the tag is absent
    int64_t strip_byte_counts;
    int64_t tile_offsets;
    int64_t tile_byte_counts;
} stack_tiff_raw_ifd;

// The unsigned big- or little-endian integer of `width` bytes at `p`; exists
// because the raw IFD may be in either byte order.
static uint64_t stack_tiff_raw_uint(const unsigned char *p, int width, int little) {
    uint64_t v = 0;
    for (int k = 0; k < width; k++) {
        v |= (uint64_t)p[little ? k : width - 1 - k] << (8 * k);
    }
    return v;
}

// Fills `out` from the first IFD of the classic or BigTIFF file in
// `data`; returns 0 when the header or IFD is out of bounds (libtiff has
// then refused the file already, or will). Exists for the geometry check
// in stack_tiff_read_layout; every read is bounds-checked.
static int stack_tiff_read_raw_ifd(const unsigned char *data, size_t size, stack_tiff_raw_ifd *out) {
    out->rows_per_strip = UINT32_MAX;
    out->strip_offsets = out->strip_byte_counts = out->tile_offsets = out->tile_byte_counts = -1;
    if (data == NULL || size < 16) return 0;
    int little = data[0] == 'I' && data[1] == 'I';
    if (!little && !(data[0] == 'M' && data[1] == 'M')) return 0;
    uint64_t version = stack_tiff_raw_uint(data + 2, 2, little);
    int big = version == 43;
    if (!big && version != 42) return 0;
    uint64_t ifd = big ? stack_tiff_raw_uint(data + 8, 8, little) : stack_tiff_raw_uint(data + 4, 4, little);
    int count_width = big ? 8 : 2, entry_size = big ? 20 : 12, value_width = big ? 8 : 4;
    if (ifd > size || size - ifd < (uint64_t)count_width) return 0;
    uint64_t entries = stack_tiff_raw_uint(data + ifd, count_width, little);
    if (entries > (size - ifd - count_width) / (uint64_t)entry_size) return 0;
    for (uint64_t i = 0; i < entries; i++) {
        const unsigned char *e = data + ifd + count_width + i * (uint64_t)entry_size;
        uint64_t tag = stack_tiff_raw_uint(e, 2, little);
        uint64_t type = stack_tiff_raw_uint(e + 2, 2, little);
        uint64_t count = stack_tiff_raw_uint(e + 4, big ? 8 : 4, little);
        const unsigned char *value = e + 4 + (big ? 8 : 4);
        int64_t n = count > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)count;
        switch (tag) {
        case TIFFTAG_ROWSPERSTRIP:
            // The one value sits in the entry itself when it fits (it always does).
            if (count >= 1 && type == TIFF_SHORT) out->rows_per_strip = stack_tiff_raw_uint(value, 2, little);
            else if (count >= 1 && type == TIFF_LONG) out->rows_per_strip = stack_tiff_raw_uint(value, 4, little);
            else if (count >= 1 && type == TIFF_LONG8 && value_width == 8) out->rows_per_strip = stack_tiff_raw_uint(value, 8, little);
            break;
        case TIFFTAG_STRIPOFFSETS: if (out->strip_offsets < 0) out->strip_offsets = n; break;
        case TIFFTAG_STRIPBYTECOUNTS: if (out->strip_byte_counts < 0) out->strip_byte_counts = n; break;
        case TIFFTAG_TILEOFFSETS: if (out->tile_offsets < 0) out->tile_offsets = n; break;
        case TIFFTAG_TILEBYTECOUNTS: if (out->tile_byte_counts < 0) out->tile_byte_counts = n; break;
        default: break;
        }
    }
    return 1;
}

// Checks the strip or tile geometry of the open directory against the
// image size, the way the TIFF specification defines it: as many offsets
// and byte counts as strips (or tiles) per plane times planes; for
// uncompressed data, every strip or tile at least as long as its rows
// (libtiff reads uncompressed data straight from the offset, whatever the
// byte count says, so a short one would bring in the bytes that follow);
// no strip or tile much larger than the image. Returns STACK_TIFF_OK or
// STACK_TIFF_UNSUPPORTED with a sentence. Exists because libtiff repairs such
// files silently and they then decode to shifted, mixed-up planes.
static int stack_tiff_check_geometry(TIFF *tif, const stack_tiff_io *io, const stack_tiff_layout *L,
                                     char *message, size_t message_size) {
    stack_tiff_raw_ifd raw;
    if (!stack_tiff_read_raw_ifd(io->input, io->input_size, &raw)) return STACK_TIFF_OK;
    const char *kind = L->tiled ? "tile" : "strip";
    uint64_t per_plane;
    if (L->tiled) {
        per_plane = (((uint64_t)L->width + L->chunk_width - 1) / L->chunk_width)
                  * (((uint64_t)L->height + L->chunk_height - 1) / L->chunk_height);
    } else {
        uint64_t rows = raw.rows_per_strip == 0 || raw.rows_per_strip > L->height ? L->height : raw.rows_per_strip;
        per_plane = ((uint64_t)L->height + rows - 1) / rows;
    }
    uint64_t expected = per_plane * (L->separate ? L->samples : 1);
    // libtiff takes either tag for either layout; use the one it would.
    int64_t offsets = L->tiled ? (raw.tile_offsets >= 0 ? raw.tile_offsets : raw.strip_offsets)
                               : (raw.strip_offsets >= 0 ? raw.strip_offsets : raw.tile_offsets);
    int64_t counts = L->tiled ? (raw.tile_byte_counts >= 0 ? raw.tile_byte_counts : raw.strip_byte_counts)
                              : (raw.strip_byte_counts >= 0 ? raw.strip_byte_counts : raw.tile_byte_counts);
    char text[200];
    if ((offsets >= 0 && (uint64_t)offsets != expected) || (counts >= 0 && (uint64_t)counts != expected)) {
        uint64_t found = offsets >= 0 && (uint64_t)offsets != expected ? (uint64_t)offsets : (uint64_t)counts;
        if (L->tiled) {
            snprintf(text, sizeof text, "corrupt TIFF data (%llu tile entries for a %ux%u image in %ux%u tiles%s: %llu expected)",
                     (unsigned long long)found, L->width, L->height, L->chunk_width, L->chunk_height,
                     L->separate ? ", separate planes" : "", (unsigned long long)expected);
        } else {
            snprintf(text, sizeof text, "corrupt TIFF data (%llu strip entries for %u rows at %llu rows per strip%s: %llu expected)",
                     (unsigned long long)found, L->height, (unsigned long long)raw.rows_per_strip,
                     L->separate ? ", separate planes" : "", (unsigned long long)expected);
        }
        return stack_tiff_unsupported(message, message_size, text);
    }
    uint64_t chunk_size = L->tiled ? TIFFTileSize64(tif) : TIFFStripSize64(tif);
    uint64_t image_size = (uint64_t)L->width * L->height * L->samples * (uint64_t)(L->bits / 8);
    if (chunk_size > image_size && chunk_size > ((uint64_t)16 << 20)) {
        snprintf(text, sizeof text, "corrupt TIFF data (a %ux%u %s for a %ux%u image)",
                 L->chunk_width, L->chunk_height, kind, L->width, L->height);
        return stack_tiff_unsupported(message, message_size, text);
    }
    uint16_t compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    if (compression != COMPRESSION_NONE) return STACK_TIFF_OK;
    // libtiff's own count after strip chopping (one strip of an uncompressed
    // image may have become several, with the byte counts to match); both
    // counts include every plane.
    uint32_t chunks = L->tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
    uint32_t lib_per_plane = L->separate && L->samples > 0 ? chunks / L->samples : chunks;
    for (uint32_t k = 0; k < chunks; k++) {
        uint64_t need = chunk_size;
        if (!L->tiled && lib_per_plane > 0) {
            uint64_t y0 = (uint64_t)(k % lib_per_plane) * L->chunk_height;
            uint64_t rows = y0 >= L->height ? 0 : L->height - y0;
            if (rows > L->chunk_height) rows = L->chunk_height;
            need = TIFFVStripSize64(tif, (uint32_t)rows);
        }
        uint64_t have = TIFFGetStrileByteCount(tif, k);
        if (have < need) {
            snprintf(text, sizeof text, "truncated TIFF data (uncompressed %s %u holds %llu of its %llu bytes)",
                     kind, k, (unsigned long long)have, (unsigned long long)need);
            return stack_tiff_unsupported(message, message_size, text);
        }
    }
    return STACK_TIFF_OK;
}

// Reads and checks the first directory's layout; exists so that decoding
// and the header-only path accept exactly the same files.
static int stack_tiff_read_layout(TIFF *tif, const stack_tiff_io *io, uint64_t max_pixels,
                                  stack_tiff_layout *L, char *message, size_t message_size) {
    memset(L, 0, sizeof *L);
    uint32_t width = 0, height = 0;
    uint16_t bits = 0, samples = 0, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG;
    uint16_t photometric = 0, compression = COMPRESSION_NONE;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height)
        || width == 0 || height == 0) {
        return stack_tiff_unsupported(message, message_size, "the TIFF header gives no image size");
    }
    L->width = width;
    L->height = height;
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) {
        photometric = samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    }
    int channels;
    switch (photometric) {
    case PHOTOMETRIC_MINISBLACK: channels = 1; break;
    case PHOTOMETRIC_RGB: channels = 3; break;
    case PHOTOMETRIC_YCBCR:
        if (compression == COMPRESSION_OJPEG) {
            // Old-style JPEG (TIFF 6.0 section 22): only libtiff's RGBA
            // interface turns its subsampled YCbCr into RGB.
            L->rgba = 1;
            channels = 3;
            break;
        }
        if (compression != COMPRESSION_JPEG) {
            return stack_tiff_unsupported(message, message_size, "YCbCr TIFF files are only supported with JPEG compression");
        }
        // libtiff's JPEG codec converts to RGB for us.
        if (!TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB)) {
            return stack_tiff_unsupported(message, message_size, "cannot convert this YCbCr TIFF to RGB");
        }
        channels = 3;
        break;
    case PHOTOMETRIC_PALETTE:
        return stack_tiff_unsupported(message, message_size, "palette (indexed colour) TIFF files are not supported");
    case PHOTOMETRIC_SEPARATED:
        return stack_tiff_unsupported(message, message_size, "CMYK TIFF files are not supported");
    case PHOTOMETRIC_MINISWHITE:
        return stack_tiff_unsupported(message, message_size, "min-is-white TIFF files are not supported");
    default: {
        char text[96];
        snprintf(text, sizeof text, "TIFF photometric interpretation %u is not supported", (unsigned)photometric);
        return stack_tiff_unsupported(message, message_size, text);
    }
    }
    if (channels == 1 ? (samples < 1 || samples > 2) : (samples < 3 || samples > 4)) {
        char text[96];
        snprintf(text, sizeof text, "%s TIFF with %u samples per pixel is not supported",
                 channels == 1 ? "a gray" : "an RGB", (unsigned)samples);
        return stack_tiff_unsupported(message, message_size, text);
    }
    int is_float = 0;
    if (format == SAMPLEFORMAT_IEEEFP) {
        if (bits != 32) {
            char text[96];
            snprintf(text, sizeof text, "%u-bit floating-point TIFF samples are not supported (only 32-bit)", (unsigned)bits);
            return stack_tiff_unsupported(message, message_size, text);
        }
        is_float = 1;
    } else if (format == SAMPLEFORMAT_INT) {
        return stack_tiff_unsupported(message, message_size, "signed integer TIFF samples are not supported");
    } else if (format != SAMPLEFORMAT_UINT) {
        return stack_tiff_unsupported(message, message_size, "complex or untyped TIFF samples are not supported");
    } else if (bits != 8 && bits != 16) {
        char text[96];
        snprintf(text, sizeof text, "%u-bit integer TIFF samples are not supported (only 8 and 16)", (unsigned)bits);
        return stack_tiff_unsupported(message, message_size, text);
    }
    if (planar != PLANARCONFIG_CONTIG && planar != PLANARCONFIG_SEPARATE) {
        return stack_tiff_unsupported(message, message_size, "unknown TIFF planar configuration");
    }
    if (L->rgba) {
        if (bits != 8 || samples != 3) {
            return stack_tiff_unsupported(message, message_size, "old-style JPEG TIFF files must have 3 samples of 8 bits");
        }
        L->chunk_width = width;
        L->chunk_height = height;
    }
    L->channels = channels;
    L->bits = bits;
    L->is_float = is_float;
    L->samples = samples;
    L->separate = planar == PLANARCONFIG_SEPARATE;
    L->tiled = TIFFIsTiled(tif);
    if (L->tiled) {
        uint32_t tw = 0, th = 0;
        if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &th)
            || tw == 0 || th == 0) {
            return stack_tiff_unsupported(message, message_size, "corrupt TIFF data (bad tile size)");
        }
        L->chunk_width = tw;
        L->chunk_height = th;
    } else {
        uint32_t rows = height;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
        L->chunk_width = width;
        L->chunk_height = rows == 0 || rows > height ? height : rows;
    }
    if ((uint64_t)width * (uint64_t)height > max_pixels) return STACK_TIFF_TOO_LARGE;
    if (L->rgba) return STACK_TIFF_OK;  // one whole-image read, no strip loop to check
    return stack_tiff_check_geometry(tif, io, L, message, message_size);
}

/// Releases a buffer returned by stack_tiff_decode or stack_tiff_encode.
/// Exists so Swift frees with the allocator that made the buffer.
static inline void stack_tiff_free(void *buffer) { free(buffer); }

// Sets up `io` to read `data` and collect the first error in `message`;
// exists so the header and decode paths start from the same state.
static void stack_tiff_reader(stack_tiff_io *io, const unsigned char *data, size_t size,
                              char *message, size_t message_size) {
    memset(io, 0, sizeof *io);
    io->input = data;
    io->input_size = size;
    io->message = message;
    io->message_size = message_size;
    if (message_size > 0) message[0] = '\0';
}

/// Reads the first directory of a TIFF held in memory and checks that we can
/// decode it (the same checks as stack_tiff_decode), without reading pixels.
/// STACK_TIFF_TOO_LARGE comes with the size in `out`.
static inline int stack_tiff_header(const unsigned char *data, size_t size, uint64_t max_pixels,
                                    stack_tiff_layout *out, char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    stack_tiff_io io;
    stack_tiff_reader(&io, data, size, message, message_size);
    TIFF *tif = stack_tiff_open(&io, "rm", (tmsize_t)64 << 20);
    if (tif == NULL) return STACK_TIFF_ERROR;
    int rc = stack_tiff_read_layout(tif, &io, max_pixels, out, message, message_size);
    TIFFClose(tif);
    return rc;
}

// Decodes an old-style-JPEG TIFF through libtiff's RGBA interface into
// three 8-bit planes, rows as stored: the requested orientation is the
// file's own, so libtiff flips nothing and the caller applies tag 274 as
// for every TIFF. Exists because libtiff's OJPEG codec hands out
// subsampled YCbCr, which only TIFFRGBAImage converts.
static int stack_tiff_decode_rgba(TIFF *tif, const stack_tiff_io *io, const stack_tiff_layout *L,
                                  stack_tiff_image *out, char *message, size_t message_size) {
    size_t n = (size_t)L->width * (size_t)L->height;
    uint32_t *raster = (uint32_t *)malloc(n * sizeof(uint32_t) + 1);
    unsigned char *pixels = (unsigned char *)malloc(n * 3 + 1);
    if (raster == NULL || pixels == NULL) { free(raster); free(pixels); return STACK_TIFF_NO_MEMORY; }
    uint16_t orientation = ORIENTATION_TOPLEFT;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    if (orientation < 1 || orientation > 8) orientation = ORIENTATION_TOPLEFT;
    // Its result alone decides (stop on the first error): libtiff also
    // reports harmless oddities of the directory (an unknown tag 0) as errors.
    if (!TIFFReadRGBAImageOriented(tif, L->width, L->height, raster, orientation, 1)) {
        free(raster); free(pixels);
        if (!io->failed && message_size > 0) snprintf(message, message_size, "corrupt old-style JPEG TIFF data");
        return STACK_TIFF_ERROR;
    }
    // libjpeg's only warning on intact files (as JPEGCodec accepts it).
    if (io->jpeg_warning[0] != '\0' && strstr(io->jpeg_warning, "extraneous bytes before marker") == NULL) {
        free(raster); free(pixels);
        if (message_size > 0) snprintf(message, message_size, "corrupt JPEG data in an old-style JPEG TIFF (%s)", io->jpeg_warning);
        return STACK_TIFF_ERROR;
    }
    for (size_t k = 0; k < n; k++) {
        pixels[k] = (unsigned char)TIFFGetR(raster[k]);
        pixels[n + k] = (unsigned char)TIFFGetG(raster[k]);
        pixels[2 * n + k] = (unsigned char)TIFFGetB(raster[k]);
    }
    free(raster);
    out->samples = pixels;
    return STACK_TIFF_OK;
}

/// Decodes the first image of a TIFF held in memory into planes (see
/// stack_tiff_image): strips or tiles, contiguous or separate planes, any
/// compression libtiff was built with; extra samples (alpha) are dropped.
/// Checks width × height against `max_pixels` before allocating pixels.
static inline int stack_tiff_decode(const unsigned char *data, size_t size, uint64_t max_pixels,
                                    stack_tiff_image *out, char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    stack_tiff_io io;
    stack_tiff_reader(&io, data, size, message, message_size);
    // No single libtiff allocation larger than the biggest image we accept
    // (4 samples × 4 bytes per pixel), so lying counts in a header cannot
    // make it allocate more than the pixels would need.
    uint64_t cap = max_pixels > (uint64_t)INT64_MAX / 16 ? (uint64_t)INT64_MAX : max_pixels * 16;
    if (cap < ((uint64_t)64 << 20)) cap = (uint64_t)64 << 20;
    TIFF *tif = stack_tiff_open(&io, "rm", (tmsize_t)cap);
    if (tif == NULL) return STACK_TIFF_ERROR;
    stack_tiff_layout L;
    int rc = stack_tiff_read_layout(tif, &io, max_pixels, &L, message, message_size);
    out->layout = L;
    if (rc != STACK_TIFF_OK) { TIFFClose(tif); return rc; }
    if (L.rgba) {
        rc = stack_tiff_decode_rgba(tif, &io, &L, out, message, message_size);
        TIFFClose(tif);
        return rc;
    }

    size_t bytes = (size_t)L.bits / 8;
    size_t n = (size_t)L.width * (size_t)L.height;
    uint64_t chunk_size = L.tiled ? TIFFTileSize64(tif) : TIFFStripSize64(tif);
    uint64_t stride = L.separate ? 1 : L.samples;  // samples per pixel inside a chunk
    uint64_t row_bytes = (uint64_t)L.chunk_width * stride * bytes;
    if (chunk_size == 0 || chunk_size > cap || row_bytes == 0
        || chunk_size < row_bytes || chunk_size / row_bytes < 1) {
        TIFFClose(tif);
        return stack_tiff_unsupported(message, message_size, "corrupt TIFF data (bad strip or tile size)");
    }
    unsigned char *pixels = (unsigned char *)malloc(n * (size_t)L.channels * bytes + 1);
    unsigned char *chunk = (unsigned char *)malloc((size_t)chunk_size);
    if (pixels == NULL || chunk == NULL) {
        free(pixels); free(chunk); TIFFClose(tif);
        return STACK_TIFF_NO_MEMORY;
    }
    uint32_t across = (L.width + L.chunk_width - 1) / L.chunk_width;
    uint32_t down = (L.height + L.chunk_height - 1) / L.chunk_height;
    uint64_t per_plane = (uint64_t)across * down;
    uint64_t planes = L.separate ? (uint64_t)L.channels : 1;  // alpha planes are never read
    for (uint64_t k = 0; k < per_plane * planes; k++) {
        uint32_t plane = (uint32_t)(k / per_plane);
        uint64_t index = k % per_plane;
        uint32_t x0 = (uint32_t)(index % across) * L.chunk_width;
        uint32_t y0 = (uint32_t)(index / across) * L.chunk_height;
        // Separate planes are stored one after another: plane p's chunks follow all of plane p-1's.
        uint32_t number = (uint32_t)(plane * per_plane + index);
        tmsize_t got = L.tiled ? TIFFReadEncodedTile(tif, number, chunk, (tmsize_t)chunk_size)
                               : TIFFReadEncodedStrip(tif, number, chunk, (tmsize_t)chunk_size);
        uint32_t cols = L.width - x0 < L.chunk_width ? L.width - x0 : L.chunk_width;
        uint32_t rows = L.height - y0 < L.chunk_height ? L.height - y0 : L.chunk_height;
        if (got < 0 || io.failed || (uint64_t)got < (uint64_t)(rows - 1) * row_bytes + (uint64_t)cols * stride * bytes) {
            free(pixels); free(chunk); TIFFClose(tif);
            if (message_size > 0 && message[0] == '\0') snprintf(message, message_size, "truncated TIFF data");
            return STACK_TIFF_ERROR;
        }
        int first = L.separate ? (int)plane : 0;
        int last = L.separate ? (int)plane : L.channels - 1;
        for (uint32_t y = 0; y < rows; y++) {
            const unsigned char *src = chunk + (size_t)y * (size_t)row_bytes;
            for (int c = first; c <= last; c++) {
                unsigned char *dst = pixels + ((size_t)c * n + (size_t)(y0 + y) * L.width + x0) * bytes;
                size_t offset = L.separate ? 0 : (size_t)c * bytes;
                size_t step = (size_t)stride * bytes;
                const unsigned char *from = src + offset;
                // One case per sample size, so each memcpy has a constant length and compiles to a move.
                if (stride == 1) {
                    memcpy(dst, from, (size_t)cols * bytes);
                } else if (bytes == 1) {
                    for (uint32_t x = 0; x < cols; x++) dst[x] = from[x * step];
                } else if (bytes == 2) {
                    for (uint32_t x = 0; x < cols; x++) memcpy(dst + (size_t)x * 2, from + x * step, 2);
                } else {
                    for (uint32_t x = 0; x < cols; x++) memcpy(dst + (size_t)x * 4, from + x * step, 4);
                }
            }
        }
    }
    free(chunk);
    TIFFClose(tif);
    out->samples = pixels;
    return STACK_TIFF_OK;
}

/// What a TIFF output carries beside its pixels. Every pointer may be NULL
/// (absent); strings are NUL-terminated; numbers below 0 are absent.
/// The EXIF fields are the ones `stack_tiff_encode` writes: the ASCII ones
/// of the main directory, and an EXIF directory (TIFFTAG_EXIFIFD) holding
/// the rest, written only when one of them is present.
typedef struct stack_tiff_metadata {
    const unsigned char *icc; uint32_t icc_size;    // tag 34675
    const unsigned char *xmp; uint32_t xmp_size;    // tag 700
    const unsigned char *iptc; uint32_t iptc_size;  // tag 33723
    // Main directory.
    const char *make, *model, *date_time, *artist, *copyright;
    // EXIF directory.
    double exposure_time, f_number, exposure_bias, focal_length;  // exposure_bias: NaN when absent
    int iso, focal_length_35mm, exposure_program, flash;
    int pixel_x, pixel_y;
    const char *date_time_original, *date_time_digitized, *lens_make, *lens_model, *body_serial;
} stack_tiff_metadata;

/// Sets the main directory's metadata tags of `m`; 1 on success.
static inline int stack_tiff_set_main_metadata(TIFF *tif, const stack_tiff_metadata *m) {
    int ok = 1;
    if (m->icc != NULL && m->icc_size > 0) ok = ok && TIFFSetField(tif, TIFFTAG_ICCPROFILE, m->icc_size, m->icc);
    if (m->xmp != NULL && m->xmp_size > 0) ok = ok && TIFFSetField(tif, TIFFTAG_XMLPACKET, m->xmp_size, m->xmp);
    // libtiff 4.5 types RichTIFFIPTC as UNDEFINED: the count is in bytes.
    if (m->iptc != NULL && m->iptc_size > 0) ok = ok && TIFFSetField(tif, TIFFTAG_RICHTIFFIPTC, m->iptc_size, m->iptc);
    if (m->make != NULL) ok = ok && TIFFSetField(tif, TIFFTAG_MAKE, m->make);
    if (m->model != NULL) ok = ok && TIFFSetField(tif, TIFFTAG_MODEL, m->model);
    if (m->date_time != NULL) ok = ok && TIFFSetField(tif, TIFFTAG_DATETIME, m->date_time);
    if (m->artist != NULL) ok = ok && TIFFSetField(tif, TIFFTAG_ARTIST, m->artist);
    if (m->copyright != NULL) ok = ok && TIFFSetField(tif, TIFFTAG_COPYRIGHT, m->copyright);
    return ok;
}

/// True when `m` has a field that belongs in the EXIF directory.
static inline int stack_tiff_has_exif_directory(const stack_tiff_metadata *m) {
    return m->exposure_time >= 0 || m->f_number >= 0 || m->exposure_bias == m->exposure_bias
        || m->focal_length >= 0 || m->iso >= 0 || m->focal_length_35mm >= 0 || m->exposure_program >= 0
        || m->flash >= 0 || m->pixel_x >= 0 || m->pixel_y >= 0 || m->date_time_original != NULL
        || m->date_time_digitized != NULL || m->lens_make != NULL || m->lens_model != NULL || m->body_serial != NULL;
}

/// Writes `m`'s EXIF fields as a custom EXIF directory and returns its
/// offset in `*offset` (1 on success). Leaves `tif` on that custom
/// directory: the caller starts the image's directory afresh.
static inline int stack_tiff_write_exif_directory(TIFF *tif, const stack_tiff_metadata *m, uint64_t *offset) {
    if (TIFFCreateEXIFDirectory(tif) != 0) return 0;  // 0 is success
    int ok = 1;
    // libtiff 4.5 takes EXIF rationals as double and SHORT arrays as (count, uint16_t *).
    if (m->exposure_time >= 0) ok = ok && TIFFSetField(tif, EXIFTAG_EXPOSURETIME, m->exposure_time);
    if (m->f_number >= 0) ok = ok && TIFFSetField(tif, EXIFTAG_FNUMBER, m->f_number);
    if (m->exposure_bias == m->exposure_bias) ok = ok && TIFFSetField(tif, EXIFTAG_EXPOSUREBIASVALUE, m->exposure_bias);
    if (m->focal_length >= 0) ok = ok && TIFFSetField(tif, EXIFTAG_FOCALLENGTH, m->focal_length);
    if (m->iso >= 0) {
        uint16_t iso = (uint16_t)(m->iso > 65535 ? 65535 : m->iso);
        ok = ok && TIFFSetField(tif, EXIFTAG_ISOSPEEDRATINGS, (uint16_t)1, &iso);
    }
    if (m->focal_length_35mm >= 0) ok = ok && TIFFSetField(tif, EXIFTAG_FOCALLENGTHIN35MMFILM, (uint16_t)m->focal_length_35mm);
    if (m->exposure_program >= 0) ok = ok && TIFFSetField(tif, EXIFTAG_EXPOSUREPROGRAM, (uint16_t)m->exposure_program);
    if (m->flash >= 0) ok = ok && TIFFSetField(tif, EXIFTAG_FLASH, (uint16_t)m->flash);
    if (m->pixel_x >= 0) ok = ok && TIFFSetField(tif, EXIFTAG_PIXELXDIMENSION, (uint32_t)m->pixel_x);
    if (m->pixel_y >= 0) ok = ok && TIFFSetField(tif, EXIFTAG_PIXELYDIMENSION, (uint32_t)m->pixel_y);
    if (m->date_time_original != NULL) ok = ok && TIFFSetField(tif, EXIFTAG_DATETIMEORIGINAL, m->date_time_original);
    if (m->date_time_digitized != NULL) ok = ok && TIFFSetField(tif, EXIFTAG_DATETIMEDIGITIZED, m->date_time_digitized);
    if (m->lens_make != NULL) ok = ok && TIFFSetField(tif, EXIFTAG_LENSMAKE, m->lens_make);
    if (m->lens_model != NULL) ok = ok && TIFFSetField(tif, EXIFTAG_LENSMODEL, m->lens_model);
    if (m->body_serial != NULL) ok = ok && TIFFSetField(tif, EXIFTAG_BODYSERIALNUMBER, m->body_serial);
    return ok && TIFFWriteCustomDirectory(tif, offset);
}

/// Encodes interleaved samples (`channels` 1 = gray or 3 = RGB; `bits` 8 or
/// 16 unsigned, or 32 = float; native byte order) as a contiguous,
/// deflate-compressed TIFF in memory (horizontal predictor for integers,
/// floating-point predictor for floats), strips of about 256 KiB. On success
/// `*out` holds a malloc'd buffer of `*out_size` bytes (stack_tiff_free).
static inline int stack_tiff_encode(const void *samples, uint32_t width, uint32_t height,
                                    int channels, int bits, const stack_tiff_metadata *metadata,
                                    unsigned char **out, size_t *out_size,
                                    char *message, size_t message_size) {
    *out = NULL;
    *out_size = 0;
    if (message_size > 0) message[0] = '\0';
    stack_tiff_io io;
    memset(&io, 0, sizeof io);
    io.message = message;
    io.message_size = message_size;
    size_t bytes = (size_t)bits / 8;
    size_t row_bytes = (size_t)width * (size_t)channels * bytes;
    uint64_t total = (uint64_t)row_bytes * height;
    // Classic TIFF offsets are 32-bit: BigTIFF above 3.5 GB of samples.
    TIFF *tif = stack_tiff_open(&io, total > 3500000000ull ? "w8" : "w", 0);
    if (tif == NULL) {
        free(io.output);
        return STACK_TIFF_ERROR;
    }
    uint32_t rows = (uint32_t)((256u << 10) / (row_bytes > 0 ? row_bytes : 1));
    if (rows < 1) rows = 1;
    if (rows > height) rows = height;
    // The EXIF directory goes first (before any strip), then the image's
    // directory is started afresh and points at it.
    uint64_t exif_offset = 0;
    int ok = 1;
    if (metadata != NULL && stack_tiff_has_exif_directory(metadata)) {
        ok = stack_tiff_write_exif_directory(tif, metadata, &exif_offset);
        TIFFFreeDirectory(tif);
        ok = ok && TIFFCreateDirectory(tif) == 0;
    }
    ok = ok && (metadata == NULL || stack_tiff_set_main_metadata(tif, metadata))
          && (exif_offset == 0 || TIFFSetField(tif, TIFFTAG_EXIFIFD, exif_offset))
          && TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width)
          && TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height)
          && TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)bits)
          && TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)channels)
          && TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, (uint16_t)(bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT))
          && TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, (uint16_t)(channels == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB))
          && TIFFSetField(tif, TIFFTAG_PLANARCONFIG, (uint16_t)PLANARCONFIG_CONTIG)
          && TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)ORIENTATION_TOPLEFT)
          && TIFFSetField(tif, TIFFTAG_COMPRESSION, (uint16_t)COMPRESSION_ADOBE_DEFLATE)
          && TIFFSetField(tif, TIFFTAG_PREDICTOR, (uint16_t)(bits == 32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL))
          && TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows)
          && TIFFSetField(tif, TIFFTAG_SOFTWARE, "stack");
    // libtiff's predictors work in place: hand it a scratch copy of each strip.
    unsigned char *scratch = ok ? (unsigned char *)malloc(row_bytes * rows + 1) : NULL;
    if (ok && scratch == NULL) {
        TIFFClose(tif);
        free(io.output);
        return STACK_TIFF_NO_MEMORY;
    }
    for (uint32_t y = 0, strip = 0; ok && y < height; y += rows, strip++) {
        uint32_t n = height - y < rows ? height - y : rows;
        memcpy(scratch, (const unsigned char *)samples + (size_t)y * row_bytes, row_bytes * n);
        ok = TIFFWriteEncodedStrip(tif, strip, scratch, (tmsize_t)(row_bytes * n)) >= 0;
    }
    free(scratch);
    ok = ok && TIFFWriteDirectory(tif);
    TIFFClose(tif);
    if (!ok || io.failed) {
        if (message_size > 0 && message[0] == '\0') snprintf(message, message_size, "libtiff could not write the file");
        free(io.output);
        return STACK_TIFF_ERROR;
    }
    *out = io.output;
    *out_size = io.output_size;
    return STACK_TIFF_OK;
}

#endif // STACK_CTIFF_SHIM_H
