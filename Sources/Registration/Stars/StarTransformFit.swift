#if canImport(Glibc)
import Glibc
#endif

/// Closed-form weighted least-squares fits of a frame → reference transform
/// to matched star positions.
///
/// - Similarity (`x' = s R x + t`): both point sets are centred on their
///   weighted centroids; with `Sxx = Σ w (x·u + y·v)` and
///   `Sxy = Σ w (x·v − y·u)` over the centred pairs, the rotation is
///   `atan2(Sxy, Sxx)` and the scale `√(Sxx² + Sxy²) / Σ w (x² + y²)` — the
///   2-D case of Umeyama's solution, which never returns a reflection.
/// - Affine: the weighted normal equations of `u = a x + b y + c` and
///   `v = d x + e y + f` on centred coordinates, solved by Cholesky
///   (`HomographyLinearAlgebra.solveSymmetric`).
enum StarTransformFit {
    /// The model's transform mapping `from[i]` onto `to[i]`, weighted by
    /// `weights` (nil: equal). Nil when there are too few pairs (2 for a
    /// similarity, 3 for an affine), the points are degenerate (coincident,
    /// or collinear for an affine), or the result is not finite.
    static func fit(_ model: StarOptions.Model, from: [SIMD2<Double>], to: [SIMD2<Double>],
                    weights: [Double]? = nil) -> Transform? {
        guard from.count == to.count, weights == nil || weights?.count == from.count else { return nil }
        switch model {
        case .similarity: return similarity(from: from, to: to, weights: weights)
        case .affine: return affine(from: from, to: to, weights: weights)
        }
    }

    /// Weighted centroids of both sets and the total weight.
    private static func centroids(_ from: [SIMD2<Double>], _ to: [SIMD2<Double>], _ weights: [Double]?)
        -> (SIMD2<Double>, SIMD2<Double>, Double)? {
        var sw = 0.0, cf = SIMD2<Double>(0, 0), ct = SIMD2<Double>(0, 0)
        for i in 0..<from.count {
            let w = weights?[i] ?? 1
            guard w >= 0, w.isFinite else { return nil }
            sw += w; cf += w * from[i]; ct += w * to[i]
        }
        guard sw > 0 else { return nil }
        return (cf / sw, ct / sw, sw)
    }

    static func similarity(from: [SIMD2<Double>], to: [SIMD2<Double>], weights: [Double]?) -> Transform? {
        guard from.count >= 2, let (cf, ct, _) = centroids(from, to, weights) else { return nil }
        var sxx = 0.0, sxy = 0.0, norm = 0.0
        for i in 0..<from.count {
            let w = weights?[i] ?? 1
            let p = from[i] - cf, q = to[i] - ct
            sxx += w * (p.x * q.x + p.y * q.y)
            sxy += w * (p.x * q.y - p.y * q.x)
            norm += w * (p.x * p.x + p.y * p.y)
        }
        guard norm > 1e-12 else { return nil }
        let theta = atan2(sxy, sxx)
        let scale = (sxx * sxx + sxy * sxy).squareRoot() / norm
        let c = scale * cos(theta), s = scale * sin(theta)
        let tx = ct.x - (c * cf.x - s * cf.y), ty = ct.y - (s * cf.x + c * cf.y)
        let m = [c, -s, tx, s, c, ty, 0, 0, 1]
        guard m.allSatisfy(\.isFinite), scale > 0 else { return nil }
        return Transform(matrix: m)
    }

    static func affine(from: [SIMD2<Double>], to: [SIMD2<Double>], weights: [Double]?) -> Transform? {
        guard from.count >= 3, let (cf, ct, sw) = centroids(from, to, weights) else { return nil }
        // Centred: the constant column decouples (its equation gives the
        // translation), leaving a 2 × 2 system per output coordinate.
        var sxx = 0.0, sxy = 0.0, syy = 0.0, bu = SIMD2<Double>(0, 0), bv = SIMD2<Double>(0, 0)
        for i in 0..<from.count {
            let w = weights?[i] ?? 1
            let p = from[i] - cf, q = to[i] - ct
            sxx += w * p.x * p.x; sxy += w * p.x * p.y; syy += w * p.y * p.y
            bu += w * q.x * p; bv += w * q.y * p
        }
        // Reject (near-)collinear point sets: the normal matrix must be well conditioned.
        let det = sxx * syy - sxy * sxy
        guard det > 1e-9 * max(sxx * syy, 1e-300), sw > 0 else { return nil }
        let normal = [sxx, sxy, sxy, syy]
        guard let row0 = HomographyLinearAlgebra.solveSymmetric(normal, [bu.x, bu.y], n: 2),
              let row1 = HomographyLinearAlgebra.solveSymmetric(normal, [bv.x, bv.y], n: 2) else { return nil }
        let tx = ct.x - (row0[0] * cf.x + row0[1] * cf.y), ty = ct.y - (row1[0] * cf.x + row1[1] * cf.y)
        let m = [row0[0], row0[1], tx, row1[0], row1[1], ty, 0, 0, 1]
        guard m.allSatisfy(\.isFinite), Transform(matrix: m).inverse != nil else { return nil }
        return Transform(matrix: m)
    }
}

// References
// - S. Umeyama, "Least-squares estimation of transformation parameters
//   between two point patterns", IEEE Trans. Pattern Analysis and Machine
//   Intelligence 13(4), 376–380, 1991.
// - B. K. P. Horn, "Closed-form solution of absolute orientation using unit
//   quaternions", J. Opt. Soc. Am. A 4(4), 629–642, 1987.
