// cfitsio 4.2 (Debian 12: libcfitsio-dev), wrapped for Swift.
//
// cfitsio reports errors through an `int *status` (no longjmp), so the
// wrappers here are thin. Why they exist at all:
// - Its in-memory driver (ffomem / ffimem) keeps pointers to the caller's
//   buffer pointer and size until the file is closed; the struct below owns
//   them for exactly that long, so Swift never hands out an interior pointer.
// - Encoding grows the buffer through a realloc callback, which must be a C
//   function.
// - Keyword values and comments come back in fixed-size char arrays
//   (FLEN_VALUE / FLEN_COMMENT); the wrappers take the caller's buffers.
// - cfitsio is loaded only when a FITS file is first met (stack_fits_load):
//   linked at start-up it pulled in libcurl, GnuTLS, Kerberos and LDAP, and
//   the dynamic loader took 23 ms before main instead of 14 ms, for every
//   run, FITS or not. Its functions are called through `stack_fits_api`.
// Swift calls only the `stack_fits_…` functions, and stack_fits_load first.
#ifndef STACK_CFITSIO_SHIM_H
#define STACK_CFITSIO_SHIM_H

#include <dlfcn.h>
#include <fitsio.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// The cfitsio functions the wrappers call, looked up by stack_fits_load.
typedef struct stack_fits_api {
    __typeof__(&fits_is_reentrant) is_reentrant;
    __typeof__(&ffgerr) gerr;
    __typeof__(&ffomem) omem;
    __typeof__(&ffdkopn) dkopn;
    __typeof__(&ffimem) imem;
    __typeof__(&ffclos) clos;
    __typeof__(&ffflus) flus;
    __typeof__(&ffgiprll) giprll;
    __typeof__(&ffghadll) ghadll;
    __typeof__(&ffgpv) gpv;
    __typeof__(&ffgkey) gkey;
    __typeof__(&ffdtyp) dtyp;
    __typeof__(&ffcrimll) crimll;
    __typeof__(&ffprec) prec;
    __typeof__(&ffppr) ppr;
    __typeof__(&ffmahd) mahd;
    __typeof__(&fits_is_compressed_image) is_compressed;
} stack_fits_api;

// The table and the load state are defined once, in loader.c (a
// header-only module's statics would be copied into every module that
// inlines them, and a copy other than the loaded one would be empty).
extern stack_fits_api stack_fits_functions;
#define stack_fits_fn stack_fits_functions

/// Loads cfitsio once (from any thread): 1 when it and every function the
/// wrappers call were found, else 0, and then no other stack_fits_ function
/// may be called.
int stack_fits_load(void);

/// Sizes of the text buffers the keyword functions fill (with their NUL).
enum {
    STACK_FITS_VALUE_SIZE = FLEN_VALUE,
    STACK_FITS_COMMENT_SIZE = FLEN_COMMENT,
    STACK_FITS_STATUS_SIZE = FLEN_STATUS,
    STACK_FITS_KEY_MISSING = KEY_NO_EXIST
};

/// One open in-memory FITS file and the buffer cfitsio works on.
typedef struct stack_fits_file {
    fitsfile *fits;
    void *buffer;     // decode: the caller's bytes (read-only); encode: malloc'd, grown by cfitsio
    size_t size;      // buffer size in bytes
} stack_fits_file;

/// 1 when this cfitsio build is thread-safe (built with _REENTRANT), else 0.
/// The corresponding C function is `fits_is_reentrant`.
static inline int stack_fits_is_reentrant(void) { return stack_fits_fn.is_reentrant(); }

/// The one-line text for a cfitsio status code (at most FLEN_STATUS - 1 characters).
/// The corresponding C function is `fits_get_errstatus` (ffgerr).
static inline void stack_fits_status_text(int status, char *text) { stack_fits_fn.gerr(status, text); }

/// Opens FITS bytes held in memory, read-only, at the primary HDU. The bytes
/// must stay alive and unchanged until stack_fits_close, and `size` must be a
/// multiple of 2880: the memory driver reads whole records and would read
/// past a shorter buffer. On failure returns NULL and sets *status.
static inline stack_fits_file *stack_fits_open(const unsigned char *data, size_t size, int *status) {
    stack_fits_file *file = (stack_fits_file *)calloc(1, sizeof *file);
    if (file == NULL) { *status = MEMORY_ALLOCATION; return NULL; }
    file->buffer = (void *)data;  // READONLY: cfitsio never writes to it
    file->size = size;
    // The name only labels the file inside cfitsio; no extended-filename syntax in it.
    if (stack_fits_fn.omem(&file->fits, "memory.fits", READONLY, &file->buffer, &file->size, 0, NULL, status) != 0) {
        if (file->fits != NULL) { int ignored = 0; stack_fits_fn.clos(file->fits, &ignored); }
        free(file);
        return NULL;
    }
    return file;
}

