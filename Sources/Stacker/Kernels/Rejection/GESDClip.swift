/// The generalized extreme studentized deviate test (Rosner 1983): up to
/// r = ⌊fraction · n⌋ outliers. Step i takes the sample farthest from the
/// mean of those left, R_i = |x − mean| / sd, and its critical value
/// λ_i = (k − 1)·t / √((k − 2 + t²)·k) for the k samples left, t the
/// Student t quantile at 1 − α / (2k) with k − 2 degrees of freedom. The
/// outliers are the samples removed in the first j steps, j the last step
/// with R_j > λ_j. It assumes the good samples are about normal, and suits
/// many frames (50 and more). Cost: the extremes of sorted samples are at
/// their ends and the sums are updated as they go, O(n + r) per pixel; the
/// critical values depend only on k and α, so a reduction looks them up in
/// a `CriticalValues` table built once instead of solving for t per pixel.
package enum GESDClip {
    /// Siril's defaults: at most 30 % outliers, significance 0.05.
    static let defaultOutlierFraction: Float = 0.3
    static let defaultSignificance: Float = 0.05

    /// Rejects in place. `table`, when it was built for `significance` and
    /// covers `s.count`, supplies the critical values (the same numbers
    /// `criticalValue` returns); otherwise they are computed.
    static func apply(to s: inout SortedSamples, outlierFraction: Float, significance: Float,
                      table: CriticalValues? = nil) {
        let n = s.count
        let steps = min(Int(Double(outlierFraction) * Double(n)), n - 3)
        guard steps > 0 else { return }
        // Pass 1 finds how many steps test as outliers; pass 2 takes them.
        let alpha = Double(significance)
        let lookup = table.flatMap { $0.significance == alpha && $0.maxCount >= n ? $0 : nil }
        var walk = Walk(s)
        var outliers = 0
        for step in 1...steps {
            let k = walk.hi - walk.lo
            guard let r = walk.extreme(s)?.r else { break }
            let lambda = lookup?.values[k] ?? criticalValue(count: k, significance: alpha)
            if r > lambda { outliers = step }
            walk.removeExtreme(s)
        }
        guard outliers > 0 else { return }
        walk = Walk(s)
        for _ in 0..<outliers { walk.removeExtreme(s) }
        s.keepRange(walk.lo, walk.hi)
    }

    /// λ for `k` samples: (k − 1)·t / √((k − 2 + t²)·k), t = t(1 − α/(2k), k − 2).
    static func criticalValue(count k: Int, significance alpha: Double) -> Double {
        let kd = Double(k)
        let t = StudentT.quantile(1 - alpha / (2 * kd), degreesOfFreedom: k - 2)
        return (kd - 1) * t / ((kd - 2 + t * t) * kd).squareRoot()
    }

    /// λ_k for k = 0…`maxCount` at one significance (entries below 3 are
    /// unused: the test needs 3 samples).
    package struct CriticalValues: Sendable {
        let significance: Double
        let values: [Double]
        var maxCount: Int { values.count - 1 }

        package init(significance: Double, maxCount: Int) {
            self.significance = significance
            values = (0...max(maxCount, 2)).map { k in
                k < 3 ? .infinity : GESDClip.criticalValue(count: k, significance: significance)
            }
        }
    }

    /// The samples left, `lo..<hi` of the sorted ones, with their sums.
    struct Walk {
        var lo = 0, hi: Int
        var sum = 0.0, squares = 0.0

        init(_ s: SortedSamples) {
            hi = s.count
            for i in 0..<s.count {
                let x = Double(s[i])
                sum += x; squares += x * x
            }
        }

        /// R of the farthest sample and whether it is the lowest; nil when
        /// fewer than 3 are left or they do not spread.
        func extreme(_ s: SortedSamples) -> (r: Double, low: Bool)? {
            let k = Double(hi - lo)
            guard hi - lo >= 3 else { return nil }
            let mean = sum / k
            let variance = max(0, (squares - sum * mean) / (k - 1))
            guard variance > 0 else { return nil }
            let below = mean - Double(s[lo]), above = Double(s[hi - 1]) - mean
            return (max(below, above) / variance.squareRoot(), below > above)
        }

        /// Removes the farthest sample from the mean (the highest on a tie).
        mutating func removeExtreme(_ s: SortedSamples) {
            let k = Double(hi - lo)
            let mean = sum / k
            let x: Double
            if mean - Double(s[lo]) > Double(s[hi - 1]) - mean {
                x = Double(s[lo]); lo += 1
            } else {
                hi -= 1; x = Double(s[hi])
            }
            sum -= x; squares -= x * x
        }
    }
}

// References
// - B. Rosner, "Percentage points for a generalized ESD many-outlier
//   procedure", Technometrics 25(2), 1983.
// - NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.5.17.3,
//   "Generalized Extreme Studentized Deviate Test for Outliers".
