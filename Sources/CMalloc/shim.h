// glibc's malloc tuning (mallopt), which Swift's Glibc module does not export.
// Used once, by the stack executable, to keep large image buffers in the heap
// for reuse instead of fresh mmap pages each time (see docs/performance.md).
#include <malloc.h>
