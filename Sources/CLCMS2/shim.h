// Little CMS 2 (Debian 12: liblcms2-dev, 2.14), wrapped for Swift.
//
// Why this header holds code: our images are planar (one array per
// channel, not adjacent in memory), lcms2 wants pixels interleaved or in
// planes at one fixed stride, so the apply functions below gather a small
// block of pixels into an interleaved buffer on the stack, transform it and
// scatter it back; and building a profile from primaries takes a few lcms2
// structs that are easier to fill in C. Swift calls only the stack_lcms_…
// functions, from Stacker's Colour/LittleCMS.swift.
#ifndef STACK_CLCMS2_SHIM_H
#define STACK_CLCMS2_SHIM_H

#include <lcms2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Exists to keep lcms2's messages off stderr: a bad profile is reported by
// the NULL the caller gets, and named by Swift.
static void stack_lcms_quiet(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    (void)text;
}

/// Silences lcms2's error log (process-wide; idempotent).
static inline void stack_lcms_silence(void) { cmsSetLogErrorHandler(stack_lcms_quiet); }

/// Releases a buffer returned by stack_lcms_rgb_profile.
static inline void stack_lcms_free(void *buffer) { free(buffer); }

/// 1 when `data` is an ICC profile lcms2 opens whose colour space is RGB,
/// else 0.
static inline int stack_lcms_is_rgb_profile(const void *data, uint32_t size) {
    cmsHPROFILE p = cmsOpenProfileFromMem(data, size);
    if (p == NULL) return 0;
    int ok = cmsGetColorSpace(p) == cmsSigRgbData;
    cmsCloseProfile(p);
    return ok;
}

/// An RGB matrix/shaper ICC profile (v4) from a white point and primaries
/// (CIE xy) and one transfer curve for all three channels: when
/// `parametric` is 1, ICC parametric curve type 4 with `curve` = {g, a, b,
/// c, d}: Y = (aX + b)^g for X >= d, Y = cX below (the sRGB and BT.709
/// curves are of this kind); else a pure power Y = X^curve[0]. Saved into
/// a malloc'd buffer (release with stack_lcms_free); NULL on failure.
static inline unsigned char *stack_lcms_rgb_profile(const double xy[8], const double curve_parameters[5],
                                                    int parametric, uint32_t *out_size) {
    *out_size = 0;
    cmsCIExyY white = {xy[0], xy[1], 1.0};
    cmsCIExyYTRIPLE primaries = {{xy[2], xy[3], 1.0}, {xy[4], xy[5], 1.0}, {xy[6], xy[7], 1.0}};
    cmsToneCurve *curve = parametric ? cmsBuildParametricToneCurve(NULL, 4, curve_parameters)
                                     : cmsBuildGamma(NULL, curve_parameters[0]);
    if (curve == NULL) return NULL;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE p = cmsCreateRGBProfile(&white, &primaries, curves);
    cmsFreeToneCurve(curve);
    if (p == NULL) return NULL;
    cmsUInt32Number size = 0;
    unsigned char *out = NULL;
    if (cmsSaveProfileToMem(p, NULL, &size) && size > 0 && (out = (unsigned char *)malloc(size)) != NULL) {
        if (!cmsSaveProfileToMem(p, out, &size)) { free(out); out = NULL; }
    }
    cmsCloseProfile(p);
    if (out != NULL) *out_size = size;
    return out;
}

/// A transform from profile `source` to profile `target` (either NULL:
/// lcms2's built-in sRGB), relative colorimetric, on RGB float samples
/// when `floats` is 1, else 8-bit samples. Returns the cmsHTRANSFORM, or
/// NULL when a profile cannot be opened or the transform not built.
/// Release with stack_lcms_transform_free.
static inline void *stack_lcms_transform_new(const void *source, uint32_t source_size,
                                             const void *target, uint32_t target_size, int floats) {
    cmsHPROFILE in = source != NULL ? cmsOpenProfileFromMem(source, source_size) : cmsCreate_sRGBProfile();
    cmsHPROFILE out = target != NULL ? cmsOpenProfileFromMem(target, target_size) : cmsCreate_sRGBProfile();
    cmsHTRANSFORM t = NULL;
    if (in != NULL && out != NULL) {
        cmsUInt32Number format = floats ? TYPE_RGB_FLT : TYPE_RGB_8;
        t = cmsCreateTransform(in, format, out, format, INTENT_RELATIVE_COLORIMETRIC, 0);
    }
    if (in != NULL) cmsCloseProfile(in);
    if (out != NULL) cmsCloseProfile(out);
    return t;
}

/// Releases a transform from stack_lcms_transform_new.
static inline void stack_lcms_transform_free(void *transform) {
    if (transform != NULL) cmsDeleteTransform((cmsHTRANSFORM)transform);
}

/// Pixels gathered per block: 3 × 4 KB floats, on the stack.
enum { STACK_LCMS_BLOCK = 1024 };

// Defines NAME(transform, r, g, b, count): transforms `count` pixels held
// in three planes of T, in place, block by block. One body for the two
// sample types, written once.
#define STACK_LCMS_APPLY(NAME, T)                                                          \
    static inline void NAME(void *transform, T *r, T *g, T *b, size_t count) {             \
        T block[3 * STACK_LCMS_BLOCK];                                                     \
        for (size_t start = 0; start < count; start += STACK_LCMS_BLOCK) {                 \
            size_t n = count - start < STACK_LCMS_BLOCK ? count - start : STACK_LCMS_BLOCK; \
            for (size_t i = 0; i < n; i++) {                                               \
                block[3 * i] = r[start + i];                                               \
                block[3 * i + 1] = g[start + i];                                           \
                block[3 * i + 2] = b[start + i];                                           \
            }                                                                              \
            cmsDoTransform((cmsHTRANSFORM)transform, block, block, (cmsUInt32Number)n);    \
            for (size_t i = 0; i < n; i++) {                                               \
                r[start + i] = block[3 * i];                                               \
                g[start + i] = block[3 * i + 1];                                           \
                b[start + i] = block[3 * i + 2];                                           \
            }                                                                              \
        }                                                                                  \
    }

/// Float planes, with a float transform from stack_lcms_transform_new.
STACK_LCMS_APPLY(stack_lcms_apply_float, float)
/// 8-bit planes, with an 8-bit transform from stack_lcms_transform_new.
STACK_LCMS_APPLY(stack_lcms_apply_u8, uint8_t)

#endif // STACK_CLCMS2_SHIM_H