/// Opens the FITS file at `path` on disk, read-only, at the primary HDU, as
/// a plain file name (no extended-filename syntax: `[`, `#` or `+` are part
/// of the name). cfitsio then reads only the 2880-byte records each call
/// needs, so one plane of a cube costs about that plane's bytes, not the
/// whole file's. The caller has checked that `path` is a regular file (a
/// named pipe would block the open). On failure returns NULL and sets *status.
/// The corresponding C function is `fits_open_diskfile` (ffdkopn).
static inline stack_fits_file *stack_fits_open_path(const char *path, int *status) {
    stack_fits_file *file = (stack_fits_file *)calloc(1, sizeof *file);
    if (file == NULL) { *status = MEMORY_ALLOCATION; return NULL; }
    if (stack_fits_fn.dkopn(&file->fits, path, READONLY, status) != 0) {
        if (file->fits != NULL) { int ignored = 0; stack_fits_fn.clos(file->fits, &ignored); }
        free(file);
        return NULL;
    }
    return file;
}

/// Closes a file from stack_fits_open (decode) or one abandoned after
/// stack_fits_create (its buffer is freed too). NULL is allowed.
static inline void stack_fits_close(stack_fits_file *file, int owns_buffer) {
    if (file == NULL) return;
    int ignored = 0;
    if (file->fits != NULL) stack_fits_fn.clos(file->fits, &ignored);
    if (owns_buffer) free(file->buffer);
    free(file);
}

/// Makes HDU `number` (1 = the primary) the current one and says its type
/// (0 image, 1 ASCII table, 2 binary table); a tile-compressed image, stored
/// as a binary table, counts as an image. Past the last HDU *status is
/// END_OF_FILE (107).
/// The corresponding C function is `fits_movabs_hdu` (ffmahd).
static inline int stack_fits_move_to_hdu(stack_fits_file *file, int number, int *type, int *status) {
    *type = -1;
    return stack_fits_fn.mahd(file->fits, number, type, status);
}

/// 1 when the current HDU is a tile-compressed image (its pixels are
/// decompressed by cfitsio's reader; its data unit is a table), else 0.
/// The corresponding C function is `fits_is_compressed_image`.
static inline int stack_fits_is_compressed(stack_fits_file *file, int *status) {
    return stack_fits_fn.is_compressed(file->fits, status);
}

/// The current HDU's image BITPIX, NAXIS and up to three axis lengths.
/// The corresponding C function is `fits_get_img_paramll` (ffgiprll).
static inline int stack_fits_image_shape(stack_fits_file *file, int *bitpix, int *naxis,
                                         long long axes[3], int *status) {
    axes[0] = axes[1] = axes[2] = 0;
    return stack_fits_fn.giprll(file->fits, 3, bitpix, naxis, axes, status);
}

/// The byte offset where the current HDU's data unit starts.
/// The corresponding C function is `fits_get_hduaddrll` (ffghadll).
static inline int stack_fits_data_start(stack_fits_file *file, long long *start, int *status) {
    long long header_start = 0, data_end = 0;
    return stack_fits_fn.ghadll(file->fits, &header_start, start, &data_end, status);
}

/// Reads `count` pixels of the current HDU's image as float, from pixel
/// `first` (0-based, in storage order: a cube's plane k starts at
/// k * NAXIS1 * NAXIS2), with BZERO / BSCALE applied; undefined pixels
/// (NaN, BLANK) become 0.
/// The corresponding C function is `fits_read_img` (ffgpv, TFLOAT).
static inline int stack_fits_read_floats(stack_fits_file *file, long long first, long long count,
                                         float *out, int *status) {
    float null_value = 0;
    int any_null = 0;
    return stack_fits_fn.gpv(file->fits, TFLOAT, first + 1, count, &null_value, out, &any_null, status);
}

// Exists because cfitsio's own unquoting (ffc2s) is not in its public
// header: 'it''s  ' becomes `it's` (quotes removed, '' un-doubled, trailing
// blanks dropped, as the FITS standard says they are not significant).
static void stack_fits_unquote(const char *raw, char *value) {
    size_t n = 0;
    const char *p = raw[0] == '\'' ? raw + 1 : raw;
    for (; *p != '\0' && n < FLEN_VALUE - 1; p++) {
        if (*p == '\'') {
            if (p[1] == '\'') { value[n++] = '\''; p++; continue; }
            break;
        }
        value[n++] = *p;
    }
    while (n > 0 && value[n - 1] == ' ') n--;
    value[n] = '\0';
}

