// The general warp's weighted sums over a window of samples, written with
// the compiler's vector extensions (GCC/Clang `vector_size`) because Swift's
// generic SIMD conversions split an 8-byte row into 2-sample pieces
// (docs/performance.md, issue 26): here each row is one widening load
// (`vpmovzxbd` on x86-64) and one fused multiply-add where the CPU has FMA.
// Header only, static inline, so the Swift caller inlines them. Used once,
// by Sources/Registration/Warp/WarpKernels.swift.
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

// The two-pass warp's 1-D passes (Sources/Registration/Warp/TwoPassWarp.swift),
// vectorised across 8 neighbouring outputs. Each output lane has its own
// sample position, given as an offset `s` (px) from the lane's own integer
// origin; the offsets of 8 neighbours differ by less than 1 px, so their
// taps start at one of two neighbouring indices, and one set of 7 shifted
// 8-lane loads holds every lane's 6 taps. Each lane's weights come from the
// phase table as in the general warp (the offset rounded to the nearest of
// 2^bits phases), a lane whose taps start one index later reading its row
// one float earlier (the table has a 0 before each phase's weights).

typedef int32_t warp_i8 __attribute__((vector_size(32)));

// The least of 8 lanes.
static inline int32_t warp_min8(warp_i8 k) {
    warp_i8 m = __builtin_shufflevector(k, k, 4, 5, 6, 7, 0, 1, 2, 3);
    m = (warp_i8)((m < k) & m) | (warp_i8)(~(m < k) & k);
    warp_i8 n = __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5);
    m = (warp_i8)((n < m) & n) | (warp_i8)(~(n < m) & m);
    n = __builtin_shufflevector(m, m, 1, 0, 3, 2, 5, 4, 7, 6);
    m = (warp_i8)((n < m) & n) | (warp_i8)(~(n < m) & m);
    return m[0];
}

// The weights of 8 lanes at offsets `s` for the 7 loads starting at index
// `origin + c + first` (each lane's origin its own), c returned: w[t] holds
// every lane's weight of load t (0 outside its taps). `table` points at
// phase 0's 8 floats (taps, then zeros) and table[-1] is 0. The caller
// guarantees the lanes' rounded offsets span less than 2 integers.
static inline int32_t warp_lane_weights(warp_f8 s, const float *table, int bits, warp_f8 w[7]) {
    const float phases = (float)(1 << bits);
    warp_f8 scaled = s * phases + 0.5f;
    warp_i8 q = __builtin_convertvector(scaled, warp_i8);          // toward zero
    q += (warp_i8)(__builtin_convertvector(q, warp_f8) > scaled);   // to floor: −1 where it rounded up
    warp_i8 k = q >> bits;
    int32_t c = warp_min8(k);
    warp_i8 o = (q & ((1 << bits) - 1)) * 8 - (k - c);
    warp_f8 r[8];
    for (int i = 0; i < 8; i++) __builtin_memcpy(&r[i], table + o[i], sizeof r[i]);
    // Transpose rows (lane i: its 8 weights) into columns (load t: 8 lanes).
    warp_f8 a0 = __builtin_shufflevector(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13);
    warp_f8 a1 = __builtin_shufflevector(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15);
    warp_f8 a2 = __builtin_shufflevector(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13);
    warp_f8 a3 = __builtin_shufflevector(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15);
    warp_f8 a4 = __builtin_shufflevector(r[4], r[5], 0, 8, 1, 9, 4, 12, 5, 13);
    warp_f8 a5 = __builtin_shufflevector(r[4], r[5], 2, 10, 3, 11, 6, 14, 7, 15);
    warp_f8 a6 = __builtin_shufflevector(r[6], r[7], 0, 8, 1, 9, 4, 12, 5, 13);
    warp_f8 a7 = __builtin_shufflevector(r[6], r[7], 2, 10, 3, 11, 6, 14, 7, 15);
    warp_f8 b0 = __builtin_shufflevector(a0, a2, 0, 1, 8, 9, 4, 5, 12, 13);
    warp_f8 b1 = __builtin_shufflevector(a0, a2, 2, 3, 10, 11, 6, 7, 14, 15);
    warp_f8 b2 = __builtin_shufflevector(a1, a3, 0, 1, 8, 9, 4, 5, 12, 13);
    warp_f8 b3 = __builtin_shufflevector(a1, a3, 2, 3, 10, 11, 6, 7, 14, 15);
    warp_f8 b4 = __builtin_shufflevector(a4, a6, 0, 1, 8, 9, 4, 5, 12, 13);
    warp_f8 b5 = __builtin_shufflevector(a4, a6, 2, 3, 10, 11, 6, 7, 14, 15);
    warp_f8 b6 = __builtin_shufflevector(a5, a7, 0, 1, 8, 9, 4, 5, 12, 13);
    warp_f8 b7 = __builtin_shufflevector(a5, a7, 2, 3, 10, 11, 6, 7, 14, 15);
    w[0] = __builtin_shufflevector(b0, b4, 0, 1, 2, 3, 8, 9, 10, 11);
    w[4] = __builtin_shufflevector(b0, b4, 4, 5, 6, 7, 12, 13, 14, 15);
    w[1] = __builtin_shufflevector(b1, b5, 0, 1, 2, 3, 8, 9, 10, 11);
    w[5] = __builtin_shufflevector(b1, b5, 4, 5, 6, 7, 12, 13, 14, 15);
    w[2] = __builtin_shufflevector(b2, b6, 0, 1, 2, 3, 8, 9, 10, 11);
    w[6] = __builtin_shufflevector(b2, b6, 4, 5, 6, 7, 12, 13, 14, 15);
    w[3] = __builtin_shufflevector(b3, b7, 0, 1, 2, 3, 8, 9, 10, 11);
    return c;
}

