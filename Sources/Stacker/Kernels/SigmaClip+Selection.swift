extension SigmaClip {
    /// `clipSorted` with equal weights for sixteen pixels of stored integer
    /// samples at once, without sorting them: the frame store's path past
    /// the sorting network, whose cost per sample does not grow with the
    /// frame count. Every lane gets `clip(values:weights:)`'s bits for its
    /// covered samples read back as `u · scale`, with all weights 1.
    ///
    /// The kept set of `clipSorted` is a contiguous range of ranks whose
    /// ends only ever move past whole runs of equal values, so it is also
    /// every covered sample within a value band (the intersection of the
    /// passes' `[m − κlow·σ, m + κhigh·σ]`). Each pass then needs:
    /// - the median: the two middle ranks of the kept range, by
    ///   `LaneSelection.middlePair`;
    /// - the MAD: each kept sample's deviation as an integer,
    ///   e = |2u − (a + b)| for middle values a, b, ranks the deviations
    ///   exactly as their float values |u·scale − m| do, except between the
    ///   two values of one e (one each side of m), whose float deviations
    ///   may differ in the last bits. The deviation of a rank is found by
    ///   bisection on e, then taken from the two float deviations of that
    ///   e with as many ranks as each value has samples;
    /// - the boundary moves: counts of covered samples below the band and
    ///   not above it.
    /// The mean of the kept samples is summed in `Double`, where the sum of
    /// up to 65535 samples of 16-bit values is exact, so its order does not
    /// matter.
    ///
    /// - Parameters:
    ///   - v: `n` rows of samples widened to `UInt16` (lane l = pixel l).
    ///   - uncovered: per row, all ones in the lanes the frame does not cover, else 0.
    ///   - count: covered samples per lane.
    ///   - scale: the read-back scale of the stored integers (1/255 or 1/65535).
    ///   - deviations: scratch for `n` rows.
    static func clipSelectingLanes(_ v: UnsafePointer<SIMD16<UInt16>>, uncovered: UnsafePointer<SIMD16<UInt16>>,
                                   rows n: Int, count: SIMD16<UInt16>, scale: Float,
                                   kappaLow: Float, kappaHigh: Float, maxIterations: Int,
                                   deviations e: UnsafeMutablePointer<SIMD16<UInt32>>) -> SIMD16<Float> {
        var lo = SIMD16<UInt16>(repeating: 0), hi = count
        var keepLow = SIMD16<Float>(repeating: -.infinity), keepHigh = SIMD16<Float>(repeating: .infinity)
        var active = hi .> lo
        var passes = 0
        while passes < maxIterations && any(active) {
            let k = hi &- lo
            let (a, b) = LaneSelection.middlePair(v, rows: n, first: lo, count: k)
            let m = 0.5 * (SIMD16<Float>(a) * scale + SIMD16<Float>(b) * scale)
            let mad = medianDeviation(v, uncovered: uncovered, rows: n, kept: (keepLow, keepHigh),
                                      count: k, middle: (a, b), median: m, scale: scale, deviations: e)
            var factor = SIMD16<Float>()
            for l in 0..<16 { factor[l] = smallSampleFactor(Int(k[l])) }
            let sigma = madToSigma * factor * mad
            let low = m - kappaLow * sigma
            let high = m + kappaHigh * sigma
            // Covered samples below the band and not above it: in sorted
            // order the first and the last ones of the kept range.
            var under32 = SIMD16<UInt32>(repeating: 0), notOver32 = SIMD16<UInt32>(repeating: 0)
            let one = SIMD16<UInt32>(repeating: 1), zero32 = SIMD16<UInt32>(repeating: 0)
            for i in 0..<n {
                let covered = SIMD16<Int32>(truncatingIfNeeded: uncovered[i]) .== 0
                let x = SIMD16<Float>(v[i]) * scale
                under32 &+= zero32.replacing(with: one, where: covered .& (x .< low))
                notOver32 &+= zero32.replacing(with: one, where: covered .& (x .<= high))
            }
            let under = SIMD16<UInt16>(truncatingIfNeeded: under32)
            let notOver = SIMD16<UInt16>(truncatingIfNeeded: notOver32)
            let zero = SIMD16<UInt16>(repeating: 0)
            let newLo = lo &+ (under .> lo).select(under &- lo, zero).clamped(below: k)
            let top = notOver.replacing(with: newLo, where: notOver .< newLo)
            let newHi = hi &- (hi .> top).select(hi &- top, zero)
            let stop = (newHi .<= newLo) .| ((newLo .== lo) .& (newHi .== hi))
            active .&= .!stop
            lo.replace(with: newLo, where: active)
            hi.replace(with: newHi, where: active)
            let applied = SIMD16<Int32>(truncatingIfNeeded: SIMD16<UInt16>(repeating: 0)
                .replacing(with: 1, where: active)) .!= 0
            keepLow.replace(with: low, where: applied .& (low .> keepLow))
            keepHigh.replace(with: high, where: applied .& (high .< keepHigh))
            passes += 1
            active .&= hi .> lo
        }
        // The mean of the kept samples.
        var sum = SIMD16<Double>()
        for i in 0..<n {
            let x = SIMD16<Float>(v[i]) * scale
            let kept = keptMask(x, uncovered[i], keepLow, keepHigh)
            sum += SIMD16<Double>(SIMD16<Float>().replacing(with: x, where: kept))
        }
        var value = SIMD16<Float>()
        let k = hi &- lo
        for l in 0..<16 where k[l] > 0 { value[l] = Float(sum[l] / Double(k[l])) }
        return value
    }

    /// Whether samples `x` of a row whose coverage or-mask is `uncovered`
    /// are covered and within `[low, high]`.
    @inline(__always)
    private static func keptMask(_ x: SIMD16<Float>, _ uncovered: SIMD16<UInt16>,
                                 _ low: SIMD16<Float>, _ high: SIMD16<Float>) -> SIMDMask<SIMD16<Int32>> {
        (SIMD16<Int32>(truncatingIfNeeded: uncovered) .== 0) .& (x .>= low) .& (x .<= high)
    }

    /// The MAD of the kept samples around `median` (computed from the
    /// middle values `a`, `b`), as `madSorted` computes it: the mean of the
    /// deviations of ranks (k − 1)/2 and k/2.
    @inline(__always)
    private static func medianDeviation(_ v: UnsafePointer<SIMD16<UInt16>>, uncovered: UnsafePointer<SIMD16<UInt16>>,
                                        rows n: Int, kept band: (SIMD16<Float>, SIMD16<Float>),
                                        count k: SIMD16<UInt16>, middle: (SIMD16<UInt16>, SIMD16<UInt16>),
                                        median m: SIMD16<Float>, scale: Float,
                                        deviations e: UnsafeMutablePointer<SIMD16<UInt32>>) -> SIMD16<Float> {
        let ab = SIMD16<UInt32>(truncatingIfNeeded: middle.0) &+ SIMD16<UInt32>(truncatingIfNeeded: middle.1)
        var widest = SIMD16<UInt32>(repeating: 0)
        for i in 0..<n {
            let x = SIMD16<Float>(v[i]) * scale
            let twice = SIMD16<UInt32>(truncatingIfNeeded: v[i]) &* 2
            let deviation = (twice &- ab).replacing(with: ab &- twice, where: twice .< ab)
            let kept = keptMask(x, uncovered[i], band.0, band.1)
            e[i] = SIMD16<UInt32>(repeating: .max).replacing(with: deviation, where: kept)
            widest.replace(with: deviation, where: kept .& (deviation .> widest))
        }
        let k32 = SIMD16<UInt32>(truncatingIfNeeded: k)
        let lowRank = (k32 &- 1) / 2, highRank = k32 / 2
        let first = LaneSelection.select(UnsafePointer(e), rows: n, rank: lowRank.replacing(with: 0, where: k32 .== 0),
                                         high: widest)
        let g = group(e, v, rows: n, at: first, middleSum: ab)
        let dLow = pick(g, at: first, position: lowRank &- g.below, middleSum: ab, median: m, scale: scale)
        var dHigh = pick(g, at: first, position: highRank &- g.below, middleSum: ab, median: m, scale: scale)
        // The upper rank lies in the next deviation when the first's samples end at the lower rank.
        let beyond = highRank .>= g.below &+ g.size(at: first)
        if any(beyond .& (k32 .> 1)) {
            let next = group(e, v, rows: n, at: g.next, middleSum: ab)
            let d = pick(next, at: g.next, position: SIMD16(repeating: 0), middleSum: ab, median: m, scale: scale)
            dHigh.replace(with: d, where: beyond)
        }
        return (0.5 * (dLow + dHigh)).replacing(with: 0, where: k32 .<= 1)
    }

    /// The kept samples of one integer deviation `target` per lane: how many
    /// rank below it, how many it has on each side of the median (a sample
    /// on the median counts on both), and the next larger deviation.
    private struct DeviationGroup {
        var below = SIMD16<UInt32>(repeating: 0)
        var left = SIMD16<UInt32>(repeating: 0)
        var right = SIMD16<UInt32>(repeating: 0)
        var next = SIMD16<UInt32>(repeating: .max)
        /// Samples with deviation `target` (counted once when it is 0).
        func size(at target: SIMD16<UInt32>) -> SIMD16<UInt32> {
            (left &+ right).replacing(with: left, where: target .== 0)
        }
    }

    @inline(__always)
    private static func group(_ e: UnsafePointer<SIMD16<UInt32>>, _ v: UnsafePointer<SIMD16<UInt16>>, rows n: Int,
                              at target: SIMD16<UInt32>, middleSum ab: SIMD16<UInt32>) -> DeviationGroup {
        var g = DeviationGroup()
        let one = SIMD16<UInt32>(repeating: 1), zero = SIMD16<UInt32>(repeating: 0)
        for i in 0..<n {
            let d = e[i]
            let twice = SIMD16<UInt32>(truncatingIfNeeded: v[i]) &* 2
            let on = d .== target
            g.below &+= zero.replacing(with: one, where: d .< target)
            g.left &+= zero.replacing(with: one, where: on .& (twice .<= ab))
            g.right &+= zero.replacing(with: one, where: on .& (twice .>= ab))
            g.next.replace(with: d, where: (d .> target) .& (d .< g.next))
        }
        return g
    }

    /// The float deviation at `position` within group `g` of integer
    /// deviation `target`: its samples sorted by float deviation, the side
    /// with the smaller one first.
    @inline(__always)
    private static func pick(_ g: DeviationGroup, at target: SIMD16<UInt32>, position p: SIMD16<UInt32>,
                             middleSum ab: SIMD16<UInt32>, median m: SIMD16<Float>, scale: Float) -> SIMD16<Float> {
        let leftValue = SIMD16<Float>((ab &- target) / 2) * scale
        let rightValue = SIMD16<Float>((ab &+ target) / 2) * scale
        let dLeft = m - leftValue, dRight = rightValue - m
        let leftFirst = dLeft .<= dRight
        let fromLeft = SIMD16<Int32>(truncatingIfNeeded: zeroOr(one: p .< g.left)) .!= 0
        let fromRight = SIMD16<Int32>(truncatingIfNeeded: zeroOr(one: p .< g.right)) .!= 0
        let smallFirst = dLeft.replacing(with: dRight, where: .!leftFirst)
        let largeLater = dRight.replacing(with: dLeft, where: .!leftFirst)
        let inFirst = (leftFirst .& fromLeft) .| (.!leftFirst .& fromRight)
        return largeLater.replacing(with: smallFirst, where: inFirst)
    }

    @inline(__always)
    private static func zeroOr(one mask: SIMDMask<SIMD16<Int32>>) -> SIMD16<UInt32> {
        SIMD16<UInt32>(repeating: 0).replacing(with: 1, where: mask)
    }
}

private extension SIMDMask where Storage == SIMD16<Int16> {
    /// Per lane, `a` where the mask is set, else `b`.
    @inline(__always)
    func select(_ a: SIMD16<UInt16>, _ b: SIMD16<UInt16>) -> SIMD16<UInt16> { b.replacing(with: a, where: self) }
}

private extension SIMD16 where Scalar == UInt16 {
    /// Per lane, the smaller of self and `limit`.
    @inline(__always)
    func clamped(below limit: Self) -> Self { replacing(with: limit, where: limit .< self) }
}
