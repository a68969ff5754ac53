/// Batcher's odd–even merge sorting network for `count` inputs, applied to
/// several neighbouring pixels at once (one SIMD vector per frame: eight
/// floats, or sixteen stored integers for the median).
///
/// A network is a fixed list of compare-exchange steps, so eight pixels sort
/// in lock-step with `min`/`max` and no branches. Missing samples (frames
/// that do not cover a lane's pixel) are set to `+∞` and sort to the end, so
/// a lane with `k` covered samples has them sorted in `0..<k`.
///
/// Size: about n·log²n / 4 comparators (n = 20: 103; n = 32: 191; n = 64: 543).
///
/// The network's first stages sort each aligned group of 16 inputs on its
/// own (their comparators never leave the group). `sort` runs those stages
/// for every full group as written-out code (`sortSixteen`, and `sortEight`
/// for a full group of 8 after them), whose values the compiler keeps in
/// registers, and only the rest (a last partial group's comparators and the
/// merges between groups) from the comparator list, loading and storing
/// `v[a]`, `v[b]` for each. The same comparators give the same result, and
/// the group stages never go through memory.
struct SortingNetwork: Sendable {
    /// Number of inputs.
    let count: Int
    /// Comparator pairs `(low, high)` flattened: `pairs[2i] < pairs[2i+1]`.
    let pairs: [Int32]
    /// `pairs` without the group-sorting stages of the full aligned groups
    /// (p < 16 in a group of 16, p < 8 in a group of 8), which the
    /// written-out sorts do; in order.
    private let pairsAfterGroups: [Int32]
    /// Number of full aligned groups of 16 inputs.
    private var fullGroups: Int { count / 16 }
    /// Whether a full group of 8 follows them (sorted by `sortEight`).
    private var eightAfterGroups: Bool { count % 16 >= 8 }

    /// The network for `count` inputs (any count ≥ 0, not only powers of two).
    init(count: Int) {
        self.count = count
        var pairs: [Int32] = [], rest: [Int32] = []
        let sixteens = count / 16 * 16, hasEight = count - sixteens >= 8
        var p = 1
        while p < count {
            var k = p
            while k >= 1 {
                var j = k % p
                while j + k < count {
                    for i in 0..<k where i + j + k < count {
                        if (i + j) / (2 * p) == (i + j + k) / (2 * p) {
                            pairs.append(Int32(i + j))
                            pairs.append(Int32(i + j + k))
                            // Stages p < 16 sort each aligned group of 16
                            // on their own (and p < 8 each group of 8):
                            // full groups are left to the written-out sorts.
                            let high = i + j + k
                            let bySixteen = p < 16 && high < sixteens
                            let byEight = p < 8 && hasEight && high >= sixteens && high < sixteens + 8
                            if !bySixteen && !byEight {
                                rest.append(Int32(i + j))
                                rest.append(Int32(high))
                            }
                        }
                    }
                    j += 2 * k
                }
                k /= 2
            }
            p *= 2
        }
        self.pairs = pairs
        pairsAfterGroups = rest
    }

    /// Number of compare-exchange steps.
    var comparatorCount: Int { pairs.count / 2 }

    /// Calls `body(low, high)` for each comparator in order.
    @inline(__always)
    private func forEachComparator(_ body: (Int, Int) -> Void) {
        pairs.withUnsafeBufferPointer { pb in
            var i = 0
            while i < pb.count {
                body(Int(pb[i]), Int(pb[i + 1]))
                i += 2
            }
        }
    }

    /// Sorts each lane of `v[0..<count]` ascending.
    @inline(__always)
    func sort<V: SortableLanes>(_ v: UnsafeMutablePointer<V>) {
        for g in 0..<fullGroups { Self.sortSixteen(v + 16 * g) }
        if eightAfterGroups { Self.sortEight(v + 16 * fullGroups) }
        pairsAfterGroups.withUnsafeBufferPointer { pb in
            var i = 0
            while i < pb.count {
                let a = Int(pb[i]), b = Int(pb[i + 1])
                (v[a], v[b]) = V.ordered(v[a], v[b])
                i += 2
            }
        }
    }

    /// Batcher's network for 8 inputs (19 comparators, as in
    /// `SortingNetwork(count: 8)`), written out so the values stay in registers.
    @inline(__always)
    static func sortEight<V: SortableLanes>(_ v: UnsafeMutablePointer<V>) {
        var (x0, x1, x2, x3, x4, x5, x6, x7) = (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
        (x0, x1) = V.ordered(x0, x1); (x2, x3) = V.ordered(x2, x3)
        (x4, x5) = V.ordered(x4, x5); (x6, x7) = V.ordered(x6, x7)
        (x0, x2) = V.ordered(x0, x2); (x1, x3) = V.ordered(x1, x3); (x4, x6) = V.ordered(x4, x6)
        (x5, x7) = V.ordered(x5, x7); (x1, x2) = V.ordered(x1, x2); (x5, x6) = V.ordered(x5, x6)
        (x0, x4) = V.ordered(x0, x4); (x1, x5) = V.ordered(x1, x5); (x2, x6) = V.ordered(x2, x6)
        (x3, x7) = V.ordered(x3, x7); (x2, x4) = V.ordered(x2, x4); (x3, x5) = V.ordered(x3, x5)
        (x1, x2) = V.ordered(x1, x2); (x3, x4) = V.ordered(x3, x4); (x5, x6) = V.ordered(x5, x6)
        (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]) = (x0, x1, x2, x3, x4, x5, x6, x7)
    }

