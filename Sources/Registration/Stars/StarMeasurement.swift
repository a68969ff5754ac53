#if canImport(Glibc)
import Glibc
#endif

/// Measures one star around a detected local maximum: position, width,
/// shape and flux from Gaussian-weighted ("adaptive") second moments, plus
/// the cheap rejection tests for hot pixels and saturated cores.
///
/// Method (all intensities background-subtracted, `b` and `σ` from the mesh):
/// 1. A star is saturated when any pixel of the 3 × 3 core reaches the
///    saturation level or 3 or more of the 8 neighbours equal the peak
///    within 0.5 % (a flat, clipped top): rejected unless
///    `includeSaturated`, else measured and flagged. An unsaturated peak
///    is rejected when fewer than 2 of the 4 direct neighbours exceed 2 σ
///    (a single hot pixel or cosmic-ray hit has no support).
/// 2. Iterate from the peak pixel with a circular Gaussian weight
///    `w = exp(−r² / 2σw²)` over a window of radius ⌈3.5 σw⌉:
///    the weighted first moments move the centre by
///    `m · (σw² + σp²) / σw²` (exact for a Gaussian star of variance σp²,
///    the SExtractor XWIN step), and the weighted second-moment matrix `M`
///    is deconvolved from the weight, `C = (M⁻¹ − σw⁻² I)⁻¹`, to give the
///    star's covariance; `σw² ← tr(C) / 2` so the weight stays matched to
///    the star. At the fixed point the centre is the matched-weight
///    centroid, which for a symmetric star is unbiased and, in sky-limited
///    noise, reaches about √2 · σp / SNR per axis (the Cramér–Rao bound of
///    a Gaussian fit).
/// 3. FWHM = 2.3548 · (λ₁ λ₂)^¼ of `C − I/12` (the pixel's box variance
///    removed), elongation √(λ₁ / λ₂), flux = S₀ · √det(C + σw² I) / σw²
///    (S₀ = Σ w I; exact for a Gaussian), SNR = S₀ / (σ · √Σ w²).
enum StarMeasurement {
    /// Most centring iterations; a star that has not converged by then is
    /// rejected (it almost always converges in 3–6).
    static let maximumIterations = 25
    /// Convergence: centre step below this (px) and width change below
    /// 10⁻³ relative.
    static let convergence = 1e-4
    /// The centre may not wander further than this from the peak pixel (px).
    static let maximumWander = 2.0
    /// Initial weight σ (px): FWHM ≈ 3.5 px, the middle of usual seeing.
    static let initialSigma = 1.5
    /// Direct neighbours above this many σ that a real star must have (of 4).
    static let supportSigma = 2.0
    static let minimumSupport = 2
    /// Neighbours within this fraction of the peak count as a flat top.
    static let flatTopTolerance = 0.005
    static let flatTopCount = 3
    /// FWHM / σ of a Gaussian.
    static let fwhmPerSigma = 2 * (2 * log(2.0)).squareRoot()

