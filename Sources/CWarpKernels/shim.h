// The general warp's weighted sums over a window of samples, written with
// the compiler's vector extensions (GCC/Clang `vector_size`) because Swift's
// generic SIMD conversions split an 8-byte row into 2-sample pieces
// (docs/performance.md, issue 26): here each row is one widening load
// (`vpmovzxbd` on x86-64) and one fused multiply-add where the CPU has FMA.
// Header only, static inline, so the Swift caller inlines them. Used once,
// by Sources/Registration/Warp/WindowSum.swift.
#include <stddef.h>
#include <stdint.h>

typedef float warp_f8 __attribute__((vector_size(32)));
typedef uint8_t warp_b8 __attribute__((vector_size(8)));

// Σ_j wy[j] · Σ_i wx[i] · s[j·stride + i] over a 6 × 6 window of bytes,
// unscaled (0…255). 8 bytes of each of the 6 rows are read; wx holds 8
// weights, the last 2 ignored.
static inline float warp_window6_u8(const uint8_t *s, ptrdiff_t stride, const float *wx, const float *wy) {
    warp_f8 acc = {0};
    for (int j = 0; j < 6; j++) {
        warp_b8 row;
        __builtin_memcpy(&row, s + j * stride, sizeof row);
        acc += wy[j] * __builtin_convertvector(row, warp_f8);
    }
    warp_f8 w;
    __builtin_memcpy(&w, wx, sizeof w);
    acc *= w;
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + (acc[4] + acc[5]);
}
