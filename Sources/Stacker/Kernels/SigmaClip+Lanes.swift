extension SigmaClip {
    /// `clipSorted` for eight pixels at once, with the same result bits in
    /// every lane, for the frame store's sorting-network path.
    ///
    /// Lane l's samples are `v[0..<count[l]][l]`, sorted ascending (the
    /// rest of the `n` rows are +∞), with weights `w` sorted alongside
    /// (`nil` = all 1). Every step of `clipSorted` is done on all lanes with
    /// vector selects instead of per-lane indexing: the kept range
    /// `[lo, hi)` is a pair of index vectors, a value at a per-lane index is
    /// picked by a pass over the rows, the median of the deviations comes
    /// from sorting them with the same network, and the boundary moves are
    /// counts of rows below and above the band (the rows are sorted). Lanes
    /// stop independently where `clipSorted` would stop; the loop ends when
    /// all have. The weighted mean is summed in `Double` in row order, as
    /// `clipSorted` sums.
    ///
    /// - Parameter deviations: scratch for `n` vectors.
    static func clipSortedLanes(_ v: UnsafePointer<SIMD8<Float>>, weights w: UnsafePointer<SIMD8<Float>>?,
                                rows n: Int, count: SIMD8<Int32>, kappaLow: Float, kappaHigh: Float,
                                maxIterations: Int, network: SortingNetwork,
                                deviations d: UnsafeMutablePointer<SIMD8<Float>>) -> SIMD8<Float> {
        let zero = SIMD8<Int32>(repeating: 0), one = SIMD8<Int32>(repeating: 1)
        var lo = zero, hi = count
        var active = hi .> lo
        var passes = 0
        while passes < maxIterations && any(active) {
            let k = hi &- lo
            let m = 0.5 * (pick(v, rows: n, at: lo &+ (k &- 1) / 2) + pick(v, rows: n, at: lo &+ k / 2))
            // Deviations of the kept samples; the others sort to the end.
            for i in 0..<n {
                let row = SIMD8<Int32>(repeating: Int32(i))
                let kept = (row .>= lo) .& (row .< hi)
                let dev = (v[i] - m).replacing(with: m - v[i], where: v[i] .< m)
                d[i] = SIMD8<Float>(repeating: .infinity).replacing(with: dev, where: kept)
            }
            network.sort(d)
            var mad = 0.5 * (pick(d, rows: n, at: (k &- 1) / 2) + pick(d, rows: n, at: k / 2))
            mad.replace(with: 0, where: k .<= one)
            var factor = SIMD8<Float>()
            for l in 0..<8 { factor[l] = smallSampleFactor(Int(k[l])) }
            let sigma = madToSigma * factor * mad
            let low = m - kappaLow * sigma
            let high = m + kappaHigh * sigma
            // Rows are sorted, so the samples below the band are the first
            // ones of the kept range and those above it the last ones.
            var below = zero
            for i in 0..<n {
                let row = SIMD8<Int32>(repeating: Int32(i))
                below &+= one.replacing(with: 0, where: .!((row .>= lo) .& (row .< hi) .& (v[i] .< low)))
            }
            let newLo = lo &+ below
            var above = zero
            for i in 0..<n {
                let row = SIMD8<Int32>(repeating: Int32(i))
                above &+= one.replacing(with: 0, where: .!((row .>= newLo) .& (row .< hi) .& (v[i] .> high)))
            }
            let newHi = hi &- above
            // A lane stops (keeping its range) when the pass would empty it or changes nothing.
            active .&= .!((newHi .<= newLo) .| ((newLo .== lo) .& (newHi .== hi)))
            lo.replace(with: newLo, where: active)
            hi.replace(with: newHi, where: active)
            passes += 1
            active .&= hi .> lo
        }
        // The weighted mean of the kept range, in Double, summed in row order.
        var sw = SIMD8<Double>(), swx = SIMD8<Double>(), sx = SIMD8<Double>()
        for i in 0..<n {
            let row = SIMD8<Int32>(repeating: Int32(i))
            let kept = (row .>= lo) .& (row .< hi)
            let x = SIMD8<Double>(SIMD8<Float>().replacing(with: v[i], where: kept))
            let wi = SIMD8<Double>(SIMD8<Float>().replacing(with: w?[i] ?? SIMD8(repeating: 1), where: kept))
            sw += wi
            swx += wi * x
            sx += x
        }
        var value = SIMD8<Float>()
        for l in 0..<8 where hi[l] > lo[l] {
            value[l] = Float(sw[l] > 0 ? swx[l] / sw[l] : sx[l] / Double(hi[l] - lo[l]))
        }
        return value
    }

    /// Per lane, the value of row `index[l]` of `rows` rows (0 where the
    /// index is outside them).
    @inline(__always)
    private static func pick(_ v: UnsafePointer<SIMD8<Float>>, rows n: Int, at index: SIMD8<Int32>) -> SIMD8<Float> {
        var out = SIMD8<Float>()
        for i in 0..<n { out.replace(with: v[i], where: index .== SIMD8(repeating: Int32(i))) }
        return out
    }
}