    /// Batcher's network for 16 inputs (63 comparators, those of
    /// `SortingNetwork(count: 16)`: each half's in their order, then the
    /// merge), written out so the values stay in registers.
    @inline(__always)
    static func sortSixteen<V: SortableLanes>(_ v: UnsafeMutablePointer<V>) {
        // p < 8: each half sorted on its own.
        sortEight(v)
        sortEight(v + 8)
        var (x0, x1, x2, x3, x4, x5, x6, x7) = (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
        var (x8, x9, x10, x11, x12, x13, x14, x15) = (v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15])
        // p = 8: the merge into sixteen.
        (x0, x8) = V.ordered(x0, x8); (x1, x9) = V.ordered(x1, x9); (x2, x10) = V.ordered(x2, x10)
        (x3, x11) = V.ordered(x3, x11); (x4, x12) = V.ordered(x4, x12); (x5, x13) = V.ordered(x5, x13)
        (x6, x14) = V.ordered(x6, x14); (x7, x15) = V.ordered(x7, x15)
        (x4, x8) = V.ordered(x4, x8); (x5, x9) = V.ordered(x5, x9)
        (x6, x10) = V.ordered(x6, x10); (x7, x11) = V.ordered(x7, x11)
        (x2, x4) = V.ordered(x2, x4); (x3, x5) = V.ordered(x3, x5); (x6, x8) = V.ordered(x6, x8)
        (x7, x9) = V.ordered(x7, x9); (x10, x12) = V.ordered(x10, x12); (x11, x13) = V.ordered(x11, x13)
        (x1, x2) = V.ordered(x1, x2); (x3, x4) = V.ordered(x3, x4); (x5, x6) = V.ordered(x5, x6)
        (x7, x8) = V.ordered(x7, x8); (x9, x10) = V.ordered(x9, x10); (x11, x12) = V.ordered(x11, x12)
        (x13, x14) = V.ordered(x13, x14)
        (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]) = (x0, x1, x2, x3, x4, x5, x6, x7)
        (v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]) = (x8, x9, x10, x11, x12, x13, x14, x15)
    }

    /// Sorts each lane of `v[0..<count]` ascending and permutes `w` (the
    /// samples' weights) the same way.
    @inline(__always)
    func sort(_ v: UnsafeMutablePointer<SIMD8<Float>>, carrying w: UnsafeMutablePointer<SIMD8<Float>>) {
        forEachComparator { a, b in
            let x = v[a], y = v[b]
            let swap = y .< x
            v[a] = x.replacing(with: y, where: swap)
            v[b] = y.replacing(with: x, where: swap)
            let wx = w[a], wy = w[b]
            w[a] = wx.replacing(with: wy, where: swap)
            w[b] = wy.replacing(with: wx, where: swap)
        }
    }
}

/// A vector the network sorts lane by lane. Each type states its
/// compare-exchange concretely: the stdlib's comparisons of a generic `SIMD`
/// vector run lane by lane, not as vector instructions. Compare-and-select,
/// not pointwiseMin/Max: those do not vectorise either, and for floats they
/// follow IEEE minimum's NaN rules.
protocol SortableLanes {
    /// `(x, y)` with each lane's smaller value first.
    static func ordered(_ x: Self, _ y: Self) -> (Self, Self)
}

extension SIMD8: SortableLanes where Scalar == Float {
    @inline(__always)
    static func ordered(_ x: Self, _ y: Self) -> (Self, Self) {
        let swap = y .< x
        return (x.replacing(with: y, where: swap), y.replacing(with: x, where: swap))
    }
}

extension SIMD16: SortableLanes where Scalar == UInt16 {
    /// Compare and select; the compiler emits `vpminuw`/`vpmaxuw` for it, so
    /// `pointwiseMin`/`pointwiseMax` would gain nothing.
    @inline(__always)
    static func ordered(_ x: Self, _ y: Self) -> (Self, Self) {
        let swap = y .< x
        return (x.replacing(with: y, where: swap), y.replacing(with: x, where: swap))
    }
}

// References
// - K. E. Batcher, "Sorting networks and their applications", AFIPS Spring
//   Joint Computer Conference, 1968.
// - D. E. Knuth, The Art of Computer Programming vol. 3, §5.3.4 (the
//   0–1 principle used by the tests).
