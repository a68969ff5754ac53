// LibRaw 0.20 (Debian 12: libraw-dev), wrapped for Swift; the thread-safe
// build (libraw_r), since frames are decoded on several threads at once,
// one handle each.
//
// Why the wrappers exist:
// - libraw_data_t is a large struct of nested fixed arrays; Swift reads the
//   few facts it needs from one flat struct (stack_raw_facts) instead.
// - LibRaw's default data and memory error callbacks print to stderr; the
//   handles opened here carry silent ones, so a damaged file gives one
//   error line from stack, not LibRaw's chatter.
// - The CFA colour of a pixel (LibRaw::COLOR) is an inline C++ method; the
//   C entry point libraw_COLOR is called through here with the visible
//   area's coordinates.
// - Copying the visible area of the mosaic (raw_image with its margins and
//   row pitch) into a caller's buffer keeps the pointer walk in C.
// - LibRaw is loaded only when a raw file is first met (stack_raw_load), as
//   cfitsio is: linked at start-up, it and what it pulls in (libgomp,
//   liblcms2, libjpeg, libstdc++) cost every run about 8 ms before main,
//   raw or not. Its functions are called through `stack_raw_api`.
// Swift calls only the `stack_raw_…` functions, and stack_raw_load first.
#ifndef STACK_CLIBRAW_SHIM_H
#define STACK_CLIBRAW_SHIM_H

#include <dlfcn.h>
#include <libraw/libraw.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

/// The LibRaw functions the wrappers call, looked up by stack_raw_load.
typedef struct stack_raw_api {
    __typeof__(&libraw_init) init;
    __typeof__(&libraw_set_dataerror_handler) set_dataerror_handler;
    __typeof__(&libraw_set_memerror_handler) set_memerror_handler;
    __typeof__(&libraw_open_buffer) open_buffer;
    __typeof__(&libraw_close) close;
    __typeof__(&libraw_strerror) strerror;
    __typeof__(&libraw_unpack) unpack;
    __typeof__(&libraw_COLOR) color;
    __typeof__(&libraw_dcraw_process) dcraw_process;
    __typeof__(&libraw_dcraw_make_mem_image) make_mem_image;
    __typeof__(&libraw_dcraw_clear_mem) clear_mem;
} stack_raw_api;

// The table and the load state are defined once, in loader.c (a
// header-only module's statics would be copied into every module that
// inlines them, and a copy other than the loaded one would be empty).
extern stack_raw_api stack_raw_functions;
#define stack_raw_fn stack_raw_functions

/// Loads LibRaw once (from any thread): 1 when it and every function the
/// wrappers call were found, else 0, and then no other stack_raw_ function
/// may be called. Only the release this header describes is accepted
/// (libraw_versionNumber() == LIBRAW_VERSION), since the wrappers read
/// libraw_data_t's fields.
int stack_raw_load(void);

/// The facts about an opened raw file that Swift reads.
typedef struct stack_raw_facts {
    int raw_width, raw_height;        // the stored sensor area, margins included
    int width, height;                // the visible area, before orientation
    int top_margin, left_margin;      // where the visible area starts in raw_image
    int flip;                         // dcraw's orientation: bit 4 transpose, 2 flip rows, 1 flip columns
    unsigned filters;                 // 0 no CFA, 1 Leaf, 9 X-Trans (6 x 6), > 999 a Bayer-like pattern
    int colors;                       // colour channels of the sensor (3, or 4 for CMYG and the like)
    char cdesc[5];                    // the channels' letters ("RGBG": colour 3 is the second green)
    char make[64], model[64];
    float iso, shutter;               // ISO speed; shutter in seconds
    long long timestamp;              // capture time, seconds since 1970 (0 when unknown)
    unsigned black;                   // the black level common to every pixel
    unsigned cblack[4];               // plus this per colour (by COLOR index)
    unsigned cblack_rows, cblack_cols;// plus a repeating pattern of this size (0 when none) …
    unsigned cblack_pattern[64];      // … stored row by row (only the first 64 values are copied)
    unsigned maximum;                 // the white level (black included)
    float cam_mul[4];                 // as-shot white balance multipliers, by COLOR index
    float rgb_cam[3][4];              // camera colour to linear sRGB, rows R, G, B
    int has_mosaic;                   // 1 when unpack gave a one-sample-per-pixel raw_image
} stack_raw_facts;

