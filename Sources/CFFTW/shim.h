// FFTW 3, single precision (fftwf_*). Only fftwf_execute* is thread-safe:
// callers serialise planning.
#include <fftw3.h>
