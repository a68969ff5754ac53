/// The rejection family: how one pixel's samples are cleared of outliers
/// before the weighted mean of what is kept (`--reject`). Each algorithm is
/// a pure function of the pixel's samples (`reject`), working on them
/// sorted ascending; it reports the samples rejected below and above the
/// centre apart. All values are on the file's scale (0…1 for integer data;
/// float data may lie outside it and is never clamped).
///
/// Cost per pixel: the sort, a Shell sort with Ciura's gaps (about
/// n^1.3 comparisons for n samples, so a few dozen per sample at n = 1,000),
/// then O(n) per pass; percentile and MAD make one pass, sigma at most
/// `maxIterations`, winsorized and linear fit until nothing changes (each
/// pass rejects at least one sample; in practice two or three), GESD one.
public enum RejectionAlgorithm: Sendable, Equatable {
    /// Samples below `median − low·|median|` or above `median + high·|median|`
    /// (see `PercentileClip`).
    case percentile(low: Float, high: Float)
    /// Iterated κσ clipping around the median with σ = 1.4826 · MAD, as
    /// `SigmaClip` (and `--mode sigma-clip`).
    case sigma(kappaLow: Float, kappaHigh: Float, maxIterations: Int)
    /// One-pass κσ clipping around the median with σ = 1.4826 · MAD (see `MADClip`).
    case mad(kappaLow: Float, kappaHigh: Float)
    /// κσ clipping with σ from winsorized samples (see `WinsorizedClip`).
    case winsorized(kappaLow: Float, kappaHigh: Float)
    /// κσ clipping around a line fitted to the sorted samples (see `LinearFitClip`).
    case linearFit(kappaLow: Float, kappaHigh: Float)
    /// The generalized extreme studentized deviate test, at most
    /// `outlierFraction` of the samples, at significance `significance` (see `GESDClip`).
    case gesd(outlierFraction: Float, significance: Float)

    /// The algorithms' names, as `--reject` takes them.
    public enum Name: String, Sendable, CaseIterable {
        case percentile, sigma, mad, winsorized
        case linearFit = "linear-fit"
        case gesd
    }

    /// The algorithm `name` with its thresholds: `low`/`high` are the
    /// percentile fractions or the κ values (nil: the algorithm's default,
    /// Siril's where Siril has one); for GESD they are ignored and
    /// `outlierFraction`/`significance` apply (nil: 0.3 and 0.05).
    public static func named(_ name: Name, low: Float? = nil, high: Float? = nil,
                             outlierFraction: Float? = nil, significance: Float? = nil) -> RejectionAlgorithm {
        switch name {
        case .percentile:
            return .percentile(low: low ?? PercentileClip.defaultLow, high: high ?? PercentileClip.defaultHigh)
        case .sigma:
            return .sigma(kappaLow: low ?? SigmaClip.defaultKappa, kappaHigh: high ?? SigmaClip.defaultKappa,
                          maxIterations: SigmaClip.defaultMaxIterations)
        case .mad:
            return .mad(kappaLow: low ?? SigmaClip.defaultKappa, kappaHigh: high ?? SigmaClip.defaultKappa)
        case .winsorized:
            return .winsorized(kappaLow: low ?? SigmaClip.defaultKappa, kappaHigh: high ?? SigmaClip.defaultKappa)
        case .linearFit:
            return .linearFit(kappaLow: low ?? LinearFitClip.defaultKappa, kappaHigh: high ?? LinearFitClip.defaultKappa)
        case .gesd:
            return .gesd(outlierFraction: outlierFraction ?? GESDClip.defaultOutlierFraction,
                         significance: significance ?? GESDClip.defaultSignificance)
        }
    }

    /// This algorithm's name.
    public var name: Name {
        switch self {
        case .percentile: return .percentile
        case .sigma: return .sigma
        case .mad: return .mad
        case .winsorized: return .winsorized
        case .linearFit: return .linearFit
        case .gesd: return .gesd
        }
    }

