// The one definition of the cfitsio function table and its load state
// (declared in include/shim.h), and the loader that fills them.
#include "shim.h"

stack_fits_api stack_fits_functions;
static int load_state;  // 1 loaded, -1 not found
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

// Exists for pthread_once: opens the library and looks up every function.
static void load_library(void) {
    static const char *const names[] = {"libcfitsio.so.10", "libcfitsio.so", "libcfitsio.so.9"};
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    load_state = -1;
    if (library == NULL) return;
#define LOOKUP(field, symbol) \
    if ((*(void **)&stack_fits_functions.field = dlsym(library, #symbol)) == NULL) return;
    LOOKUP(is_reentrant, fits_is_reentrant)
    LOOKUP(gerr, ffgerr)
    LOOKUP(omem, ffomem)
    LOOKUP(dkopn, ffdkopn)
    LOOKUP(imem, ffimem)
    LOOKUP(clos, ffclos)
    LOOKUP(flus, ffflus)
    LOOKUP(giprll, ffgiprll)
    LOOKUP(ghadll, ffghadll)
    LOOKUP(gpv, ffgpv)
    LOOKUP(gkey, ffgkey)
    LOOKUP(dtyp, ffdtyp)
    LOOKUP(crimll, ffcrimll)
    LOOKUP(prec, ffprec)
    LOOKUP(ppr, ffppr)
    LOOKUP(mahd, ffmahd)
    LOOKUP(is_compressed, fits_is_compressed_image)
#undef LOOKUP
    load_state = 1;
}

int stack_fits_load(void) {
    pthread_once(&load_once, load_library);
    return load_state == 1;
}
