/// One pixel's samples sorted ascending, with their weights alongside, as
/// the rejection algorithms work on them: `values[0..<count]` are the
/// samples still kept, in ascending order. Each algorithm narrows them in
/// place (`keep(from:to:)`, `keep(where:)`), keeping the order, and counts
/// what it rejects below and above.
struct SortedSamples {
    let values: UnsafeMutablePointer<Float>
    let weights: UnsafeMutablePointer<Float>
    /// Samples still kept.
    private(set) var count: Int
    /// Samples rejected below the centre so far.
    private(set) var rejectedLow = 0
    /// Samples rejected above the centre so far.
    private(set) var rejectedHigh = 0

    /// Wraps `count` samples already sorted ascending (weights permuted with them).
    init(values: UnsafeMutablePointer<Float>, weights: UnsafeMutablePointer<Float>, count: Int) {
        self.values = values
        self.weights = weights
        self.count = count
    }

    subscript(i: Int) -> Float {
        @inline(__always) get { values[i] }
    }

    /// The median of the kept samples (mean of the middle two for an even count).
    var median: Float {
        count == 0 ? 0 : 0.5 * (values[(count - 1) / 2] + values[count / 2])
    }

    /// Mean and sample standard deviation (n − 1) of the kept samples, in doubles.
    var meanAndDeviation: (mean: Double, sd: Double) {
        guard count > 0 else { return (0, 0) }
        var s = 0.0
        for i in 0..<count { s += Double(values[i]) }
        let mean = s / Double(count)
        guard count > 1 else { return (mean, 0) }
        var q = 0.0
        for i in 0..<count {
            let d = Double(values[i]) - mean
            q += d * d
        }
        return (mean, (q / Double(count - 1)).squareRoot())
    }

    /// The median absolute deviation from `median` of the kept samples.
    var medianAbsoluteDeviation: Float {
        count == 0 ? 0 : SigmaClip.madSorted(UnsafePointer(values), 0, count, median: median)
    }

    /// Keeps the samples inside `[low, high]` (contiguous in sorted order),
    /// unless that would reject them all. Returns whether anything was rejected.
    @discardableResult
    mutating func keep(from low: Float, to high: Float) -> Bool {
        var lo = 0, hi = count
        while lo < hi && values[lo] < low { lo += 1 }
        while hi > lo && values[hi - 1] > high { hi -= 1 }
        return keepRange(lo, hi)
    }

    /// Keeps `values[lo..<hi]`, unless that range is empty or everything.
    @discardableResult
    mutating func keepRange(_ lo: Int, _ hi: Int) -> Bool {
        guard hi > lo, lo > 0 || hi < count else { return false }
        if lo > 0 {
            for i in lo..<hi {
                values[i - lo] = values[i]
                weights[i - lo] = weights[i]
            }
        }
        rejectedLow += lo
        rejectedHigh += count - hi
        count = hi - lo
        return true
    }

    /// Keeps the samples `verdict` gives 0 for, rejecting those it gives −1
    /// (low) or +1 (high) to, unless that would reject them all. Order is kept.
    /// Returns whether anything was rejected.
    @discardableResult
    mutating func keep(where verdict: (_ index: Int, _ value: Float) -> Int) -> Bool {
        var out = 0, low = 0, high = 0
        // First count, so a pass rejecting everything changes nothing.
        for i in 0..<count {
            switch verdict(i, values[i]) {
            case ..<0: low += 1
            case 1...: high += 1
            default: break
            }
        }
        guard low + high > 0, low + high < count else { return false }
        // Writing index `out` ≤ `i` never changes a sample not yet judged.
        for i in 0..<count where verdict(i, values[i]) == 0 {
            values[out] = values[i]
            weights[out] = weights[i]
            out += 1
        }
        rejectedLow += low
        rejectedHigh += high
        count = out
        return true
    }

    /// The result: the weighted mean of the kept samples with the counts.
    var result: RejectionResult {
        var sw = 0.0, swx = 0.0, sx = 0.0
        for i in 0..<count {
            let wi = Double(weights[i]), xi = Double(values[i])
            sw += wi; swx += wi * xi; sx += xi
        }
        let value = count == 0 ? 0 : (sw > 0 ? swx / sw : sx / Double(count))
        return RejectionResult(value: Float(value), kept: count, rejectedLow: rejectedLow, rejectedHigh: rejectedHigh)
    }
}