// Exists because LibRaw's defaults print to stderr.
static void stack_raw_quiet_data_error(void *data, const char *file, const int offset) {
    (void)file; (void)offset;
    if (data != NULL) *(int *)data = 1;
}
static void stack_raw_quiet_memory_error(void *data, const char *file, const char *where) {
    (void)data; (void)file; (void)where;
}

/// One LibRaw handle and the flag its data-error callback sets.
typedef struct stack_raw_handle {
    libraw_data_t *raw;
    int data_error;  // 1 once LibRaw met damaged or missing data
} stack_raw_handle;

/// Opens raw file bytes held in memory (not copied: they must stay alive
/// until stack_raw_close) and identifies them (no pixels are decoded).
/// Returns NULL only when no handle could be made; otherwise *error is
/// LibRaw's code (0 success) and the handle must be closed either way.
/// The corresponding C functions are `libraw_init` and `libraw_open_buffer`.
static inline stack_raw_handle *stack_raw_open(const unsigned char *data, size_t size, int *error) {
    stack_raw_handle *handle = (stack_raw_handle *)calloc(1, sizeof *handle);
    if (handle == NULL) { *error = LIBRAW_UNSUFFICIENT_MEMORY; return NULL; }
    handle->raw = stack_raw_fn.init(0);
    if (handle->raw == NULL) { free(handle); *error = LIBRAW_UNSUFFICIENT_MEMORY; return NULL; }
    stack_raw_fn.set_dataerror_handler(handle->raw, stack_raw_quiet_data_error, &handle->data_error);
    stack_raw_fn.set_memerror_handler(handle->raw, stack_raw_quiet_memory_error, NULL);
    *error = stack_raw_fn.open_buffer(handle->raw, (void *)data, size);
    return handle;
}

/// Frees a handle from stack_raw_open (NULL allowed).
/// The corresponding C function is `libraw_close`.
static inline void stack_raw_close(stack_raw_handle *handle) {
    if (handle == NULL) return;
    stack_raw_fn.close(handle->raw);
    free(handle);
}

/// 1 when LibRaw reported damaged or missing data since the handle was opened.
static inline int stack_raw_data_error(const stack_raw_handle *handle) { return handle->data_error; }

/// LibRaw's sentence for an error code. The corresponding C function is `libraw_strerror`.
static inline const char *stack_raw_error_text(int error) { return stack_raw_fn.strerror(error); }

/// Reads the sensor data. The corresponding C function is `libraw_unpack`.
static inline int stack_raw_unpack(stack_raw_handle *handle) { return stack_raw_fn.unpack(handle->raw); }

/// The colour index (0…3; see cdesc) of the visible pixel (col, row).
/// The corresponding C function is `libraw_COLOR`.
static inline int stack_raw_color(stack_raw_handle *handle, int row, int col) {
    return stack_raw_fn.color(handle->raw, row, col);
}

/// Fills *facts from an opened (and, for black levels and has_mosaic,
/// unpacked) handle.
static inline void stack_raw_read_facts(const stack_raw_handle *handle, stack_raw_facts *facts) {
    const libraw_data_t *r = handle->raw;
    memset(facts, 0, sizeof *facts);
    facts->raw_width = r->sizes.raw_width;
    facts->raw_height = r->sizes.raw_height;
    facts->width = r->sizes.width;
    facts->height = r->sizes.height;
    facts->top_margin = r->sizes.top_margin;
    facts->left_margin = r->sizes.left_margin;
    facts->flip = r->sizes.flip;
    facts->filters = r->idata.filters;
    facts->colors = r->idata.colors;
    memcpy(facts->cdesc, r->idata.cdesc, sizeof facts->cdesc);
    facts->cdesc[4] = '\0';
    strncpy(facts->make, r->idata.make, sizeof facts->make - 1);
    strncpy(facts->model, r->idata.model, sizeof facts->model - 1);
    facts->iso = r->other.iso_speed;
    facts->shutter = r->other.shutter;
    facts->timestamp = (long long)r->other.timestamp;
    facts->black = r->color.black;
    for (int c = 0; c < 4; c++) facts->cblack[c] = r->color.cblack[c];
    unsigned rows = r->color.cblack[4], cols = r->color.cblack[5];
    if (rows > 0 && cols > 0 && rows * cols <= 64) {
        facts->cblack_rows = rows;
        facts->cblack_cols = cols;
        for (unsigned i = 0; i < rows * cols; i++) facts->cblack_pattern[i] = r->color.cblack[6 + i];
    }
    facts->maximum = r->color.maximum;
    for (int c = 0; c < 4; c++) facts->cam_mul[c] = r->color.cam_mul[c];
    for (int i = 0; i < 3; i++) for (int c = 0; c < 4; c++) facts->rgb_cam[i][c] = r->color.rgb_cam[i][c];
    facts->has_mosaic = r->rawdata.raw_image != NULL;
}

