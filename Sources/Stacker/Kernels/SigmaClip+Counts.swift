extension SigmaClip {
    /// `clipSorted` with equal weights over samples given as a count per
    /// stored level: `counts[u]` samples of value `Float(u) · scale`, the
    /// occupied levels within `lowest ... highest`. Returns the bits
    /// `clip(values:weights:)` gives for those samples with all weights 1.
    ///
    /// The kept set of `clipSorted` is a contiguous range of ranks whose
    /// ends only move past whole runs of equal values, so it is every
    /// sample of a range of levels, and each of its steps can be taken on
    /// the counts: the median from the two middle ranks; the MAD by the
    /// same two-pointer merge of the deviations left and right of the
    /// median, a level's samples at a time; the boundary moves a level at
    /// a time. The cost is in the levels between the kept ends (at most
    /// 256 for an 8-bit store) rather than in the samples, so with the
    /// counts built in one pass over the frames the cost per sample falls
    /// as the frame count grows.
    ///
    /// - Parameters:
    ///   - counts: samples per level; read within `lowest ... highest` only.
    ///   - lowest: the smallest occupied level, `highest` the largest (any
    ///     values when `total` is 0).
    ///   - total: the number of samples, Σ counts.
    ///   - scale: the read-back scale of the levels (1/255 for an 8-bit store).
    static func clipCounts(_ counts: UnsafePointer<UInt16>, lowest: Int, highest: Int, total: Int, scale: Float,
                           kappaLow: Float, kappaHigh: Float, maxIterations: Int) -> Float {
        guard total > 0 else { return 0 }
        var a = lowest, b = highest, k = total       // kept: every sample of levels a ... b
        var passes = 0
        @inline(__always) func value(_ u: Int) -> Float { Float(u) * scale }
        while passes < maxIterations && k > 0 {
            let (left, leftCount) = level(counts, from: a, rank: (k - 1) / 2)
            let right = leftCount > k / 2 ? left : nextOccupied(counts, after: left)
            let m = 0.5 * (value(left) + value(right))
            let sigma = madToSigma * smallSampleFactor(k) * medianDeviation(counts, a, b, count: k, median: m,
                                                                             scale: scale)
            let low = m - kappaLow * sigma
            let high = m + kappaHigh * sigma
            var newA = a, newB = b, removed = 0
            while newA <= b && (counts[newA] == 0 || value(newA) < low) { removed += Int(counts[newA]); newA += 1 }
            while newB >= newA && (counts[newB] == 0 || value(newB) > high) { removed += Int(counts[newB]); newB -= 1 }
            if newB < newA || (newA == a && newB == b) { break }
            a = newA; b = newB; k -= removed
            passes += 1
        }
        var sum = 0.0
        for u in a...b where counts[u] > 0 { sum += Double(counts[u]) * Double(value(u)) }
        return Float(sum / Double(k))
    }

    /// The level holding rank `rank` (0-based) of the samples from level
    /// `first` up, and how many samples lie at or below it.
    @inline(__always)
    private static func level(_ counts: UnsafePointer<UInt16>, from first: Int, rank: Int) -> (level: Int, through: Int) {
        var u = first, through = Int(counts[first])
        while through <= rank {
            u += 1
            through += Int(counts[u])
        }
        return (u, through)
    }

    /// The first occupied level above `u` (the caller knows there is one).
    @inline(__always)
    private static func nextOccupied(_ counts: UnsafePointer<UInt16>, after u: Int) -> Int {
        var v = u + 1
        while counts[v] == 0 { v += 1 }
        return v
    }

    /// `madSorted` over the samples of levels `a ... b` (`k` of them) whose
    /// median is `m`: the ranks below k/2 are the left values, the others
    /// the right ones, and their deviations are merged in the same order,
    /// a run of one level's samples at a time.
    @inline(__always)
    private static func medianDeviation(_ counts: UnsafePointer<UInt16>, _ a: Int, _ b: Int, count k: Int,
                                        median m: Float, scale: Float) -> Float {
        if k <= 1 { return 0 }
        @inline(__always) func value(_ u: Int) -> Float { Float(u) * scale }
        let half = k / 2
        // The left pointer at rank half − 1, the right one at rank half, and
        // how many samples each still has on its level on its side.
        let (start, through) = level(counts, from: a, rank: half - 1)
        var i = start
        var leftRun = half - (through - Int(counts[i]))
        var j = i, rightRun = through - half
        if rightRun == 0 {
            j = nextOccupied(counts, after: i)
            rightRun = Int(counts[j])
        }
        let rankLow = (k - 1) / 2, rankHigh = half
        var dLow: Float = 0, d: Float = 0
        var r = 0
        while r <= rankHigh {
            let t: Int
            if i >= a && (j > b || m - value(i) <= value(j) - m) {
                d = m - value(i)
                t = min(leftRun, rankHigh - r + 1)
                leftRun -= t
                if leftRun == 0 {
                    repeat { i -= 1 } while i >= a && counts[i] == 0
                    if i >= a { leftRun = Int(counts[i]) }
                }
            } else {
                d = value(j) - m
                t = min(rightRun, rankHigh - r + 1)
                rightRun -= t
                if rightRun == 0 {
                    repeat { j += 1 } while j <= b && counts[j] == 0
                    if j <= b { rightRun = Int(counts[j]) }
                }
            }
            if rankLow >= r && rankLow < r + t { dLow = d }
            r += t
        }
        return 0.5 * (dLow + d)
    }
}
