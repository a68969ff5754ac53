// TurboJPEG 2 API (libjpeg-turbo 2.1, Debian 12: libturbojpeg0-dev).
// Only the TurboJPEG 2 functions exist here (tjInitDecompress,
// tjDecompressHeader3, tjDecompress2, tjCompress2, tjGetErrorStr2,
// tjGetErrorCode); there is no tj3* API. No shim functions are needed:
// TurboJPEG reports errors by return value, never by longjmp into the caller.
#include <turbojpeg.h>
