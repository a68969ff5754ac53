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
// vectorised across 16 neighbouring outputs. Each output lane has its own
// sample position, given as an offset `s` (px) from the lane's own integer
// origin; the offsets of 16 neighbours differ by less than 2 px, so their
// taps start at one of three neighbouring indices. Each lane's 6 weights are
// computed from its fractional offset by polynomials (no table, no
// transpose). When all 16 lanes' taps start at the same index (the common
// case: near-identity maps move the offset by a few hundredths of a pixel
// over 16 lanes), 6 shifted 16-lane loads hold them; otherwise 7 or 8 do,
// and a lane whose taps start j indices later takes tap t − j's weight at
// load t.
//
// 16 lanes rather than 8: the weights are a long chain of dependent
// multiply-adds, and with 8 lanes the passes were bound by that chain's
// latency; with 16 each instruction carries twice the lanes through the
// same chain. On CPUs without 512-bit vectors the compiler splits each
// into two halves, the same work as 8 lanes twice.

typedef float warp_f16 __attribute__((vector_size(64)));
typedef int32_t warp_i16 __attribute__((vector_size(64)));
typedef uint8_t warp_b16 __attribute__((vector_size(16)));

// Lanes per group, and loads per plane at most (6 taps, spread over 3 indices).
#define WARP_LANES 16
#define WARP_LOADS 8

// Coefficients per polynomial of `warp_lane_taps` (degree 3, lowest first).
#define WARP_POLY_TERMS 4

// Σ c[i]·x^i by Horner's rule, each step one multiply-add.
static inline warp_f16 warp_poly(const float *c, warp_f16 x) {
    return ((c[3] * x + c[2]) * x + c[1]) * x + c[0];
}

// `a` in the lanes of `mask` (all ones), `b` in the others.
static inline warp_f16 warp_select(warp_i16 mask, warp_f16 a, warp_f16 b) {
    return (warp_f16)(((warp_i16)a & mask) | ((warp_i16)b & ~mask));
}

// Each lane's offset rounded down (as floats and as integers).
static inline warp_i16 warp_floor16(warp_f16 s, warp_f16 *down) {
#if defined(__SSE4_1__)
    *down = __builtin_elementwise_floor(s);                         // vroundps / vrndscaleps
    return __builtin_convertvector(*down, warp_i16);
#else
    warp_i16 k = __builtin_convertvector(s, warp_i16);              // toward zero
    k += (warp_i16)(__builtin_convertvector(k, warp_f16) > s);      // to floor: −1 where it rounded up
    *down = __builtin_convertvector(k, warp_f16);
    return k;
#endif
}

// The 6 tap weights of 16 lanes at offsets `s` (rounded down: `down`):
// tap[i] holds every lane's weight of its sample floor(s) − 2 + i. A
// symmetric 6-tap kernel (w_i(f) = w_{5−i}(1 − f)) is given in `poly` as 5
// polynomials of WARP_POLY_TERMS coefficients in x = 8g² − 1, g = f − 1/2
// (f the fractional offset): the even parts E0, E1, then the odd parts ÷ g,
// O0, O1, O2. Taps i and 5 − i are E_i ± g·O_i, and E2 is 1/2 − E0 − E1, so
// the 6 weights sum to 1.
static inline void warp_lane_taps(warp_f16 s, warp_f16 down, const float *poly, warp_f16 tap[6]) {
    warp_f16 g = (s - down) - 0.5f;
    warp_f16 x = 8.0f * g * g - 1.0f;
    warp_f16 e0 = warp_poly(poly, x), e1 = warp_poly(poly + WARP_POLY_TERMS, x);
    warp_f16 e2 = 0.5f - e0 - e1;
    warp_f16 o0 = warp_poly(poly + 2 * WARP_POLY_TERMS, x);
    warp_f16 o1 = warp_poly(poly + 3 * WARP_POLY_TERMS, x);
    warp_f16 o2 = warp_poly(poly + 4 * WARP_POLY_TERMS, x);
    tap[0] = e0 + g * o0;
    tap[1] = e1 + g * o1;
    tap[2] = e2 + g * o2;
    tap[3] = e2 - g * o2;
    tap[4] = e1 - g * o1;
    tap[5] = e0 - g * o0;
}

// Moves the weights of the lanes in `mask` up one load (w[n − 1] is 0 in
// them beforehand, w[0] is 0 after).
static inline void warp_lane_shift(warp_i16 mask, warp_f16 *w, int n) {
    const warp_f16 zero = {0};
    for (int t = n - 1; t > 0; t--) w[t] = warp_select(mask, w[t - 1], w[t]);
    w[0] = warp_select(mask, zero, w[0]);
}

