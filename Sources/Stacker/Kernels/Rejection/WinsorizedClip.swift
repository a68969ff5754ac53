/// Winsorized sigma clipping (after Siril and Huber): σ is estimated from
/// the samples winsorized around the median — each clamped to
/// `m ± 1.5σ` and σ re-estimated as 1.134 × their standard deviation until
/// it changes by less than 0.05 % — so outliers cannot inflate it; samples
/// below `m − κlow·σ` or above `m + κhigh·σ` are then rejected, and the
/// passes repeat on what is kept until nothing changes or 3 samples remain.
/// Cost: O(n) per winsorizing step, a few steps per pass.
enum WinsorizedClip {
    /// The winsorizing bound, in σ.
    static let clampSigmas = 1.5
    /// Makes the σ of a normal sample winsorized at ±1.5σ unbiased.
    static let winsorizedToSigma = 1.134
    /// Relative change of σ below which winsorizing stops.
    static let tolerance = 0.0005
    /// Winsorizing steps at most (it converges in a handful).
    static let maxSteps = 50

    static func apply(to s: inout SortedSamples, kappaLow: Float, kappaHigh: Float) {
        while s.count > 3 {
            let m = Double(s.median)
            let sigma = Float(winsorizedSigma(s, median: m))
            let mf = Float(m)
            if !s.keep(from: mf - kappaLow * sigma, to: mf + kappaHigh * sigma) { break }
        }
    }

    /// σ of the kept samples winsorized around `median`.
    static func winsorizedSigma(_ s: SortedSamples, median m: Double) -> Double {
        var sigma = s.meanAndDeviation.sd
        for _ in 0..<maxSteps {
            let lo = m - clampSigmas * sigma, hi = m + clampSigmas * sigma
            var sum = 0.0
            for i in 0..<s.count { sum += min(hi, max(lo, Double(s[i]))) }
            let mean = sum / Double(s.count)
            var q = 0.0
            for i in 0..<s.count {
                let d = min(hi, max(lo, Double(s[i]))) - mean
                q += d * d
            }
            let next = winsorizedToSigma * (q / Double(s.count - 1)).squareRoot()
            let converged = abs(next - sigma) <= tolerance * sigma
            sigma = next
            if converged { break }
        }
        return sigma
    }
}
