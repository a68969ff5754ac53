// The frame store's byte kernels (Sources/Stacker/FrameStore/StoreKernels.swift,
// their one caller), written with the compiler's vector extensions (GCC/Clang
// `vector_size`) because Swift's SIMD types of 32 bytes run their
// comparisons, selects and bitwise operations lane by lane: here a 32-byte
// compare-exchange is one `vpminub` and one `vpmaxub` on x86-64, and 16
// floats quantise to 16 bytes in a handful of instructions.
//
// Floating-point contraction is off: every product and sum rounds as the
// Swift code the store compares with (`StoredSample.quantize`,
// `Normalization.apply`, the median's `0.5 · (lo · s + hi · s)`) rounds it,
// so the kernels give its bits.
// Header only, static inline.
#include <stddef.h>
#include <stdint.h>

#pragma clang fp contract(off)

typedef uint8_t store_b32 __attribute__((vector_size(32)));
typedef uint8_t store_b16 __attribute__((vector_size(16)));
typedef uint16_t store_h16 __attribute__((vector_size(32)));
typedef int32_t store_i16 __attribute__((vector_size(64)));
typedef float store_f16 __attribute__((vector_size(64)));

// The median of 32 neighbouring pixels that all `n` frames cover, each
// frame's 32 bytes at base + f·stride: the samples are sorted per lane in
// `scratch` (n vectors) by the comparator list `pairs` (`count` pairs
// (low, high), a sorting network for n inputs; 32-byte aligned), and lane l's median is
// 0.5 · (lo · scale + hi · scale) with lo, hi its samples n−1 >> 1 and
// n >> 1 as floats, into out[l].
static inline void store_median_bytes32(const uint8_t *base, ptrdiff_t stride, ptrdiff_t n, void *scratch_bytes,
                                        const int32_t *pairs, ptrdiff_t count, float scale, float *out) {
    store_b32 *scratch = (store_b32 *)scratch_bytes;
    for (ptrdiff_t f = 0; f < n; f++) __builtin_memcpy(&scratch[f], base + f * stride, sizeof(store_b32));
    for (ptrdiff_t i = 0; i < count; i++) {
        store_b32 x = scratch[pairs[2 * i]], y = scratch[pairs[2 * i + 1]];
        scratch[pairs[2 * i]] = __builtin_elementwise_min(x, y);
        scratch[pairs[2 * i + 1]] = __builtin_elementwise_max(x, y);
    }
    store_b32 lo = scratch[(n - 1) / 2], hi = scratch[n / 2];
    for (int half = 0; half < 2; half++) {
        store_b16 l, h;
        __builtin_memcpy(&l, (const uint8_t *)&lo + 16 * half, sizeof l);
        __builtin_memcpy(&h, (const uint8_t *)&hi + 16 * half, sizeof h);
        store_f16 a = __builtin_convertvector(l, store_f16) * scale;
        store_f16 b = __builtin_convertvector(h, store_f16) * scale;
        store_f16 m = 0.5f * (a + b);
        __builtin_memcpy(out + 16 * half, &m, sizeof m);
    }
}

// round(clamp(v′, 0, 1) · levels) with halves rounded up and NaN → 0, where
// v′ = gain · v + offset when `normalise` (else v), for 16 floats at once:
// the floor of y = c · levels + 0.5 (0 ≤ y < 2^17), as an integer.
static inline store_i16 store_levels16(store_f16 v, int normalise, float gain, float offset, float levels) {
    if (normalise) {
        v = gain * v;
        v = v + offset;
    }
    const store_f16 zero = {0}, one = zero + 1.0f;
    // Lanes where v > 0 keep v, the others (NaN compares false) are 0; then
    // lanes above 1 are 1.
    store_f16 c = (store_f16)((store_i16)v & (store_i16)(v > zero));
    store_i16 above = (store_i16)(c > one);
    c = (store_f16)(((store_i16)c & ~above) | ((store_i16)one & above));
    store_f16 y = c * levels;
    y = y + 0.5f;
    return __builtin_convertvector(__builtin_elementwise_floor(y), store_i16);
}

static inline int32_t store_levels1(float v, int normalise, float gain, float offset, float levels) {
    if (normalise) {
        v = gain * v;
        v = v + offset;
    }
    float c = v > 0 ? (v < 1 ? v : 1) : 0;
    float y = c * levels;
    y = y + 0.5f;
    return (int32_t)y;                            // y ≥ 0.5: truncation is the floor
}

// `store_levels16` over count floats at src into samples of type T (8-bit
// or 16-bit, `LEVELS` 255 or 65535) at dst.
#define STORE_QUANTIZE(NAME, T, VT, LEVELS)                                                                    \
static inline void NAME(const float *src, T *dst, ptrdiff_t count, int normalise, float gain, float offset) {   \
    ptrdiff_t i = 0;                                                                                           \
    for (; i + 16 <= count; i += 16) {                                                                         \
        store_f16 v;                                                                                           \
        __builtin_memcpy(&v, src + i, sizeof v);                                                               \
        VT q = __builtin_convertvector(store_levels16(v, normalise, gain, offset, LEVELS), VT);                \
        __builtin_memcpy(dst + i, &q, sizeof q);                                                               \
    }                                                                                                          \
    for (; i < count; i++) dst[i] = (T)store_levels1(src[i], normalise, gain, offset, LEVELS);                 \
}

STORE_QUANTIZE(store_quantize_u8, uint8_t, store_b16, 255.0f)
STORE_QUANTIZE(store_quantize_u16, uint16_t, store_h16, 65535.0f)
#undef STORE_QUANTIZE