/// Looks `name` up in the current header. On success fills `value` (string
/// values without their quotes), `comment` and `kind` ('C' string,
/// 'L' logical, 'I' integer, 'F' float, 'X' complex) and returns 0;
/// a missing keyword returns STACK_FITS_KEY_MISSING and leaves *status alone.
static inline int stack_fits_read_keyword(stack_fits_file *file, const char *name, char *value,
                                          char *comment, char *kind, int *status) {
    char raw[FLEN_VALUE];
    int local = 0;
    value[0] = comment[0] = '\0';
    *kind = 'C';
    if (stack_fits_fn.gkey(file->fits, name, raw, comment, &local) != 0) {
        if (local == KEY_NO_EXIST) return STACK_FITS_KEY_MISSING;
        *status = local;
        return local;
    }
    if (raw[0] == '\0') { *kind = 'U'; return 0; }  // keyword without a value
    if (stack_fits_fn.dtyp(raw, kind, &local) != 0) { *status = local; return local; }
    if (*kind == 'C') {
        stack_fits_unquote(raw, value);
    } else {
        strncpy(value, raw, FLEN_VALUE - 1);
        value[FLEN_VALUE - 1] = '\0';
    }
    return 0;
}

// Exists because cfitsio grows the in-memory output through a realloc callback.
static void *stack_fits_realloc(void *pointer, size_t size) { return realloc(pointer, size); }

/// Creates an empty in-memory FITS file for writing, with room for
/// `expected_size` bytes. NULL and *status on failure.
/// cfitsio grows a memory file by a fixed step (copying it each time, since
/// large blocks are not mmap'd here: see MemoryTuning), so the buffer is sized
/// for the whole file up front and the step is an eighth of that.
/// The corresponding C function is `fits_create_memfile` (ffimem).
static inline stack_fits_file *stack_fits_create(size_t expected_size, int *status) {
    stack_fits_file *file = (stack_fits_file *)calloc(1, sizeof *file);
    if (file == NULL) { *status = MEMORY_ALLOCATION; return NULL; }
    size_t records = expected_size / 2880 + 4;
    file->size = records * 2880;
    file->buffer = malloc(file->size);
    if (file->buffer == NULL) { free(file); *status = MEMORY_ALLOCATION; return NULL; }
    size_t step = (records / 8 + 64) * 2880;
    if (stack_fits_fn.imem(&file->fits, &file->buffer, &file->size, step, stack_fits_realloc, status) != 0) {
        stack_fits_close(file, 1);
        return NULL;
    }
    return file;
}

/// Writes the primary header for an image of `bitpix` (8, 16 or -32) with
/// `naxis` 2 or 3 axes. For 16 it writes BITPIX 16 with BZERO 32768 (the FITS
/// convention for unsigned 16-bit; cfitsio's USHORT_IMG).
/// The corresponding C function is `fits_create_imgll` (ffcrimll).
static inline int stack_fits_create_image(stack_fits_file *file, int bitpix, int naxis,
                                          long long axes[3], int *status) {
    int type = bitpix == 16 ? USHORT_IMG : bitpix;
    return stack_fits_fn.crimll(file->fits, type, naxis, axes, status);
}

/// Appends one 80-character header card (already formatted) after checking
/// it holds only legal characters. The corresponding C function is
/// `fits_write_record` (ffprec).
static inline int stack_fits_write_card(stack_fits_file *file, const char *card, int *status) {
    return stack_fits_fn.prec(file->fits, card, status);
}

/// Writes `count` samples from the first pixel on: `kind` 1 = uint8,
/// 2 = uint16 (stored with BZERO 32768), 4 = float.
/// The corresponding C function is `fits_write_img` (ffppr).
static inline int stack_fits_write_pixels(stack_fits_file *file, int kind, const void *samples,
                                          long long count, int *status) {
    int type = kind == 1 ? TBYTE : (kind == 2 ? TUSHORT : TFLOAT);
    return stack_fits_fn.ppr(file->fits, type, 1, count, (void *)samples, status);
}

/// Closes a file from stack_fits_create and hands out its bytes: on success
/// *out is a malloc'd buffer of *out_size bytes (release with stack_fits_free).
static inline int stack_fits_finish(stack_fits_file *file, unsigned char **out, size_t *out_size, int *status) {
    *out = NULL;
    *out_size = 0;
    // The memory driver leaves `size` at the allocated length, which grows
    // in steps: the file ends where the primary HDU's padded data unit ends.
    long long header_start = 0, data_start = 0, data_end = 0;
    stack_fits_fn.flus(file->fits, status);
    stack_fits_fn.ghadll(file->fits, &header_start, &data_start, &data_end, status);
    stack_fits_fn.clos(file->fits, status);
    file->fits = NULL;
    if (*status != 0) {
        stack_fits_close(file, 1);
        return *status;
    }
    if (data_end <= 0 || (unsigned long long)data_end > file->size || data_end % 2880 != 0) {
        *status = BAD_FILEPTR;
        stack_fits_close(file, 1);
        return *status;
    }
    *out = (unsigned char *)file->buffer;
    *out_size = (size_t)data_end;
    free(file);
    return 0;
}

/// Releases a buffer from stack_fits_finish. Exists so Swift frees with the
/// allocator that made it.
static inline void stack_fits_free(void *buffer) { free(buffer); }

#endif // STACK_CFITSIO_SHIM_H
