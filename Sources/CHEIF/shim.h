// libheif 1.15 (Debian 12: libheif-dev), for HEIF, HEIC, HIF and AVIF.
// No shim functions are needed: libheif reports errors by returning a
// `struct heif_error` (never by longjmp), and none of the calls we make is
// variadic. Swift calls libheif only from Sources/Stacker/IO/HEIFCodec.swift.
// The header sits in the multiarch include folder, which pkg-config's
// `libheif` cflags give.
#include <libheif/heif.h>
