extension Transform {
    /// The homography that best maps each `from` point onto its `to` point
    /// (in the algebraic least-squares sense), by the normalised direct
    /// linear transform of Hartley & Zisserman (Algorithm 4.2).
    ///
    /// Each point set is translated to its centroid and scaled so the mean
    /// distance from it is √2; the 2n × 9 DLT system is solved by SVD and the
    /// result denormalised and scaled so `matrix[8] == 1` (when that entry
    /// is not ≈ 0; else to unit norm, with w > 0 at the `from` points'
    /// centroid). Four points in general position give an exact fit; more
    /// give a least-squares fit.
    ///
    /// - Parameter pairs: point correspondences, any pixel convention (the
    ///   result maps `from` coordinates to `to` coordinates).
    /// - Returns: nil for fewer than 4 pairs, non-finite input, degenerate
    ///   configurations (coincident or collinear points: the null space is
    ///   not one-dimensional), or a singular result.
    public static func fromCorrespondences(_ pairs: [(from: (Double, Double), to: (Double, Double))]) -> Transform? {
        guard pairs.count >= 4 else { return nil }
        for p in pairs {
            guard p.from.0.isFinite, p.from.1.isFinite, p.to.0.isFinite, p.to.1.isFinite else { return nil }
        }
        guard let nf = normalising(pairs.map(\.from)), let nt = normalising(pairs.map(\.to)) else { return nil }
        var a = [Double]()
        a.reserveCapacity(pairs.count * 18)
        for p in pairs {
            let (x, y) = nf.apply(x: p.from.0, y: p.from.1)
            let (u, v) = nt.apply(x: p.to.0, y: p.to.1)
            // h · (x, y, 1) ∝ (u, v, 1): two independent rows per pair.
            a += [0, 0, 0, -x, -y, -1, v * x, v * y, v]
            a += [x, y, 1, 0, 0, 0, -u * x, -u * y, -u]
        }
        guard let (h, smallest, second) = HomographyLinearAlgebra.nullVector(a, rows: 2 * pairs.count, cols: 9),
              second > 1e-9, smallest <= second,
              let ntInverse = nt.inverse else { return nil }
        let hn = Transform(matrix: h)
        var m = ntInverse.concatenating(hn).concatenating(nf).matrix
        let scale: Double
        if abs(m[8]) > 1e-12 {
            scale = 1 / m[8]
        } else {
            // The origin maps to infinity: unit norm, signed so the `from`
            // points keep a positive w (a negated matrix is the same map,
            // but callers read w's sign as the side of the horizon).
            let norm = m.reduce(0) { $0 + $1 * $1 }.squareRoot()
            guard norm > 0 else { return nil }
            let n = Double(pairs.count)
            let cx = pairs.reduce(0) { $0 + $1.from.0 } / n, cy = pairs.reduce(0) { $0 + $1.from.1 } / n
            scale = (m[6] * cx + m[7] * cy + m[8] < 0 ? -1 : 1) / norm
        }
        m = m.map { $0 * scale }
        let result = Transform(matrix: m)
        guard m.allSatisfy(\.isFinite), result.inverse != nil else { return nil }
        return result
    }

    /// Hartley's conditioning transform: centroid to the origin, mean
    /// distance √2. Nil when all points coincide.
    static func normalising(_ points: [(Double, Double)]) -> Transform? {
        let n = Double(points.count)
        let cx = points.reduce(0) { $0 + $1.0 } / n, cy = points.reduce(0) { $0 + $1.1 } / n
        let meanDistance = points.reduce(0) { $0 + ((($1.0 - cx) * ($1.0 - cx) + ($1.1 - cy) * ($1.1 - cy)).squareRoot()) } / n
        guard meanDistance > 1e-12, meanDistance.isFinite else { return nil }
        let s = 2.0.squareRoot() / meanDistance
        return Transform(matrix: [s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1])
    }
}

// References
// - R. Hartley and A. Zisserman, Multiple View Geometry in Computer Vision,
//   2nd ed., Cambridge University Press, 2004, §4.1–4.4 (DLT, Algorithm 4.2:
//   normalised DLT).
// - R. I. Hartley, "In defense of the eight-point algorithm", IEEE Trans.
//   Pattern Analysis and Machine Intelligence 19(6), 580–593, 1997.
