/// The exact median of one pixel's samples.
///
/// For an odd count it is the middle sample; for an even count the mean of
/// the two middle ones, computed as `0.5 * (a + b)` everywhere (the strip
/// reducer's SIMD sorting-network path uses the same formula, so both are
/// bit-identical). An empty set has median 0 by convention (the frame store
/// writes 0 where no frame covers a pixel).
///
/// Small counts (≤ `insertionLimit`) are sorted by insertion; larger ones use
/// an in-place quickselect (Hoare 1961) with a median-of-three pivot, so no
/// call allocates.
public enum Median {
    /// Counts up to this are sorted by insertion instead of selected.
    static let insertionLimit = 16

    /// The median of `values` (which are not modified). NaNs are not expected.
    public static func of(_ values: [Float]) -> Float {
        var copy = values
        return copy.withUnsafeMutableBufferPointer { inPlace($0) }
    }

    /// The median of `values`, reordering them in place (no allocation).
    /// - Returns: the median, or 0 when `values` is empty.
    package static func inPlace(_ values: UnsafeMutableBufferPointer<Float>) -> Float {
        let n = values.count
        guard n > 0, let p = values.baseAddress else { return 0 }
        if n <= insertionLimit {
            insertionSort(p, n)
            return 0.5 * (p[(n - 1) / 2] + p[n / 2])
        }
        let lowerRank = (n - 1) / 2
        select(p, n, rank: lowerRank)
        let lower = p[lowerRank]
        if n & 1 == 1 { return lower }
        // Even count: the upper middle is the smallest element right of the lower one.
        var upper = p[lowerRank + 1]
        var i = lowerRank + 2
        while i < n { if p[i] < upper { upper = p[i] }; i += 1 }
        return 0.5 * (lower + upper)
    }

    /// Sorts `p[0..<n]` ascending by insertion.
    @inline(__always)
    static func insertionSort(_ p: UnsafeMutablePointer<Float>, _ n: Int) {
        var i = 1
        while i < n {
            let v = p[i]
            var j = i - 1
            while j >= 0 && p[j] > v { p[j + 1] = p[j]; j -= 1 }
            p[j + 1] = v
            i += 1
        }
    }

    /// Partially orders `p[0..<n]` so that `p[rank]` holds the element of
    /// that rank, everything before it ≤ it and everything after ≥ it.
    static func select(_ p: UnsafeMutablePointer<Float>, _ n: Int, rank: Int) {
        var lo = 0, hi = n - 1
        while hi - lo > insertionLimit {
            // Median of three as pivot, placed so the scans need no bounds checks.
            let mid = lo + (hi - lo) / 2
            if p[mid] < p[lo] { swapAt(p, mid, lo) }
            if p[hi] < p[lo] { swapAt(p, hi, lo) }
            if p[hi] < p[mid] { swapAt(p, hi, mid) }
            let pivot = p[mid]
            var i = lo, j = hi
            while i <= j {
                while p[i] < pivot { i += 1 }
                while p[j] > pivot { j -= 1 }
                if i <= j { swapAt(p, i, j); i += 1; j -= 1 }
            }
            // Now p[lo...j] ≤ pivot ≤ p[i...hi], and j < i.
            if rank <= j { hi = j } else if rank >= i { lo = i } else { return }
        }
        insertionSort(p + lo, hi - lo + 1)
    }

    @inline(__always)
    static func swapAt(_ p: UnsafeMutablePointer<Float>, _ a: Int, _ b: Int) {
        let t = p[a]; p[a] = p[b]; p[b] = t
    }
}

// References
// - C. A. R. Hoare, "Algorithm 65: Find", Communications of the ACM 4(7), 1961.
// - R. Sedgewick, "Implementing Quicksort programs", CACM 21(10), 1978 (median-of-three).
