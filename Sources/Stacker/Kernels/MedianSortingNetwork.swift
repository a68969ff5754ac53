/// Batcher's odd–even merge sorting network for `count` inputs, applied to
/// eight neighbouring pixels at once (one `SIMD8<Float>` per frame).
///
/// A network is a fixed list of compare-exchange steps, so eight pixels sort
/// in lock-step with `min`/`max` and no branches. Missing samples (frames
/// that do not cover a lane's pixel) are set to `+∞` and sort to the end, so
/// a lane with `k` covered samples has them sorted in `0..<k`.
///
/// Size: about n·log²n / 4 comparators (n = 20: 91; n = 32: 191; n = 64: 543).
struct SortingNetwork: Sendable {
    /// Number of inputs.
    let count: Int
    /// Comparator pairs `(low, high)` flattened: `pairs[2i] < pairs[2i+1]`.
    let pairs: [Int32]

    /// The network for `count` inputs (any count ≥ 0, not only powers of two).
    init(count: Int) {
        self.count = count
        var pairs: [Int32] = []
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
                        }
                    }
                    j += 2 * k
                }
                k /= 2
            }
            p *= 2
        }
        self.pairs = pairs
    }

    /// Number of compare-exchange steps.
    var comparatorCount: Int { pairs.count / 2 }

    /// Sorts each lane of `v[0..<count]` ascending.
    @inline(__always)
    func sort(_ v: UnsafeMutablePointer<SIMD8<Float>>) {
        pairs.withUnsafeBufferPointer { pb in
            var i = 0
            let n = pb.count
            while i < n {
                let a = Int(pb[i]), b = Int(pb[i + 1])
                let x = v[a], y = v[b]
                // Compare-and-select, not pointwiseMin/Max: those follow IEEE
                // minimum's NaN rules lane by lane and do not vectorise.
                let swap = y .< x
                v[a] = x.replacing(with: y, where: swap)
                v[b] = y.replacing(with: x, where: swap)
                i += 2
            }
        }
    }

    /// Sorts each lane of `v[0..<count]` ascending and permutes `w` (the
    /// samples' weights) the same way.
    @inline(__always)
    func sort(_ v: UnsafeMutablePointer<SIMD8<Float>>, carrying w: UnsafeMutablePointer<SIMD8<Float>>) {
        pairs.withUnsafeBufferPointer { pb in
            var i = 0
            let n = pb.count
            while i < n {
                let a = Int(pb[i]), b = Int(pb[i + 1])
                let x = v[a], y = v[b]
                let swap = y .< x
                v[a] = x.replacing(with: y, where: swap)
                v[b] = y.replacing(with: x, where: swap)
                let wx = w[a], wy = w[b]
                w[a] = wx.replacing(with: wy, where: swap)
                w[b] = wy.replacing(with: wx, where: swap)
                i += 2
            }
        }
    }
}

// References
// - K. E. Batcher, "Sorting networks and their applications", AFIPS Spring
//   Joint Computer Conference, 1968.
// - D. E. Knuth, The Art of Computer Programming vol. 3, §5.3.4 (the
//   0–1 principle used by the tests).
