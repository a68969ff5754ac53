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
/// is a polynomial of degree 3 in `x = 8g² − 1` (which spans [−1, 1]),
/// fitted to the kernel's phase table (`WeightTable`) for the least largest
/// error it leaves in the weights (`minimax`), except `E2`, which is
/// `1/2 − E0 − E1` so that the 6 weights sum to 1.
///
/// Lanczos-3's weights come within 3.7e-6 of the exact kernel this way
/// (degree 4 would give 2e-7 for 5 more multiply-adds per 16 outputs and
/// pass; the general warp's 4096-phase table rounds the offset, which moves
/// its weights by up to 1.7e-4); bilinear and Keys cubic are polynomials of
/// lower degree and come out exact to rounding. `init` measures the fit
/// against the table and refuses a kernel the form does not hold
/// (`LaneWeightTests`).
struct LaneWeightPolynomials: Sendable {
    /// Coefficients per polynomial (degree 3), lowest first: the C kernel's
    /// `WARP_POLY_TERMS`.
    static let terms = 4
    /// Every how many of the phase table's phases the fit runs on (the
    /// result is measured on all of them).
    static let fitStride = 8
    /// Iterations of Lawson's algorithm per polynomial.
    static let lawsonIterations = 20
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
        // Each part alone, on every `fitStride`-th phase, fitted for the
        // least largest error it leaves in the weights. An odd part reaches
        // the weights times g, so its error is measured so (and the phase
        // at g = 0 is left out: O is a quotient by g).
        var coefficients: [Float] = []
        for k in 0..<5 {
            var powers: [Double] = [], targets: [Double] = [], scales: [Double] = []
            for p in Swift.stride(from: 0, to: phases, by: Self.fitStride) where k < 2 || 2 * p != phases {
                let (g, row) = frame(p)
                powers += row
                if k < 2 {
                    targets.append((weight(p, k) + weight(p, 5 - k)) / 2)
                    scales.append(1)
                } else {
                    targets.append((weight(p, k - 2) - weight(p, 7 - k)) / (2 * g))
                    scales.append(abs(g))
                }
            }
            guard let fit = Self.minimax(powers: powers, targets: targets, scales: scales, terms: n) else { return nil }
            coefficients += fit.map { Float($0) }
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

    /// The coefficients of the polynomial of `terms` terms (rows of
    /// `powers`, `terms` each) with the least largest `scales[i] ·
    /// |P(x_i) − targets[i]|` that `lawsonIterations` of Lawson's algorithm
    /// find: least squares, each point's weight then multiplied by its
    /// error, the best fit met kept. Nil when the first system is singular.
    private static func minimax(powers: [Double], targets: [Double], scales: [Double], terms n: Int) -> [Double]? {
        let m = targets.count
        var weights = [Double](repeating: 1, count: m)
        var best: (error: Double, fit: [Double])?
        for _ in 0..<lawsonIterations {
            var gram = [Double](repeating: 0, count: n * n), sums = [Double](repeating: 0, count: n)
            for i in 0..<m {
                let w = weights[i] * scales[i] * scales[i], row = i * n
                for r in 0..<n {
                    for c in 0..<n { gram[r * n + c] += w * powers[row + r] * powers[row + c] }
                    sums[r] += w * powers[row + r] * targets[i]
                }
            }
            guard let fit = HomographyLinearAlgebra.solveSymmetric(gram, sums, n: n) else { break }
            var errors = [Double](repeating: 0, count: m), worst = 0.0, total = 0.0
            for i in 0..<m {
                var value = 0.0
                for r in 0..<n { value += powers[i * n + r] * fit[r] }
                errors[i] = scales[i] * abs(value - targets[i])
                worst = max(worst, errors[i])
                total += weights[i] * errors[i]
            }
            if best.map({ worst < $0.error }) ?? true { best = (worst, fit) }
            guard total > 0, worst > 1e-12 else { break }      // exact: nothing to spread
            for i in 0..<m { weights[i] *= errors[i] / total }
        }
        return best?.fit
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
