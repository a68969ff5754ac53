/// Linear-fit clipping (after Siril and PixInsight): a straight line
/// `a + b·i` is fitted by least squares to the sorted samples against
/// their rank i (over the middle half of the ranks, so that outliers at
/// the ends do not tilt it), and a sample more than `κlow·σ` below or `κhigh·σ` above
/// the line is rejected; the passes repeat on what is kept until nothing
/// changes or 3 samples remain. The line follows the spread of the sorted
/// samples (and a gradient through a session) where a single centre would
/// not.
///
/// Unlike Siril, σ is the robust one of the samples, 1.4826 · b_n · MAD
/// (as `SigmaClip`), not the mean absolute distance from the line: that
/// one is inflated by the outliers themselves (two far samples on one side
/// of 24 survived at κ = 5) and shrinks against the curved tails of clean
/// data (at κ = 3 it rejected 5 % of clean normal samples at 24 frames,
/// 14 % at 100). With the MAD, simulated, under 0.01 % of clean samples go
/// at κ = 3 from 24 to 300 frames, and every planted outlier does. A line
/// fitted to all ranks was tilted by the outliers enough to reject 16 % of
/// the good samples at the other end (24 frames, 1–3 outliers).
/// Cost: O(n) per pass.
enum LinearFitClip {
    /// Default κ below and above the line.
    static let defaultKappa: Float = 3

    static func apply(to s: inout SortedSamples, kappaLow: Float, kappaHigh: Float) {
        while s.count > 3 {
            let (a, b) = fit(s)
            let sigma = Double(SigmaClip.madToSigma * SigmaClip.smallSampleFactor(s.count) * s.medianAbsoluteDeviation)
            let low = Double(kappaLow) * sigma, high = Double(kappaHigh) * sigma
            let changed = s.keep { i, x in
                let r = Double(x) - (a + b * Double(i))
                return r < -low ? -1 : (r > high ? 1 : 0)
            }
            if !changed { break }
        }
    }

    /// Least-squares intercept and slope of the kept samples against their
    /// rank, over the middle half of the ranks (at least two).
    static func fit(_ s: SortedSamples) -> (a: Double, b: Double) {
        let first = s.count / 4, end = max(s.count - s.count / 4, first + 2)
        let n = Double(end - first)
        let meanRank = Double(first + end - 1) / 2
        var sum = 0.0
        for i in first..<end { sum += Double(s[i]) }
        let mean = sum / n
        var sxy = 0.0, sxx = 0.0
        for i in first..<end {
            let dx = Double(i) - meanRank
            sxy += dx * (Double(s[i]) - mean)
            sxx += dx * dx
        }
        let b = sxx > 0 ? sxy / sxx : 0
        return (mean - b * meanRank, b)
    }
}
