public import Registration

/// The kernels of the kernel-regression merge (`SuperResolutionMerge.kernel`),
/// one per 1× pixel: anisotropic Gaussians steered by the structure tensor
/// of the 1× stack's luma (Wronski et al. 2019, §5.1.2, with the constants
/// of Lafenetre, Facciolo and Eboli's IPOL implementation).
///
/// At each 1× pixel, the structure tensor is the sum over the 2 × 2 corner
/// gradients around it of `∇I ∇Iᵀ`, with `I` the luma in units of the
/// frames' noise σ. Its eigenvalues `λ1 ≥ λ2` and unit eigenvectors `e1`
/// (across the edge), `e2` (along it) give
///
///     A = 1 + √((λ1 − λ2)/(λ1 + λ2))        anisotropy, 1…2
///     D = clamp(1 − √λ1 / D_tr + D_th, 0, 1)  how flat (1: denoise)
///     k1 = k_detail · ((1 − D)(1 + (A − 1)(1/k_shrink − 1)) + D · k_denoise)
///     k2 = k_detail · ((1 − D)(1 + (A − 1)(k_stretch − 1)) + D · k_denoise)
///     Ω = k1² e1 e1ᵀ + k2² e2 e2ᵀ       (input pixels²)
///
/// and a sample at offset `d` (input pixels) from an output pixel's centre
/// weighs `exp(−½ dᵀ Ω⁻¹ d)` there. The IPOL code interpolates the
/// anisotropic shape by `A/2` (already half-stretched where `A = 1`, in an
/// arbitrary direction); we use `A − 1`, so an isotropic neighbourhood gets
/// a round kernel.
///
/// Memory: three floats per 1× pixel (Ω⁻¹'s entries).
public struct SteeredKernelField: Sendable {
    /// Base kernel σ on detail, in input pixels (IPOL: 0.25–0.33 by SNR).
    public static let kDetail: Float = 0.29
    /// How much wider the kernel grows on flat ground (IPOL: 3–5 by SNR).
    public static let kDenoise: Float = 4
    /// Offset of the flatness ramp (IPOL: 0.71–0.81 by SNR).
    public static let dThreshold: Float = 0.75
    /// Gradient (in noise σ) over which the flatness ramp falls (IPOL: 1–1.24).
    public static let dTransition: Float = 1.1
    /// Stretch along an edge (Wronski: 4).
    public static let kStretch: Float = 4
    /// Shrink across an edge (Wronski: 2).
    public static let kShrink: Float = 2
    /// How far a sample reaches, in input pixels: the 3 × 3 input
    /// neighbourhood of an output pixel, as in the IPOL implementation.
    public static let reach: Float = 1.5

    /// 1× grid width.
    public let width: Int
    /// 1× grid height.
    public let height: Int
    /// Per 1× pixel, Ω⁻¹ as (xx, xy, yy), row-major, in 1/input pixels².
    let inverse: [SIMD3<Float>]

    /// The field for `luma` (the 1× stack's), whose frames have noise σ
    /// `noise` (floored at half an 8-bit level).
    public init(luma: Plane, noise: Double) {
        width = luma.width
        height = luma.height
        let w = width, h = height
        let unit = 1 / Float(max(noise, 0.5 / 255))
        // Corner gradients: gx, gy at (x + ½, y + ½) for x < w − 1, y < h − 1.
        let cw = max(w - 1, 1), ch = max(h - 1, 1)
        var gx = [Float](repeating: 0, count: cw * ch), gy = gx
        if w > 1, h > 1 {
            for y in 0..<(h - 1) {
                for x in 0..<(w - 1) {
                    let a = luma[x, y] * unit, b = luma[x + 1, y] * unit
                    let c = luma[x, y + 1] * unit, d = luma[x + 1, y + 1] * unit
                    gx[y * cw + x] = 0.5 * ((b - a) + (d - c))
                    gy[y * cw + x] = 0.5 * ((c - a) + (d - b))
                }
            }
        }
        var field = [SIMD3<Float>](repeating: SIMD3(1, 0, 1) / (Self.kDetail * Self.kDetail), count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var sxx: Float = 0, sxy: Float = 0, syy: Float = 0
                for cy in max(0, y - 1)...min(ch - 1, y) where h > 1 {
                    for cx in max(0, x - 1)...min(cw - 1, x) where w > 1 {
                        let u = gx[cy * cw + cx], v = gy[cy * cw + cx]
                        sxx += u * u
                        sxy += u * v
                        syy += v * v
                    }
                }
                field[y * w + x] = Self.inverseCovariance(sxx: sxx, sxy: sxy, syy: syy)
            }
        }
        inverse = field
    }

    /// Ω⁻¹ (xx, xy, yy) for the structure tensor `[sxx sxy; sxy syy]`.
    static func inverseCovariance(sxx: Float, sxy: Float, syy: Float) -> SIMD3<Float> {
        let trace = sxx + syy, gap = ((sxx - syy) * (sxx - syy) + 4 * sxy * sxy).squareRoot()
        let l1 = max(0, (trace + gap) / 2), l2 = max(0, (trace - gap) / 2)
        // e1: the dominant direction (across an edge); any, when the tensor is isotropic.
        var e1 = SIMD2<Float>(1, 0)
        if gap > 1e-12 {
            let v = sxy != 0 ? SIMD2(l1 - syy, sxy) : (sxx >= syy ? SIMD2(1, 0) : SIMD2(0, 1))
            let n = (v * v).sum().squareRoot()
            if n > 0 { e1 = v / n }
        }
        let e2 = SIMD2(-e1.y, e1.x)
        let a = l1 + l2 > 0 ? 1 + ((l1 - l2) / (l1 + l2)).squareRoot() : 1
        let d = min(1, max(0, 1 - l1.squareRoot() / dTransition + dThreshold))
        let shape1 = 1 + (a - 1) * (1 / kShrink - 1), shape2 = 1 + (a - 1) * (kStretch - 1)
        let k1 = kDetail * ((1 - d) * shape1 + d * kDenoise)
        let k2 = kDetail * ((1 - d) * shape2 + d * kDenoise)
        let i1 = 1 / (k1 * k1), i2 = 1 / (k2 * k2)
        return SIMD3(i1 * e1.x * e1.x + i2 * e2.x * e2.x,
                     i1 * e1.x * e1.y + i2 * e2.x * e2.y,
                     i1 * e1.y * e1.y + i2 * e2.y * e2.y)
    }

    /// Ω⁻¹ at 1× pixel `(x, y)` (clamped to the grid).
    @inline(__always)
    func inverse(x: Int, y: Int) -> SIMD3<Float> {
        inverse[min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)]
    }
}

// References
// - B. Wronski, I. Garcia-Dorado, M. Ernst, D. Kelly, M. Krainin, C.-K.
//   Liang, M. Levoy and P. Milanfar, "Handheld Multi-Frame
//   Super-Resolution", ACM Trans. Graphics 38(4), 28, 2019.
// - J. Lafenetre, G. Facciolo and T. Eboli, "Implementing Handheld Burst
//   Super-Resolution", IPOL 13 (2023) (the constants and their ranges).
