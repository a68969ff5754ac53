/// A symmetric interpolation kernel's tap weights as polynomials in the
/// fractional offset: the form in which the two-pass warp's lanes compute
/// their weights (`warp_lane_taps` in Sources/CWarpKernels/shim.h), a
/// few multiply-adds across 16 lanes where a phase table needs a row load
/// per lane and a transpose.
///
/// Every kernel sits in Lanczos-3's frame of 6 taps, tap `i` at `floor(x) −
/// 2 + i` (shorter kernels centred in it, zeros around). With `f` the
/// fractional offset and `g = f − 1/2`, a symmetric kernel (`w_i(f) =
/// w_{5−i}(1 − f)`) has `w_i = E_i(g) + g·O_i(g)` and `w_{5−i} = E_i(g) −
/// g·O_i(g)` with `E_i` and `O_i` even in `g`, so functions of `g²`. Each
/// is a polynomial of degree 4 in `x = 8g² − 1` (which spans [−1, 1]),
/// fitted by least squares to the kernel's phase table (`WeightTable`),
/// except `E2`, which is `1/2 − E0 − E1` so that the 6 weights sum to 1.
///
/// Lanczos-3's weights come within 6e-7 of the exact kernel this way
/// (the 4096-phase table's rounding of the offset moves them by up to
/// 1.7e-4); bilinear and Keys cubic are polynomials of lower degree and
/// come out exact to rounding. `init` measures the fit against the table
/// and refuses a kernel the form does not hold (`LaneWeightTests`).
struct LaneWeightPolynomials: Sendable {
    /// Coefficients per polynomial (degree 4), lowest first: the C kernel's
    /// `WARP_POLY_TERMS`.
    static let terms = 5
    /// Taps of the frame every kernel is placed in.
    static let taps = 6
    /// Offset of the frame's first tap from `floor(x)`.
    static let firstTap = -2
    /// The largest difference from the phase table a fit may leave.
    static let tolerance = 1e-5

    /// `E0, E1, O0, O1, O2`, `terms` coefficients each: the layout
    /// `warp_lane_taps` reads.
    let coefficients: [Float]
    /// The largest difference of these weights (the `Float` coefficients
    /// evaluated in `Double`) from the kernel's phase table, over all its
    /// phases and taps.
    let tableError: Double

    /// The polynomials of `interpolation`, or nil when it has no 2 to 6
    /// taps that fit centred in the frame, or the fit leaves more than
    /// `tolerance` (a kernel that is not symmetric).
    init?(_ interpolation: Interpolation) {
        let shift = interpolation.firstTap - Self.firstTap, taps = interpolation.taps
        guard taps >= 2, shift >= 0, shift + taps <= Self.taps else { return nil }
        let table = interpolation.phaseTable.weights, phases = WeightTable.phases, n = Self.terms
        /// Frame tap `i`'s weight at phase `p`.
        func weight(_ p: Int, _ i: Int) -> Double {
            let j = i - shift
            return j >= 0 && j < taps ? Double(table[p * WeightTable.stride + j]) : 0
        }
        func frame(_ p: Int) -> (g: Double, powers: [Double]) {
            let g = Double(p) / Double(phases) - 0.5, x = 8 * g * g - 1
            return (g, (1..<n).reduce(into: [1.0]) { powers, _ in powers.append(powers.last! * x) })
        }
        // Normal equations, one Gram matrix for the 5 right-hand sides; the
        // phase at g = 0 is left out (O's quotient by g).
        var gram = [Double](repeating: 0, count: n * n)
        var sums = [[Double]](repeating: [Double](repeating: 0, count: n), count: 5)
        for p in 0..<phases where 2 * p != phases {
            let (g, powers) = frame(p)
            let targets = (0..<2).map { (weight(p, $0) + weight(p, 5 - $0)) / 2 }
                        + (0..<3).map { (weight(p, $0) - weight(p, 5 - $0)) / (2 * g) }
            for r in 0..<n {
                for c in 0..<n { gram[r * n + c] += powers[r] * powers[c] }
                for k in 0..<5 { sums[k][r] += powers[r] * targets[k] }
            }
        }
        var coefficients: [Float] = []
        for k in 0..<5 {
            guard let solution = HomographyLinearAlgebra.solveSymmetric(gram, sums[k], n: n) else { return nil }
            coefficients += solution.map { Float($0) }
        }
        self.coefficients = coefficients
        var worst = 0.0
        for p in 0..<phases {
            let w = Self.weights(at: Double(p) / Double(phases), coefficients)
            for i in 0..<Self.taps { worst = max(worst, abs(w[i] - weight(p, i))) }
        }
        tableError = worst
        guard worst <= Self.tolerance else { return nil }
    }

    /// The 6 frame taps' weights at fractional offset `f`, the `Float`
    /// coefficients evaluated in `Double` (the reference for the C kernel).
    func weights(at f: Double) -> [Double] { Self.weights(at: f, coefficients) }

    private static func weights(at f: Double, _ coefficients: [Float]) -> [Double] {
        let g = f - 0.5, x = 8 * g * g - 1, n = Self.terms
        let p = (0..<5).map { k in
            (0..<n).reversed().reduce(0.0) { $0 * x + Double(coefficients[k * n + $1]) }
        }
        let e = [p[0], p[1], 0.5 - p[0] - p[1]], o = [g * p[2], g * p[3], g * p[4]]
        return [e[0] + o[0], e[1] + o[1], e[2] + o[2], e[2] - o[2], e[1] - o[1], e[0] - o[0]]
    }

    /// The polynomials of `interpolation` (fitted once per process), nil as
    /// for `init`.
    static func of(_ interpolation: Interpolation) -> LaneWeightPolynomials? {
        switch interpolation {
        case .nearest: return nil
        case .bilinear: return bilinear
        case .bicubic: return bicubic
        case .lanczos3: return lanczos3
        }
    }
    private static let bilinear = LaneWeightPolynomials(.bilinear)
    private static let bicubic = LaneWeightPolynomials(.bicubic)
    private static let lanczos3 = LaneWeightPolynomials(.lanczos3)
}
