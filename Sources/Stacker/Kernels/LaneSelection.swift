/// Exact order statistics of sixteen neighbouring pixels at once, for frame
/// counts past the sorting network: each lane's value of a given rank is
/// found by bisection on its bits, counting per pass how many of the lane's
/// samples lie below a candidate.
///
/// The samples are stored integers widened to `UInt16` (one vector per
/// frame, lane l = pixel l), so a rank is found in at most 16 passes over
/// the frames (8 for 8-bit stores) whatever their number, each pass one
/// compare and one add per vector: the cost per sample does not grow with
/// the frame count. Passes start at each lane's smallest sample and stop at
/// the bit width of the widest lane's range, so a pixel whose samples lie
/// close together needs fewer.
///
/// Uncovered samples are expected as 65535 (they rank last); a rank below a
/// lane's covered count then never reaches them, and a covered 65535 tying
/// with them changes no value.
enum LaneSelection {
    /// Per lane, the value of rank `rank[l]` (0-based) among `v[0..<n][l]`.
    ///
    /// - Parameters:
    ///   - low: each lane's smallest sample.
    ///   - span: each lane's largest sample minus its smallest.
    ///   - rank: a rank below `n` in every lane.
    @inline(__always)
    static func select(_ v: UnsafePointer<SIMD16<UInt16>>, rows n: Int, rank: SIMD16<UInt16>,
                       low: SIMD16<UInt16>, span: SIMD16<UInt16>) -> SIMD16<UInt16> {
        let widest = span.max()
        var bit: UInt16 = widest == 0 ? 0 : 1 << (15 - UInt16(widest.leadingZeroBitCount))
        // The answer is low + offset with offset the largest value whose
        // count of samples below low + offset is ≤ rank.
        var offset = SIMD16<UInt16>(repeating: 0)
        while bit != 0 {
            let candidate = offset | SIMD16(repeating: bit)
            // A candidate past the lane's range counts every sample, so it is
            // never taken (and low + candidate cannot wrap).
            let inRange = candidate .<= span
            let threshold = low &+ candidate.replacing(with: 0, where: .!inRange)
            let below = countBelow(v, rows: n, threshold)
            offset.replace(with: candidate, where: inRange .& (below .<= rank))
            bit >>= 1
        }
        return low &+ offset
    }

    /// Per lane, how many of `v[0..<n]` are below `threshold`.
    @inline(__always)
    static func countBelow(_ v: UnsafePointer<SIMD16<UInt16>>, rows n: Int,
                           _ threshold: SIMD16<UInt16>) -> SIMD16<UInt16> {
        var count = SIMD16<UInt16>(repeating: 0)
        let one = SIMD16<UInt16>(repeating: 1), zero = SIMD16<UInt16>(repeating: 0)
        for i in 0..<n { count &+= zero.replacing(with: one, where: v[i] .< threshold) }
        return count
    }

    /// Per lane, the smallest and largest of `v[0..<n]`.
    @inline(__always)
    static func range(_ v: UnsafePointer<SIMD16<UInt16>>, rows n: Int)
        -> (low: SIMD16<UInt16>, high: SIMD16<UInt16>) {
        var low = SIMD16<UInt16>(repeating: .max), high = SIMD16<UInt16>(repeating: 0)
        for i in 0..<n {
            let x = v[i]
            low = low.replacing(with: x, where: x .< low)
            high = high.replacing(with: x, where: x .> high)
        }
        return (low, high)
    }

    /// Per lane, the lower and upper middle values of ranks
    /// `first[l] ..< first[l] + count[l]` (equal for an odd count; 0 for a
    /// count of 0): the two values whose mean is the median of those ranks.
    /// The upper one is the lower one when enough samples tie with it, else
    /// the smallest sample above it (one pass).
    @inline(__always)
    static func middlePair(_ v: UnsafePointer<SIMD16<UInt16>>, rows n: Int,
                           first: SIMD16<UInt16> = SIMD16(repeating: 0), count: SIMD16<UInt16>)
        -> (lower: SIMD16<UInt16>, upper: SIMD16<UInt16>) {
        let empty = count .== 0
        let one = SIMD16<UInt16>(repeating: 1), zero = SIMD16<UInt16>(repeating: 0)
        let lowRank = first &+ ((count &- 1) / 2).replacing(with: 0, where: empty)
        let highRank = first &+ count / 2
        let (low, high) = range(v, rows: n)
        let lower = select(v, rows: n, rank: lowRank, low: low, span: high &- low)
        var notAbove = SIMD16<UInt16>(repeating: 0)
        var next = SIMD16<UInt16>(repeating: .max)
        for i in 0..<n {
            let x = v[i]
            let above = x .> lower
            notAbove &+= one.replacing(with: zero, where: above)
            next = next.replacing(with: x, where: above .& (x .< next))
        }
        let upper = next.replacing(with: lower, where: notAbove .> highRank)
        return (lower.replacing(with: 0, where: empty), upper.replacing(with: 0, where: empty))
    }
}

// References
// - C. A. R. Hoare, "Algorithm 65: Find", CACM 4(7), 1961 (selection by rank).
// - D. E. Knuth, The Art of Computer Programming vol. 3, §5.3.3 (selection),
//   and radix exchange (§5.2.2), whose bit-by-bit split the bisection follows.