    /// Checks the parameters; `nil` when valid, else a sentence saying what is wrong.
    public var invalidReason: String? {
        switch self {
        case .percentile(let low, let high):
            guard low.isFinite, low >= 0, high.isFinite, high >= 0 else {
                return "percentile bounds must be numbers ≥ 0 (fractions of the median), got low \(low), high \(high)"
            }
        case .sigma(let low, let high, _), .mad(let low, let high), .winsorized(let low, let high),
             .linearFit(let low, let high):
            guard low.isFinite, low > 0, high.isFinite, high > 0 else {
                return "kappa must be a positive number, got low \(low), high \(high)"
            }
            if case .sigma(_, _, let iterations) = self, iterations < 0 {
                return "the sigma-clip iteration count must be 0 or more, got \(iterations)"
            }
        case .gesd(let fraction, let alpha):
            guard fraction.isFinite, fraction > 0, fraction < 1 else {
                return "the GESD outlier fraction must lie between 0 and 1, got \(fraction)"
            }
            guard alpha.isFinite, alpha > 0, alpha < 1 else {
                return "the GESD significance must lie between 0 and 1, got \(alpha)"
            }
        }
        return nil
    }

    /// Rejects outliers from `values` with optional per-sample `weights`
    /// (same count; nil = equal weights) and returns the weighted mean of
    /// the kept samples with the counts. Inputs are not modified.
    public func reject(_ values: [Float], weights: [Float]? = nil) -> RejectionResult {
        var v = values
        var w = weights ?? [Float](repeating: 1, count: values.count)
        precondition(w.count == v.count, "RejectionAlgorithm: \(w.count) weights for \(v.count) values")
        return v.withUnsafeMutableBufferPointer { vb in
            w.withUnsafeMutableBufferPointer { wb in reject(values: vb, weights: wb) }
        }
    }

    /// Rejects in place: sorts `values` ascending (and `weights` with them;
    /// the buffers must have the same count), then rejects. No allocation.
    /// `gesdTable` (see `GESDClip.CriticalValues`) lets GESD look its
    /// critical values up; the result is the same without it.
    package func reject(values: UnsafeMutableBufferPointer<Float>,
                        weights: UnsafeMutableBufferPointer<Float>,
                        gesdTable: GESDClip.CriticalValues? = nil) -> RejectionResult {
        let n = min(values.count, weights.count)
        guard n > 0, let v = values.baseAddress, let w = weights.baseAddress else {
            return RejectionResult(value: 0, kept: 0, rejectedLow: 0, rejectedHigh: 0)
        }
        SigmaClip.sortPairs(v, w, n)
        var samples = SortedSamples(values: v, weights: w, count: n)
        switch self {
        case .percentile(let low, let high):
            PercentileClip.apply(to: &samples, low: low, high: high)
        case .sigma(let low, let high, let iterations):
            let r = SigmaClip.clipSorted(values: v, weights: w, count: n, kappaLow: low, kappaHigh: high,
                                         maxIterations: iterations)
            return RejectionResult(value: r.value, kept: r.kept, rejectedLow: r.rejectedLow, rejectedHigh: r.rejectedHigh)
        case .mad(let low, let high):
            MADClip.apply(to: &samples, kappaLow: low, kappaHigh: high)
        case .winsorized(let low, let high):
            WinsorizedClip.apply(to: &samples, kappaLow: low, kappaHigh: high)
        case .linearFit(let low, let high):
            LinearFitClip.apply(to: &samples, kappaLow: low, kappaHigh: high)
        case .gesd(let fraction, let alpha):
            GESDClip.apply(to: &samples, outlierFraction: fraction, significance: alpha, table: gesdTable)
        }
        return samples.result
    }
}

// References
// - Siril documentation, "Stacking: pixel rejection" (the family, their
//   parameters and which suits how many frames):
//   https://siril.readthedocs.io/en/stable/preprocessing/stacking.html
// - P. J. Huber, Robust Statistics, Wiley 1981 (winsorized estimates of scale).
