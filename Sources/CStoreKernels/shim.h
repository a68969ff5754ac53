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

// Largest frame count `store_median_bytes32` takes.
#define STORE_MEDIAN_MAX_FRAMES 32

// One compare-exchange of 32 byte lanes: the smaller values to a, the larger to b.
#define STORE_CMPX(a, b)                                                                                       \
    do {                                                                                                       \
        store_b32 x_ = (a), y_ = (b);                                                                          \
        (a) = __builtin_elementwise_min(x_, y_);                                                               \
        (b) = __builtin_elementwise_max(x_, y_);                                                               \
    } while (0)

// Batcher's odd–even merge network for n inputs (the comparators of the
// Swift `SortingNetwork(count: n)`, in its order), each lane of v[0..n)
// sorted ascending. Inlined with n a constant, the loops unroll completely,
// v stays in registers (up to about 20 inputs), and the compiler drops the
// comparators no output read after it depends on (a median reads two).
__attribute__((always_inline))
static inline void store_batcher(store_b32 *v, const int n) {
#pragma clang loop unroll(full)
    for (int p = 1; p < STORE_MEDIAN_MAX_FRAMES; p *= 2) {
        if (p >= n) break;
#pragma clang loop unroll(full)
        for (int k = p; k >= 1; k /= 2) {
#pragma clang loop unroll(full)
            for (int j = k % p; j < STORE_MEDIAN_MAX_FRAMES; j += 2 * k) {
                if (j + k >= n) break;
#pragma clang loop unroll(full)
                for (int i = 0; i < STORE_MEDIAN_MAX_FRAMES; i++) {
                    if (i >= k) break;
                    if (i + j + k < n && (i + j) / (2 * p) == (i + j + k) / (2 * p)) STORE_CMPX(v[i + j], v[i + j + k]);
                }
            }
        }
    }
}

// `store_median_bytes32` for a constant n.
__attribute__((always_inline))
static inline void store_median_of(const uint8_t *base, ptrdiff_t stride, const int n, float scale, float *out) {
    store_b32 v[STORE_MEDIAN_MAX_FRAMES];
    for (int f = 0; f < n; f++) __builtin_memcpy(&v[f], base + f * stride, sizeof(store_b32));
    store_batcher(v, n);
    store_b32 lo = v[(n - 1) / 2], hi = v[n / 2];
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

// The median of 32 neighbouring pixels that all n frames cover (1 ≤ n ≤
// STORE_MEDIAN_MAX_FRAMES), each frame's 32 bytes at base + f·stride: lane
// l's samples sorted, its median 0.5 · (lo · scale + hi · scale) with lo, hi
// its samples (n − 1) / 2 and n / 2 as floats, into out[l]. Returns 0 (and
// writes nothing) for other n.
static inline int store_median_bytes32(const uint8_t *base, ptrdiff_t stride, ptrdiff_t n, float scale, float *out) {
    switch (n) {
#define STORE_MEDIAN_CASE(N) case N: store_median_of(base, stride, N, scale, out); return 1;
    STORE_MEDIAN_CASE(1) STORE_MEDIAN_CASE(2) STORE_MEDIAN_CASE(3) STORE_MEDIAN_CASE(4)
    STORE_MEDIAN_CASE(5) STORE_MEDIAN_CASE(6) STORE_MEDIAN_CASE(7) STORE_MEDIAN_CASE(8)
    STORE_MEDIAN_CASE(9) STORE_MEDIAN_CASE(10) STORE_MEDIAN_CASE(11) STORE_MEDIAN_CASE(12)
    STORE_MEDIAN_CASE(13) STORE_MEDIAN_CASE(14) STORE_MEDIAN_CASE(15) STORE_MEDIAN_CASE(16)
    STORE_MEDIAN_CASE(17) STORE_MEDIAN_CASE(18) STORE_MEDIAN_CASE(19) STORE_MEDIAN_CASE(20)
    STORE_MEDIAN_CASE(21) STORE_MEDIAN_CASE(22) STORE_MEDIAN_CASE(23) STORE_MEDIAN_CASE(24)
    STORE_MEDIAN_CASE(25) STORE_MEDIAN_CASE(26) STORE_MEDIAN_CASE(27) STORE_MEDIAN_CASE(28)
    STORE_MEDIAN_CASE(29) STORE_MEDIAN_CASE(30) STORE_MEDIAN_CASE(31) STORE_MEDIAN_CASE(32)
#undef STORE_MEDIAN_CASE
    default: return 0;
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