// Turns `w[0…5]` (each lane's taps) into the weights of n = 6 + (last − c)
// loads starting at index `origin + c − 2`, where c and last are the least
// and greatest of the lanes' k (last − c ≤ 2): a lane with k = c + j moves
// its weights up j loads; w[t] is 0 outside a lane's taps.
static inline void warp_lane_spread(warp_i16 k, int32_t c, int32_t last, warp_f16 w[WARP_LOADS]) {
    const warp_f16 zero = {0};
    int n = 6 + (last - c);
    for (int t = 6; t < n; t++) w[t] = zero;
    warp_lane_shift(k > c, w, n);
    if (last - c == 2) warp_lane_shift(k > c + 1, w, n);
}

// The passes' weights on plain arrays (for tests): offsets[16] in (spanning
// less than 2 px), the weights of the 8 loads starting at the returned index
// (relative to each lane's origin) out as w[16·t + lane], 0 past the loads
// the lanes need.
static inline int32_t warp_lane_weights_at(const float *offsets, const float *poly, float *w) {
    warp_f16 s, down, v[WARP_LOADS];
    __builtin_memcpy(&s, offsets, sizeof s);
    warp_i16 k = warp_floor16(s, &down);
    int32_t c = __builtin_reduce_min(k), last = __builtin_reduce_max(k);
    warp_lane_taps(s, down, poly, v);
    const warp_f16 zero = {0};
    v[6] = zero;
    v[7] = zero;
    warp_lane_spread(k, c, last, v);
    __builtin_memcpy(w, v, sizeof v);
    return c - 2;
}

static const warp_f16 warp_iota16 = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// The next group of 16 lanes of [*u, end) (end − start ≥ 16): the last
// group is moved back to end at `end`, overlapping the one before (whose
// lanes it recomputes to the same values).
static inline ptrdiff_t warp_group(ptrdiff_t u, ptrdiff_t end) { return u + WARP_LANES > end ? end - WARP_LANES : u; }

static inline warp_f16 warp_load16_u8(const uint8_t *s) {
    warp_b16 v;
    __builtin_memcpy(&v, s, sizeof v);
    return __builtin_convertvector(v, warp_f16);
}
static inline warp_f16 warp_load16_f32(const float *s) {
    warp_f16 v;
    __builtin_memcpy(&v, s, sizeof v);
    return v;
}

// Pass 1, down the frame's columns, for one output row: column u of [u0,
// u1) (u1 − u0 ≥ 16, within the frame) sampled at row `row + a + b·u` with
// the kernel `poly` (as `warp_lane_taps` takes it), its taps' rows clamped
// to [0, fh − 1], into outs[p][u] for each of the nplanes planes (8-bit
// samples, unscaled, or floats). `NAME##_loads` sums n (6 to 8) weighted
// row loads per plane.
#define WARP_COLUMN_PASS(NAME, T, LOAD)                                                                        \
__attribute__((always_inline))                                                                                 \
static inline void NAME##_loads(const T *const *planes, ptrdiff_t nplanes, float *const *outs, ptrdiff_t u,     \
                                const ptrdiff_t *rows, const warp_f16 *w, int n) {                             \
    for (ptrdiff_t p = 0; p < nplanes; p++) {                                                                  \
        const T *s = planes[p];                                                                                \
        /* Written out, in two chains: n is a constant once inlined. */                                        \
        warp_f16 even = w[0] * LOAD(s + rows[0]), odd = w[1] * LOAD(s + rows[1]);                              \
        even += w[2] * LOAD(s + rows[2]);                                                                      \
        odd += w[3] * LOAD(s + rows[3]);                                                                       \
        even += w[4] * LOAD(s + rows[4]);                                                                      \
        odd += w[5] * LOAD(s + rows[5]);                                                                       \
        if (n >= 7) even += w[6] * LOAD(s + rows[6]);                                                          \
        if (n == 8) odd += w[7] * LOAD(s + rows[7]);                                                           \
        warp_f16 acc = even + odd;                                                                             \
        __builtin_memcpy(outs[p] + u, &acc, sizeof acc);                                                       \
    }                                                                                                          \
}                                                                                                              \
static inline void NAME(const T *const *planes, ptrdiff_t nplanes, ptrdiff_t fw, ptrdiff_t fh, float *const *outs, \
                        ptrdiff_t u0, ptrdiff_t u1, ptrdiff_t row, float a, float b, const float *poly) {        \
    for (ptrdiff_t u = u0; u < u1; u += WARP_LANES) {                                                          \
        u = warp_group(u, u1);                                                                                 \
        warp_f16 s = a + b * ((float)u + warp_iota16), down, w[WARP_LOADS];                                    \
        warp_i16 k = warp_floor16(s, &down);                                                                   \
        warp_lane_taps(s, down, poly, w);                                                                      \
        /* s is linear in the lane: its ends hold the extremes. */                                             \
        int32_t c = k[0] < k[15] ? k[0] : k[15], last = k[0] < k[15] ? k[15] : k[0];                           \
        ptrdiff_t rows[WARP_LOADS], top = row + c - 2;                                                         \
        if (top >= 0 && top + WARP_LOADS - 1 <= fh - 1) {   /* inside the frame: no clamping */                \
            for (int t = 0; t < WARP_LOADS; t++) rows[t] = (top + t) * fw + u;                                 \
        } else {                                                                                               \
            for (int t = 0; t < WARP_LOADS; t++) {                                                             \
                ptrdiff_t r = top + t;                                                                         \
                rows[t] = (r < 0 ? 0 : r > fh - 1 ? fh - 1 : r) * fw + u;                                      \
            }                                                                                                  \
        }                                                                                                      \
        if (c == last) {                                                                                       \
            NAME##_loads(planes, nplanes, outs, u, rows, w, 6);                                                \
        } else if (last - c == 1) {                                                                            \
            warp_lane_spread(k, c, last, w);                                                                   \
            NAME##_loads(planes, nplanes, outs, u, rows, w, 7);                                                \
        } else {                                                                                               \
            warp_lane_spread(k, c, last, w);                                                                   \
            NAME##_loads(planes, nplanes, outs, u, rows, w, 8);                                                \
        }                                                                                                      \
    }                                                                                                          \
}

