public import Registration

/// Robust location and spread of a sample set, for background levels of
/// calibration frames and of lights (where stars, trails and hot pixels are
/// outliers that must not move the estimate).
public struct RobustStatistics: Sendable, Equatable {
    /// The median of the samples.
    public var median: Double
    /// The robust standard deviation, 1.4826 · MAD (median absolute
    /// deviation), which equals σ for Gaussian samples.
    public var sigma: Double

    /// Creates a record.
    public init(median: Double, sigma: Double) {
        self.median = median
        self.sigma = sigma
    }

    /// Most samples looked at: larger planes are read on a regular grid of
    /// about this many points, which keeps the cost bounded (a sort of 2¹⁸
    /// values) and the estimate's own error far below the noise.
    public static let sampleBudget = 1 << 18

    /// Median and 1.4826 · MAD of `plane`'s finite samples, from at most
    /// `sampleBudget` of them on a regular grid; (0, 0) for an empty plane.
    public static func of(_ plane: Plane) -> RobustStatistics {
        let n = plane.count
        guard n > 0 else { return RobustStatistics(median: 0, sigma: 0) }
        let step = max(1, n / sampleBudget)
        var values: [Float] = []
        values.reserveCapacity(n / step + 1)
        plane.pixels.withUnsafeBufferPointer { p in
            var i = step / 2
            while i < n {
                let v = p[i]
                if v.isFinite { values.append(v) }
                i += step
            }
        }
        return of(values: &values)
    }

    /// Median and 1.4826 · MAD of `values` (reordered in place); (0, 0) when empty.
    public static func of(values: inout [Float]) -> RobustStatistics {
        guard !values.isEmpty else { return RobustStatistics(median: 0, sigma: 0) }
        values.sort()
        let median = middle(values)
        for i in values.indices { values[i] = abs(values[i] - Float(median)) }
        values.sort()
        return RobustStatistics(median: median, sigma: 1.4826 * middle(values))
    }

    /// The middle of sorted values (mean of the two middle ones for an even count).
    private static func middle(_ sorted: [Float]) -> Double {
        let m = sorted.count / 2
        return sorted.count % 2 == 1 ? Double(sorted[m]) : (Double(sorted[m - 1]) + Double(sorted[m])) / 2
    }
}
