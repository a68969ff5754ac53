// TurboJPEG 2 API (libjpeg-turbo 2.1, Debian 12: libturbojpeg0-dev).
#include <turbojpeg.h>
