/// Proposes star correspondences between two star lists by matching
/// triangles of their brightest stars in a space invariant to translation,
/// rotation and scale.
///
/// Method (Groth 1986; Valdes et al. 1995; Beroiz et al. 2020, astroalign):
/// 1. All C(n, 3) triangles of the `n` brightest stars. With sides
///    `a ≥ b ≥ c`, the invariants are `(b / a, c / a)`; vertices are named
///    by the side they face, so a matched triangle also pairs its corners.
///    The orientation (sign of the signed area, with the vertices in that
///    order) must agree too, since a mirror image is not a rotation.
///    Triangles that cannot be ordered reliably (two sides equal within the
///    tolerance), are nearly flat, or have a longest side under
///    `minimumSide` are skipped.
/// 2. Each frame triangle is looked up among the reference triangles
///    within `tolerance` in invariant space (`PointGrid`), whose size ratio
///    is within the allowed scale change.
/// 3. Every matched triangle gives one vote to each of its three corner
///    pairs. A frame star and a reference star are a candidate pair when
///    each is the other's most-voted partner (at least `minimumVotes`).
///    Chance triangle matches spread their votes thinly, while a true pair
///    collects votes from every shared triangle it belongs to.
struct TriangleMatcher: Sendable {
    /// A triangle: its invariants, longest side (px), orientation and its
    /// corners (star indices) ordered as facing the longest, middle and
    /// shortest side.
    struct Triangle: Sendable {
        var invariant: SIMD2<Double>
        var longest: Double
        var clockwise: Bool
        var corners: (Int, Int, Int)
    }

    /// Triangles with a longest side under this (px) are skipped: their
    /// side ratios are too sensitive to centroid noise.
    static let minimumSide = 10.0
    /// Nearly flat triangles (area / longest² below this) are skipped: their
    /// orientation is unreliable.
    static let minimumShape = 0.01
    /// Fewest votes for a candidate pair.
    static let minimumVotes = 2

    /// The reference points (brightest first) and their triangles.
    let referenceCount: Int
    let triangles: [Triangle]
    let grid: PointGrid
    let tolerance: Double
    let maximumScaleChange: Double

    /// Prepares the reference: `points` are the brightest reference stars.
    init(reference points: [SIMD2<Double>], tolerance: Double, maximumScaleChange: Double) {
        referenceCount = points.count
        triangles = Self.triangles(points, tolerance: tolerance)
        grid = PointGrid(points: triangles.map(\.invariant), radius: tolerance)
        self.tolerance = tolerance
        self.maximumScaleChange = maximumScaleChange
    }

    /// The usable triangles of `points`.
    static func triangles(_ p: [SIMD2<Double>], tolerance: Double) -> [Triangle] {
        let n = p.count
        guard n >= 3 else { return [] }
        var out: [Triangle] = []
        out.reserveCapacity(n * (n - 1) * (n - 2) / 6)
        for i in 0..<(n - 2) {
            for j in (i + 1)..<(n - 1) {
                for k in (j + 1)..<n {
                    // Side facing each vertex.
                    let si = (p[j] - p[k]), sj = (p[i] - p[k]), sk = (p[i] - p[j])
                    // (length, facing vertex), sorted longest first without allocating.
                    var s0 = ((si * si).sum().squareRoot(), i), s1 = ((sj * sj).sum().squareRoot(), j)
                    var s2 = ((sk * sk).sum().squareRoot(), k)
                    if s1.0 > s0.0 { swap(&s0, &s1) }
                    if s2.0 > s1.0 { swap(&s1, &s2) }
                    if s1.0 > s0.0 { swap(&s0, &s1) }
                    let a = s0.0, b = s1.0, c = s2.0
                    guard a >= minimumSide else { continue }
                    let u = b / a, v = c / a
                    guard 1 - u > tolerance, u - v > tolerance else { continue }
                    let pa = p[s0.1], pb = p[s1.1], pc = p[s2.1]
                    let e1 = pb - pa, e2 = pc - pa
                    let cross = e1.x * e2.y - e1.y * e2.x
                    guard abs(cross) / (a * a) >= minimumShape else { continue }
                    out.append(Triangle(invariant: SIMD2(u, v), longest: a, clockwise: cross > 0,
                                        corners: (s0.1, s1.1, s2.1)))
                }
            }
        }
        return out
    }

    /// Candidate pairs `(frame index, reference index, votes)`, most votes
    /// first, for the frame's brightest `points`.
    func candidates(frame points: [SIMD2<Double>]) -> [(frame: Int, reference: Int, votes: Int)] {
        let nf = points.count, nr = referenceCount
        guard nf >= 3, nr >= 3 else { return [] }
        let frameTriangles = Self.triangles(points, tolerance: tolerance)
        var votes = [Int](repeating: 0, count: nf * nr)
        let t2 = tolerance * tolerance
        let lowScale = 1 / (1 + maximumScaleChange), highScale = 1 + maximumScaleChange
        for f in frameTriangles {
            grid.forEachNear(f.invariant.x, f.invariant.y) { r in
                let t = triangles[r]
                let d = t.invariant - f.invariant
                guard t.clockwise == f.clockwise, (d * d).sum() < t2 else { return }
                let scale = t.longest / f.longest
                guard scale >= lowScale, scale <= highScale else { return }
                votes[f.corners.0 * nr + t.corners.0] += 1
                votes[f.corners.1 * nr + t.corners.1] += 1
                votes[f.corners.2 * nr + t.corners.2] += 1
            }
        }
        // Mutual best partners.
        var bestForReference = [Int](repeating: -1, count: nr)
        for r in 0..<nr {
            var best = 0
            for f in 0..<nf where votes[f * nr + r] > best { best = votes[f * nr + r]; bestForReference[r] = f }
        }
        var out: [(frame: Int, reference: Int, votes: Int)] = []
        for f in 0..<nf {
            var best = 0, partner = -1
            for r in 0..<nr where votes[f * nr + r] > best { best = votes[f * nr + r]; partner = r }
            if partner >= 0, best >= Self.minimumVotes, bestForReference[partner] == f {
                out.append((f, partner, best))
            }
        }
        out.sort { $0.votes > $1.votes }
        return out
    }
}

// References
// - E. J. Groth, "A pattern-matching algorithm for two-dimensional
//   coordinate lists", Astronomical Journal 91, 1244–1248, 1986.
// - F. G. Valdes, L. E. Campusano, J. D. Velasquez and P. B. Stetson,
//   "FOCAS automatic catalog matching algorithms", PASP 107, 1119–1128, 1995.
// - M. Beroiz, J. B. Cabral and B. Sanchez, "Astroalign: a Python module for
//   astronomical image registration", Astronomy and Computing 32, 100384, 2020.
