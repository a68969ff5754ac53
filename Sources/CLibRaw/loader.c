// The one definition of the LibRaw function table and its load state
// (declared in include/shim.h), and the loader that fills them.
#include "shim.h"

stack_raw_api stack_raw_functions;
static int load_state;  // 1 loaded, -1 not found or another release
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

// Exists for pthread_once: opens the library and looks up every function.
static void load_library(void) {
    // The header's own soname first, then the -dev package's link to it.
    static const char *const names[] = {"libraw_r.so.20", "libraw_r.so"};
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    load_state = -1;
    if (library == NULL) return;
#define LOOKUP(field, symbol) \
    if ((*(void **)&stack_raw_functions.field = dlsym(library, #symbol)) == NULL) return;
    LOOKUP(init, libraw_init)
    LOOKUP(set_dataerror_handler, libraw_set_dataerror_handler)
    LOOKUP(set_memerror_handler, libraw_set_memerror_handler)
    LOOKUP(open_buffer, libraw_open_buffer)
    LOOKUP(close, libraw_close)
    LOOKUP(strerror, libraw_strerror)
    LOOKUP(unpack, libraw_unpack)
    LOOKUP(color, libraw_COLOR)
    LOOKUP(dcraw_process, libraw_dcraw_process)
    LOOKUP(make_mem_image, libraw_dcraw_make_mem_image)
    LOOKUP(clear_mem, libraw_dcraw_clear_mem)
#undef LOOKUP
    // The struct layouts read here are the header's: refuse another release.
    __typeof__(&libraw_versionNumber) version = NULL;
    if ((*(void **)&version = dlsym(library, "libraw_versionNumber")) == NULL) return;
    if (version() != LIBRAW_VERSION) return;
    load_state = 1;
}

int stack_raw_load(void) {
    pthread_once(&load_once, load_library);
    return load_state == 1;
}
