/// A frame's exposure against the reference's (auto-exposure drift in a
/// burst): the robust straight line `frame ≈ gain · reference + offset`
/// through pairs of samples taken at the same scene points, and the
/// correction `x′ = (x − offset) / gain` that brings the frame back.
///
/// The fit is iteratively reweighted least squares with Tukey's biweight
/// at `tukeyC` robust σ of the residuals (1.4826 · their median absolute
/// value), from the ordinary least-squares line: what moved between the two
/// frames (a passer-by, a car) gets weight 0. Pairs where either sample is
/// within `clipMargin` of 0 or 1 are left out: clipped highlights and
/// crushed shadows do not follow the line.
public enum ExposureFit {
    /// Tukey's biweight constant, in robust σ of the residuals.
    public static let tukeyC = 4.685
    /// Samples within this of 0 or 1 are taken as clipped and left out.
    public static let clipMargin: Float = 0.02
    /// Reweighting rounds after the least-squares start.
    public static let iterations = 8
    /// Fewest unclipped pairs a fit is made from.
    public static let minimumPairs = 64

    /// `(gain, offset)` with `frame ≈ gain · reference + offset`, or nil
    /// when fewer than `minimumPairs` pairs are unclipped, the reference
    /// samples have no spread, or the fitted gain is not positive and
    /// finite. `reference` and `frame` are paired by index; NaN in either
    /// leaves a pair out.
    public static func line(reference: [Float], frame: [Float]) -> (gain: Double, offset: Double)? {
        precondition(reference.count == frame.count,
                     "ExposureFit.line: \(reference.count) reference samples against \(frame.count)")
        var xs = [Double](), ys = [Double]()
        xs.reserveCapacity(reference.count); ys.reserveCapacity(reference.count)
        let low = clipMargin, high = 1 - clipMargin
        for (r, f) in zip(reference, frame) where r > low && r < high && f > low && f < high {
            xs.append(Double(r)); ys.append(Double(f))
        }
        guard xs.count >= minimumPairs else { return nil }
        var weights = [Double](repeating: 1, count: xs.count)
        guard var fit = weightedLine(xs, ys, weights) else { return nil }
        for _ in 0..<iterations {
            let residuals = zip(xs, ys).map { $1 - fit.gain * $0 - fit.offset }
            let absolute = residuals.map(abs).sorted()
            let c = tukeyC * 1.4826 * absolute[absolute.count / 2]
            guard c > 0 else { break }  // more than half the pairs on the line exactly
            for i in residuals.indices {
                let u = residuals[i] / c
                weights[i] = u * u < 1 ? (1 - u * u) * (1 - u * u) : 0
            }
            guard let next = weightedLine(xs, ys, weights) else { break }
            let settled = abs(next.gain - fit.gain) < 1e-6 && abs(next.offset - fit.offset) < 1e-6
            fit = next
            if settled { break }
        }
        guard fit.gain.isFinite, fit.offset.isFinite, fit.gain > 0 else { return nil }
        return fit
    }

    /// The weighted least-squares line `y = gain · x + offset`; nil when
    /// the weighted `x` have no spread.
    private static func weightedLine(_ xs: [Double], _ ys: [Double], _ w: [Double]) -> (gain: Double, offset: Double)? {
        var sw = 0.0, sx = 0.0, sy = 0.0
        for i in xs.indices { sw += w[i]; sx += w[i] * xs[i]; sy += w[i] * ys[i] }
        guard sw > 0 else { return nil }
        let mx = sx / sw, my = sy / sw
        var sxx = 0.0, sxy = 0.0
        for i in xs.indices {
            let dx = xs[i] - mx
            sxx += w[i] * dx * dx; sxy += w[i] * dx * (ys[i] - my)
        }
        guard sxx > 1e-12 * sw else { return nil }
        let gain = sxy / sxx
        return (gain, my - gain * mx)
    }

    /// The per-sample correction `x′ = a · x + b` (the `Normalization`
    /// coefficients' form) that undoes `frame ≈ gain · reference + offset`:
    /// `a = 1 / gain`, `b = −offset / gain`.
    public static func correction(gain: Double, offset: Double) -> (gain: Float, offset: Float) {
        (Float(1 / gain), Float(-offset / gain))
    }

    /// The same correction for a chroma channel centred on `neutral` (Cb,
    /// Cr): an exposure gain scales its distance from neutral, the offset
    /// leaves it alone: `x′ = neutral + (x − neutral) / gain`.
    public static func chromaCorrection(gain: Double, neutral: Float) -> (gain: Float, offset: Float) {
        let a = Float(1 / gain)
        return (a, neutral * (1 - a))
    }
}

// References
// - P. W. Holland and R. E. Welsch, "Robust regression using iteratively
//   reweighted least-squares", Communications in Statistics 6(9), 1977.
// - A. E. Beaton and J. W. Tukey, "The fitting of power series, meaning
//   polynomials, illustrated on band-spectroscopic data", Technometrics
//   16(2), 1974 (the biweight).