/// A black-level pattern larger than stack_raw_facts can hold (1), else 0.
static inline int stack_raw_black_pattern_too_large(const stack_raw_handle *handle) {
    unsigned rows = handle->raw->color.cblack[4], cols = handle->raw->color.cblack[5];
    return rows > 0 && cols > 0 && rows * cols > 64;
}

/// Copies the visible area of the unpacked mosaic (width x height 16-bit
/// samples from (left_margin, top_margin) on) into `out`, row by row.
/// Returns 0, or -1 when there is no mosaic or the area lies outside it.
static inline int stack_raw_copy_mosaic(const stack_raw_handle *handle, uint16_t *out) {
    const libraw_data_t *r = handle->raw;
    const uint16_t *src = r->rawdata.raw_image;
    size_t pitch = r->sizes.raw_pitch / 2;
    size_t top = r->sizes.top_margin, left = r->sizes.left_margin;
    size_t w = r->sizes.width, h = r->sizes.height;
    if (src == NULL || pitch < r->sizes.raw_width || left + w > r->sizes.raw_width || top + h > r->sizes.raw_height) return -1;
    for (size_t y = 0; y < h; y++) memcpy(out + y * w, src + (top + y) * pitch + left, w * sizeof *out);
    return 0;
}

/// Runs LibRaw's own processing for sensors our CFA pipeline does not
/// cover (X-Trans, non-RGB or non-2 x 2 patterns, already demosaiced
/// data): its default demosaic for the pattern, the as-shot white balance,
/// the camera matrix to sRGB primaries, linear (gamma 1) 16-bit output,
/// no automatic brightening; the orientation applied. On success returns
/// an image of 3 channels to release with stack_raw_free_image.
/// The corresponding C functions are `libraw_dcraw_process` and
/// `libraw_dcraw_make_mem_image`.
static inline libraw_processed_image_t *stack_raw_process(stack_raw_handle *handle, int *error) {
    libraw_data_t *r = handle->raw;
    r->params.use_camera_wb = 1;
    r->params.output_color = 1;  // sRGB
    r->params.output_bps = 16;
    r->params.gamm[0] = 1.0;
    r->params.gamm[1] = 1.0;
    r->params.no_auto_bright = 1;
    *error = stack_raw_fn.dcraw_process(r);
    if (*error != 0) return NULL;
    libraw_processed_image_t *image = stack_raw_fn.make_mem_image(r, error);
    if (image != NULL && (image->type != LIBRAW_IMAGE_BITMAP || image->colors != 3 || image->bits != 16)) {
        stack_raw_fn.clear_mem(image);
        *error = LIBRAW_UNSPECIFIED_ERROR;
        return NULL;
    }
    return image;
}

/// Width, height and samples (R, G, B interleaved, 16-bit native order) of
/// an image from stack_raw_process.
static inline int stack_raw_image_width(const libraw_processed_image_t *image) { return image->width; }
static inline int stack_raw_image_height(const libraw_processed_image_t *image) { return image->height; }
static inline const uint16_t *stack_raw_image_samples(const libraw_processed_image_t *image) {
    return (const uint16_t *)image->data;
}

/// Releases an image from stack_raw_process. The corresponding C function is `libraw_dcraw_clear_mem`.
static inline void stack_raw_free_image(libraw_processed_image_t *image) { stack_raw_fn.clear_mem(image); }

#endif // STACK_CLIBRAW_SHIM_H