    /// The measured star at the local maximum `(px, py)`, or nil when it is
    /// rejected. `p` is the plane's `width × height` sample buffer; `b` and
    /// `sigma` the local sky level and noise.
    static func measure(_ p: UnsafeBufferPointer<Float>, width w: Int, height h: Int, px: Int, py: Int,
                        background b: Double, noise sigma: Double, options: StarDetectionOptions) -> Star? {
        let peakIndex = py * w + px
        guard px >= 1, py >= 1, px < w - 1, py < h - 1 else { return nil }
        let rawPeak = Double(p[peakIndex]), peak = rawPeak - b
        guard peak > 0 else { return nil }

        // 1. Saturation, flat top, support.
        var support = 0, flat = 0, clipped = false
        for dy in -1...1 {
            for dx in -1...1 {
                let v = Double(p[peakIndex + dy * w + dx])
                if v >= options.saturationLevel { clipped = true }
                if dx == 0 && dy == 0 { continue }
                if abs(v - rawPeak) <= flatTopTolerance * peak { flat += 1 }
                if (dx == 0 || dy == 0) && v - b > supportSigma * sigma { support += 1 }
            }
        }
        let saturated = clipped || flat >= flatTopCount
        if saturated && !options.includeSaturated { return nil }
        if !saturated && support < minimumSupport { return nil }

        // 2. Adaptive moments.
        let maxSigma = options.maximumFWHM / fwhmPerSigma
        let maxRadius = Int((3.5 * maxSigma).rounded(.up)) + 1
        var cx = Double(px), cy = Double(py), sw = initialSigma
        var converged = false
        var s0 = 0.0, sww = 0.0, c1 = 0.0, c2 = 0.0, cov = (xx: 0.0, yy: 0.0, xy: 0.0)
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * (2 * maxRadius + 1)) { weights -> Star? in
            for _ in 0..<maximumIterations {
                let r = min(maxRadius, max(3, Int((3.5 * sw).rounded(.up))))
                let ix = Int(cx.rounded()), iy = Int(cy.rounded())
                guard ix - r >= 0, iy - r >= 0, ix + r < w, iy + r < h else { return nil }
                let n = 2 * r + 1
                let inv = 1 / (2 * sw * sw)
                for k in 0..<n {
                    let ddx = Double(ix - r + k) - cx, ddy = Double(iy - r + k) - cy
                    weights[k] = exp(-ddx * ddx * inv)
                    weights[n + k] = exp(-ddy * ddy * inv)
                }
                var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
                s0 = 0; sww = 0
                for j in 0..<n {
                    let wy = weights[n + j], ddy = Double(iy - r + j) - cy
                    let row = (iy - r + j) * w + ix - r
                    var t0 = 0.0, tx = 0.0, txx = 0.0, tww = 0.0
                    for i in 0..<n {
                        let wi = weights[i], ddx = Double(ix - r + i) - cx
                        let v = wi * (Double(p[row + i]) - b)
                        t0 += v; tx += v * ddx; txx += v * ddx * ddx; tww += wi * wi
                    }
                    s0 += wy * t0; sx += wy * tx; sxx += wy * txx
                    sy += wy * t0 * ddy; syy += wy * t0 * ddy * ddy; sxy += wy * tx * ddy
                    sww += wy * wy * tww
                }
                guard s0 > 0 else { return nil }
                let mx = sx / s0, my = sy / s0
                let mxx = sxx / s0 - mx * mx, myy = syy / s0 - my * my, mxy = sxy / s0 - mx * my
                // Eigenvalues of M, then deconvolve the weight along each axis.
                let half = (mxx + myy) / 2, d = (((mxx - myy) / 2) * ((mxx - myy) / 2) + mxy * mxy).squareRoot()
                let l1 = half + d, l2 = half - d
                let s2 = sw * sw
                guard l2 > 1e-6, l1 < 0.98 * s2 else { return nil }
                c1 = 1 / (1 / l1 - 1 / s2); c2 = 1 / (1 / l2 - 1 / s2)
                // C shares M's eigenvectors: rebuild its entries for the centre step.
                let e = l1 - l2 > 1e-12 ? ((l1 - mxx) * (l1 - mxx) + mxy * mxy) : 0
                var cxx = (c1 + c2) / 2, cyy = cxx, cxy = 0.0
                if e > 0 {
                    // Unit eigenvector of λ₁: (mxy, λ₁ − mxx) / √e.
                    let ux = mxy / e.squareRoot(), uy = (l1 - mxx) / e.squareRoot()
                    cxx = c2 + (c1 - c2) * ux * ux; cyy = c2 + (c1 - c2) * uy * uy; cxy = (c1 - c2) * ux * uy
                } else if abs(mxx - myy) > 1e-12 {
                    cxx = mxx > myy ? c1 : c2; cyy = mxx > myy ? c2 : c1
                }
                cov = (cxx, cyy, cxy)
                // μ − c = (I + C / σw²) · m.
                var stepX = mx + (cxx * mx + cxy * my) / s2, stepY = my + (cxy * mx + cyy * my) / s2
                stepX = min(1, max(-1, stepX)); stepY = min(1, max(-1, stepY))
                cx += stepX; cy += stepY
                guard abs(cx - Double(px)) <= maximumWander, abs(cy - Double(py)) <= maximumWander else { return nil }
                let newSigma = min(maxSigma * 1.5, max(0.3, ((c1 + c2) / 2).squareRoot()))
                let widthChange = abs(newSigma - sw) / sw
                sw = newSigma
                if abs(stepX) < convergence, abs(stepY) < convergence, widthChange < 1e-3 {
                    converged = true
                    break
                }
            }
            guard converged else { return nil }

            // 3. Shape, flux, SNR and the final tests.
            let pixelVariance = 1.0 / 12
            let a1 = c1 - pixelVariance, a2 = c2 - pixelVariance
            let fwhm = a2 > 0 ? fwhmPerSigma * (a1 * a2).squareRoot().squareRoot() : 0
            let elongation = a2 > 0 ? (a1 / a2).squareRoot() : .infinity
            let s2 = sw * sw
            let flux = s0 * ((cov.xx + s2) * (cov.yy + s2) - cov.xy * cov.xy).squareRoot() / s2
            let snr = s0 / (sigma * sww.squareRoot())
            guard fwhm >= options.minimumFWHM, fwhm <= options.maximumFWHM,
                  elongation <= options.maximumElongation,
                  flux > 0, snr >= options.detectionSigma, cx.isFinite, cy.isFinite else { return nil }
            return Star(x: cx, y: cy, flux: flux, fwhm: fwhm, peak: peak, snr: snr, elongation: elongation,
                        isSaturated: saturated)
        }
    }
}

// References
// - E. Bertin, SExtractor documentation, "Windowed positions" (XWIN_IMAGE:
//   iterated Gaussian-weighted centroid with the factor-2 step).
// - G. M. Bernstein and M. Jarvis, "Shapes and shears, stars and smears:
//   optimal measurements for weak lensing", Astronomical Journal 123,
//   583–618, 2002 (adaptive moments, deconvolving the weight).
// - C. Hirata and U. Seljak, "Shear calibration biases in weak-lensing
//   surveys", MNRAS 343, 459–480, 2003 (adaptive-moment iteration).
// - K. A. Winick, "Cramér–Rao lower bounds on the performance of
//   charge-coupled-device optical position estimators", J. Opt. Soc. Am. A
//   3(11), 1809–1815, 1986.