static const warp_f8 warp_iota8 = {0, 1, 2, 3, 4, 5, 6, 7};

// The next group of 8 lanes of [*u, end) (end − start ≥ 8): the last group
// is moved back to end at `end`, overlapping the one before (whose lanes it
// recomputes to the same values).
static inline ptrdiff_t warp_group(ptrdiff_t u, ptrdiff_t end) { return u + 8 > end ? end - 8 : u; }

// Pass 1, down the frame's columns, for one output row: column u of [u0,
// u1) (u1 − u0 ≥ 8, within the frame) sampled at row `row + a + b·u`, its
// taps' rows clamped to [0, fh − 1], into outs[p][u] for each of the
// nplanes planes (8-bit samples, unscaled, or floats).
#define WARP_COLUMN_PASS(NAME, T, LOAD)                                                                        \
static inline void NAME(const T *const *planes, ptrdiff_t nplanes, ptrdiff_t fw, ptrdiff_t fh, float *const *outs, \
                        ptrdiff_t u0, ptrdiff_t u1, ptrdiff_t row, float a, float b, ptrdiff_t first,               \
                        const float *table, int bits) {                                                            \
    for (ptrdiff_t u = u0; u < u1; u += 8) {                                                                       \
        u = warp_group(u, u1);                                                                                     \
        warp_f8 w[7];                                                                                              \
        ptrdiff_t c = warp_lane_weights(a + b * ((float)u + warp_iota8), table, bits, w);                        \
        ptrdiff_t rows[7], top = row + c + first;                                                                  \
        if (top >= 0 && top + 6 <= fh - 1) {            /* inside the frame: no clamping */                        \
            for (int t = 0; t < 7; t++) rows[t] = (top + t) * fw + u;                                              \
        } else {                                                                                                   \
            for (int t = 0; t < 7; t++) {                                                                          \
                ptrdiff_t r = top + t;                                                                             \
                rows[t] = (r < 0 ? 0 : r > fh - 1 ? fh - 1 : r) * fw + u;                                          \
            }                                                                                                      \
        }                                                                                                          \
        for (ptrdiff_t p = 0; p < nplanes; p++) {                                                                  \
            const T *s = planes[p];                                                                                \
            warp_f8 acc = w[0] * LOAD(s + rows[0]);                                                                \
            for (int t = 1; t < 7; t++) acc += w[t] * LOAD(s + rows[t]);                                           \
            __builtin_memcpy(outs[p] + u, &acc, sizeof acc);                                                       \
        }                                                                                                          \
    }                                                                                                              \
}

static inline warp_f8 warp_load8_u8(const uint8_t *s) {
    warp_b8 v;
    __builtin_memcpy(&v, s, sizeof v);
    return __builtin_convertvector(v, warp_f8);
}
static inline warp_f8 warp_load8_f32(const float *s) {
    warp_f8 v;
    __builtin_memcpy(&v, s, sizeof v);
    return v;
}
WARP_COLUMN_PASS(warp_column_pass_u8, uint8_t, warp_load8_u8)
WARP_COLUMN_PASS(warp_column_pass_f32, float, warp_load8_f32)
#undef WARP_COLUMN_PASS

// Pass 2, along one output row: output x of [x0, x1) (x1 − x0 ≥ 8) sampled
// in each plane's pass-1 line (lines[p][u], readable wherever a tap or a
// lane's 7-load reach falls) at u = x + (p0 + x·(p1 − m6·x)) / (q0 + m6·x),
// times `scale`, into outs[p][x].
static inline void warp_row_pass(const float *const *lines, ptrdiff_t nplanes, float *const *outs, ptrdiff_t x0,
                                 ptrdiff_t x1, float p0, float p1, float m6, float q0, ptrdiff_t first,
                                 const float *table, int bits, float scale) {
    for (ptrdiff_t x = x0; x < x1; x += 8) {
        x = warp_group(x, x1);
        warp_f8 xf = (float)x + warp_iota8;
        warp_f8 w[7];
        ptrdiff_t c = warp_lane_weights((p0 + xf * (p1 - m6 * xf)) / (q0 + m6 * xf), table, bits, w);
        for (ptrdiff_t p = 0; p < nplanes; p++) {
            const float *s = lines[p] + x + c + first;
            warp_f8 acc = w[0] * warp_load8_f32(s);
            for (int t = 1; t < 7; t++) acc += w[t] * warp_load8_f32(s + t);
            acc *= scale;
            __builtin_memcpy(outs[p] + x, &acc, sizeof acc);
        }
    }
}
