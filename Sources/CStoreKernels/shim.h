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

// Largest frame count the medians below take.
#define STORE_MEDIAN_MAX_FRAMES 32

// One compare-exchange of two vectors' lanes: the smaller values to a, the larger to b.
#define STORE_CMPX(a, b)                                                                                       \
    do {                                                                                                       \
        __typeof__(a) x_ = (a), y_ = (b);                                                                      \
        (a) = __builtin_elementwise_min(x_, y_);                                                               \
        (b) = __builtin_elementwise_max(x_, y_);                                                               \
    } while (0)

// Batcher's odd–even merge network for n inputs of vector type VT (the
// comparators of the Swift `SortingNetwork(count: n)`, in its order), each
// lane of v[0..n) sorted ascending. Inlined with n a constant, the loops
// unroll completely, v stays in registers (up to about 20 inputs), and the
// compiler drops the comparators no output read after it depends on (a
// median reads two).
#define STORE_BATCHER(NAME, VT)                                                                                \
__attribute__((always_inline))                                                                                 \
static inline void NAME(VT *v, const int n) {                                                                  \
    _Pragma("clang loop unroll(full)")                                                                         \
    for (int p = 1; p < STORE_MEDIAN_MAX_FRAMES; p *= 2) {                                                     \
        if (p >= n) break;                                                                                     \
        _Pragma("clang loop unroll(full)")                                                                     \
        for (int k = p; k >= 1; k /= 2) {                                                                      \
            _Pragma("clang loop unroll(full)")                                                                 \
            for (int j = k % p; j < STORE_MEDIAN_MAX_FRAMES; j += 2 * k) {                                     \
                if (j + k >= n) break;                                                                         \
                _Pragma("clang loop unroll(full)")                                                             \
                for (int i = 0; i < STORE_MEDIAN_MAX_FRAMES; i++) {                                            \
                    if (i >= k) break;                                                                         \
                    if (i + j + k < n && (i + j) / (2 * p) == (i + j + k) / (2 * p)) STORE_CMPX(v[i + j], v[i + j + k]); \
                }                                                                                              \
            }                                                                                                  \
        }                                                                                                      \
    }                                                                                                          \
}
STORE_BATCHER(store_batcher_b32, store_b32)
STORE_BATCHER(store_batcher_h16, store_h16)
#undef STORE_BATCHER

// 0.5 · (lo · scale + hi · scale) of 16 lanes of two sorted rows' samples, into out.
#define STORE_MIDPOINT(lo16, hi16, scale, out)                                                                 \
    do {                                                                                                       \
        store_f16 a_ = __builtin_convertvector(lo16, store_f16) * (scale);                                     \
        store_f16 b_ = __builtin_convertvector(hi16, store_f16) * (scale);                                     \
        store_f16 m_ = 0.5f * (a_ + b_);                                                                       \
        __builtin_memcpy((out), &m_, sizeof m_);                                                               \
    } while (0)

// The medians below for a constant n: 32 byte lanes, or 16 lanes of 16 bits.
__attribute__((always_inline))
static inline void store_median_b32_of(const uint8_t *base, ptrdiff_t stride, const int n, float scale, float *out) {
    store_b32 v[STORE_MEDIAN_MAX_FRAMES];
    for (int f = 0; f < n; f++) __builtin_memcpy(&v[f], base + f * stride, sizeof(store_b32));
    store_batcher_b32(v, n);
    store_b32 lo = v[(n - 1) / 2], hi = v[n / 2];
    for (int half = 0; half < 2; half++) {
        store_b16 l, h;
        __builtin_memcpy(&l, (const uint8_t *)&lo + 16 * half, sizeof l);
        __builtin_memcpy(&h, (const uint8_t *)&hi + 16 * half, sizeof h);
        STORE_MIDPOINT(l, h, scale, out + 16 * half);
    }
}

__attribute__((always_inline))
static inline void store_median_h16_of(const uint16_t *base, ptrdiff_t stride, const int n, float scale, float *out) {
    store_h16 v[STORE_MEDIAN_MAX_FRAMES];
    for (int f = 0; f < n; f++) __builtin_memcpy(&v[f], base + f * stride, sizeof(store_h16));
    store_batcher_h16(v, n);
    STORE_MIDPOINT(v[(n - 1) / 2], v[n / 2], scale, out);
}

// A switch over n = 1 … STORE_MEDIAN_MAX_FRAMES calling CALL(N) with N a constant; 0 for other n.
#define STORE_FOR_FRAMES(CALL)                                                                                 \
    switch (n) {                                                                                               \
    case 1: CALL(1); return 1; case 2: CALL(2); return 1; case 3: CALL(3); return 1; case 4: CALL(4); return 1; \
    case 5: CALL(5); return 1; case 6: CALL(6); return 1; case 7: CALL(7); return 1; case 8: CALL(8); return 1; \
    case 9: CALL(9); return 1; case 10: CALL(10); return 1; case 11: CALL(11); return 1;                       \
    case 12: CALL(12); return 1; case 13: CALL(13); return 1; case 14: CALL(14); return 1;                     \
    case 15: CALL(15); return 1; case 16: CALL(16); return 1; case 17: CALL(17); return 1;                     \
    case 18: CALL(18); return 1; case 19: CALL(19); return 1; case 20: CALL(20); return 1;                     \
    case 21: CALL(21); return 1; case 22: CALL(22); return 1; case 23: CALL(23); return 1;                     \
    case 24: CALL(24); return 1; case 25: CALL(25); return 1; case 26: CALL(26); return 1;                     \
    case 27: CALL(27); return 1; case 28: CALL(28); return 1; case 29: CALL(29); return 1;                     \
    case 30: CALL(30); return 1; case 31: CALL(31); return 1; case 32: CALL(32); return 1;                     \
    default: return 0;                                                                                         \
    }

// The median of 32 neighbouring pixels of an 8-bit store that all n frames
// cover (1 ≤ n ≤ STORE_MEDIAN_MAX_FRAMES), each frame's 32 bytes at base +
// f·stride: lane l's samples sorted, its median 0.5 · (lo · scale + hi ·
// scale) with lo, hi its samples (n − 1) / 2 and n / 2 as floats, into
// out[l]. Returns 0 (and writes nothing) for other n.
static inline int store_median_bytes32(const uint8_t *base, ptrdiff_t stride, ptrdiff_t n, float scale, float *out) {
#define STORE_CALL(N) store_median_b32_of(base, stride, N, scale, out)
    STORE_FOR_FRAMES(STORE_CALL)
#undef STORE_CALL
}

// The same for 16 neighbouring pixels of a 16-bit store.
static inline int store_median_halves16(const uint16_t *base, ptrdiff_t stride, ptrdiff_t n, float scale, float *out) {
#define STORE_CALL(N) store_median_h16_of(base, stride, N, scale, out)
    STORE_FOR_FRAMES(STORE_CALL)
#undef STORE_CALL
}
#undef STORE_FOR_FRAMES

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
