/// The motion-robust average (`--mode average --robust`): per pixel and
/// channel, a weighted mean in which each sample's weight falls with its
/// distance from the pixel's median, measured against the samples' spread,
/// by Tukey's biweight, so what alignment could not fix (a passer-by, a
/// parallax edge) fades instead of ghosting while agreeing samples are
/// averaged as by the plain mean (its noise, not the median's).
///
/// `w_i = weight_i · (1 − u_i²)²` for `|u_i| < 1`, else 0, with
/// `u_i = (x_i − centre) / (c · σ)`, `σ = max(1.4826 · MAD, floor)`;
/// the centre starts at the median and is then the weighted mean,
/// `iterations` times (iteratively reweighted least squares). A pixel
/// whose samples all get weight 0 takes the median.
public enum TukeyMean {
    /// Tukey's tuning constant for 95 % efficiency on Gaussian noise.
    public static let defaultC: Float = 4.685
    /// Smallest σ: half an 8-bit level, so pixels whose samples agree
    /// exactly still average their rounding.
    public static let sigmaFloor: Float = 0.5 / 255
    /// Reweighting steps after the median start.
    public static let iterations = 3

    /// The robust mean of `values` (reordered: sorted) with `weights`
    /// (same count, ≥ 0; not reordered with them when all are equal, so
    /// pass equal weights or use the result's value only). 0 for no values.
    public static func reduce(_ values: UnsafeMutableBufferPointer<Float>,
                              weights: UnsafeMutableBufferPointer<Float>, c: Float = defaultC) -> Float {
        let n = values.count
        guard n > 0 else { return 0 }
        guard n > 2 else {
            // Two samples have no spread to judge by: their weighted mean.
            let sw = weights.reduce(0) { $0 + Double($1) }
            let swx = zip(values, weights).reduce(0) { $0 + Double($1.0) * Double($1.1) }
            return sw > 0 ? Float(swx / sw) : Float(values.reduce(0) { $0 + Double($1) } / Double(n))
        }
        // Pairs sorted together, so weights follow their samples.
        var pairs = (0..<n).map { (values[$0], weights[$0]) }
        pairs.sort { $0.0 < $1.0 }
        for i in 0..<n { values[i] = pairs[i].0; weights[i] = pairs[i].1 }
        let median = n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2])
        var deviations = (0..<n).map { abs(values[$0] - median) }
        deviations.sort()
        let mad = n % 2 == 1 ? deviations[n / 2] : 0.5 * (deviations[n / 2 - 1] + deviations[n / 2])
        let scale = c * max(1.4826 * mad, sigmaFloor)
        var centre = Double(median)
        for _ in 0..<iterations {
            var sw = 0.0, swx = 0.0
            for i in 0..<n {
                let u = (Double(values[i]) - centre) / Double(scale)
                guard abs(u) < 1 else { continue }
                let t = 1 - u * u
                let w = Double(weights[i]) * t * t
                sw += w; swx += w * Double(values[i])
            }
            guard sw > 0 else { return median }
            centre = swx / sw
        }
        return Float(centre)
    }
}

// References
// - A. E. Beaton and J. W. Tukey, "The fitting of power series, meaning
//   polynomials, illustrated on band-spectroscopic data", Technometrics
//   16(2), 147–185, 1974 (the biweight).
// - S. W. Hasinoff et al., "Burst photography for high dynamic range and
//   low-light imaging on mobile cameras", ACM Trans. Graphics 35(6), 2016
//   (a merge whose weight falls where a frame disagrees beyond its noise).