WARP_COLUMN_PASS(warp_column_pass_u8, uint8_t, warp_load16_u8)
WARP_COLUMN_PASS(warp_column_pass_f32, float, warp_load16_f32)
#undef WARP_COLUMN_PASS

// Pass 2's n (6 to 8) weighted loads per plane for the 16 outputs at x, the
// loads starting at lines[p] + x + first.
__attribute__((always_inline))
static inline void warp_row_loads(const float *const *lines, ptrdiff_t nplanes, float *const *outs, ptrdiff_t x,
                                  ptrdiff_t first, const warp_f16 *w, int n, float scale) {
    for (ptrdiff_t p = 0; p < nplanes; p++) {
        const float *s = lines[p] + x + first;
        // Written out, in two chains: n is a constant once inlined.
        warp_f16 even = w[0] * warp_load16_f32(s), odd = w[1] * warp_load16_f32(s + 1);
        even += w[2] * warp_load16_f32(s + 2);
        odd += w[3] * warp_load16_f32(s + 3);
        even += w[4] * warp_load16_f32(s + 4);
        odd += w[5] * warp_load16_f32(s + 5);
        if (n >= 7) even += w[6] * warp_load16_f32(s + 6);
        if (n == 8) odd += w[7] * warp_load16_f32(s + 7);
        warp_f16 acc = (even + odd) * scale;
        __builtin_memcpy(outs[p] + x, &acc, sizeof acc);
    }
}

// Pass 2, along one output row: output x of [x0, x1) (x1 − x0 ≥ 16) sampled
// in each plane's pass-1 line (lines[p][u], readable wherever a tap or a
// lane's 8-load reach falls) at u = x + (p0 + x·(p1 − m6·x)) / (q0 + m6·x)
// with the kernel `poly`, times `scale`, into outs[p][x].
static inline void warp_row_pass(const float *const *lines, ptrdiff_t nplanes, float *const *outs, ptrdiff_t x0,
                                 ptrdiff_t x1, float p0, float p1, float m6, float q0, const float *poly,
                                 float scale) {
    for (ptrdiff_t x = x0; x < x1; x += WARP_LANES) {
        x = warp_group(x, x1);
        warp_f16 xf = (float)x + warp_iota16;
        warp_f16 s = (p0 + xf * (p1 - m6 * xf)) / (q0 + m6 * xf), down, w[WARP_LOADS];
        warp_i16 k = warp_floor16(s, &down);
        warp_lane_taps(s, down, poly, w);
        // The offset need not be monotone across the lanes: their least and
        // greatest, unless all equal the first (most groups).
        int32_t c = k[0], last = c;
        if (__builtin_reduce_or(k != c)) {
            c = __builtin_reduce_min(k);
            last = __builtin_reduce_max(k);
        }
        if (c == last) {
            warp_row_loads(lines, nplanes, outs, x, c - 2, w, 6, scale);
        } else if (last - c == 1) {
            warp_lane_spread(k, c, last, w);
            warp_row_loads(lines, nplanes, outs, x, c - 2, w, 7, scale);
        } else {
            warp_lane_spread(k, c, last, w);
            warp_row_loads(lines, nplanes, outs, x, c - 2, w, 8, scale);
        }
    }
}
