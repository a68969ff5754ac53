extension SigmaClip {
    /// `clipSorted` with equal weights for sixteen pixels of stored integer
    /// samples at once, without sorting them: the frame store's path past
    /// the sorting network, whose cost per sample does not grow with the
    /// frame count. Every lane gets `clip(values:weights:)`'s bits for its
    /// covered samples read back as `u · scale`, with all weights 1.
    ///
    /// The kept set of `clipSorted` is a contiguous range of ranks whose
    /// ends only ever move past whole runs of equal values, so it is also
    /// every covered sample within a band of stored levels (the
    /// intersection of the passes' `[m − κlow·σ, m + κhigh·σ]`, turned into
    /// levels once per pass: `u · scale` grows with u). Each pass then needs:
    /// - the median: the two middle ranks of the kept range, by
    ///   `LaneSelection.middlePair`;
    /// - the MAD: each kept sample's deviation as an integer,
    ///   e = |2u − (a + b)| for middle values a, b, kept halved (e has the
    ///   parity of a + b, so nothing is lost) in 16 bits. It ranks the
    ///   deviations as their float values |u·scale − m| do, except between
    ///   the two levels of one e (one each side of m), whose float
    ///   deviations may differ in the last bits. The deviation of a rank is
    ///   found by bisection on e, then taken from the two float deviations
    ///   of that e with as many ranks as each level has samples;
    /// - the boundary moves: counts of covered samples below the band and
    ///   not above it.
    /// All passes compare 16-bit integers; only the final mean converts
    /// samples to floats. It is summed in `Double`, where the sum of up to
    /// 65535 samples of 16-bit levels is exact, so its order does not matter.
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
                                   deviations e: UnsafeMutablePointer<SIMD16<UInt16>>) -> SIMD16<Float> {
        let zero = SIMD16<UInt16>(repeating: 0), one = SIMD16<UInt16>(repeating: 1)
        var lo = zero, hi = count
        // The kept levels: first ... last.
        var first = zero, last = SIMD16<UInt16>(repeating: .max)
        var active = hi .> lo
        var passes = 0
        while passes < maxIterations && any(active) {
            let k = hi &- lo
            let (a, b) = LaneSelection.middlePair(v, rows: n, first: lo, count: k)
            let m = 0.5 * (SIMD16<Float>(a) * scale + SIMD16<Float>(b) * scale)
            let mad = medianDeviation(v, uncovered: uncovered, rows: n, kept: (first, last), count: k,
                                      middle: (a, b), median: m, scale: scale, deviations: e)
            var factor = SIMD16<Float>()
            for l in 0..<16 { factor[l] = smallSampleFactor(Int(k[l])) }
            let sigma = madToSigma * factor * mad
            let low = m - kappaLow * sigma
            let high = m + kappaHigh * sigma
            // Levels below the band (u < below) and not above it (u < notAbove), 0…65536.
            var below = [Int](repeating: 0, count: 16), notAbove = [Int](repeating: 0, count: 16)
            for l in 0..<16 {
                below[l] = levels(scale: scale) { $0 < low[l] }
                notAbove[l] = levels(scale: scale) { $0 <= high[l] }
            }
            let (belowLast, belowNone) = lastLevel(below)
            let (keptLast, keptNone) = lastLevel(notAbove)
            // Covered samples below the band and not above it: in sorted
            // order the first and the last ones of the kept range.
            var under = zero, notOver = zero
            for i in 0..<n {
                let x = v[i]
                let covered = uncovered[i] .== zero
                under &+= zero.replacing(with: one, where: covered .& (x .<= belowLast) .& .!belowNone)
                notOver &+= zero.replacing(with: one, where: covered .& (x .<= keptLast) .& .!keptNone)
            }
            let excess = (under &- lo).replacing(with: 0, where: under .<= lo)
            let newLo = lo &+ excess.replacing(with: k, where: excess .> k)
            let top = notOver.replacing(with: newLo, where: notOver .< newLo)
            let newHi = hi &- (hi &- top).replacing(with: 0, where: hi .<= top)
            let stop = (newHi .<= newLo) .| ((newLo .== lo) .& (newHi .== hi))
            active .&= .!stop
            lo.replace(with: newLo, where: active)
            hi.replace(with: newHi, where: active)
            // An applied pass kept something, so its band has levels.
            var bandFirst = zero
            for l in 0..<16 { bandFirst[l] = UInt16(clamping: below[l]) }
            first.replace(with: bandFirst, where: active .& (bandFirst .> first))
            last.replace(with: keptLast, where: active .& (keptLast .< last))
            passes += 1
            active .&= hi .> lo
        }
        // The mean of the kept samples.
        var sum = SIMD16<Double>()
        for i in 0..<n {
            let x = v[i]
            let kept = (uncovered[i] .== zero) .& (x .>= first) .& (x .<= last)
            let levels = zero.replacing(with: x, where: kept)
            sum += SIMD16<Double>(SIMD16<Float>(levels) * scale)
        }
        var value = SIMD16<Float>()
        let k = hi &- lo
        for l in 0..<16 where k[l] > 0 { value[l] = Float(sum[l] / Double(k[l])) }
        return value
    }

    /// How many levels u in 0…65535 have `holds(u · scale)`, for a
    /// condition that holds for the levels below some point and not above it.
    @inline(__always)
    private static func levels(scale: Float, _ holds: (Float) -> Bool) -> Int {
        // A guess from the largest level whose value holds, then exact steps.
        var lowest = 0, highest = 65536
        while lowest < highest {
            let mid = (lowest + highest) / 2
            if holds(Float(mid) * scale) { lowest = mid + 1 } else { highest = mid }
        }
        return lowest
    }

    /// Per lane, the last of `count[l]` levels from 0 (clamped to 0…65535)
    /// and whether there are none.
    @inline(__always)
    private static func lastLevel(_ count: [Int]) -> (last: SIMD16<UInt16>, none: SIMDMask<SIMD16<Int16>>) {
        var last = SIMD16<UInt16>(), none = SIMDMask<SIMD16<Int16>>()
        for l in 0..<16 {
            last[l] = UInt16(clamping: count[l] - 1)
            none[l] = count[l] == 0
        }
        return (last, none)
    }

    /// The MAD of the kept samples around `median` (computed from the
    /// middle values `a`, `b`), as `madSorted` computes it: the mean of the
    /// deviations of ranks (k − 1)/2 and k/2.
    @inline(__always)
    private static func medianDeviation(_ v: UnsafePointer<SIMD16<UInt16>>, uncovered: UnsafePointer<SIMD16<UInt16>>,
                                        rows n: Int, kept band: (SIMD16<UInt16>, SIMD16<UInt16>),
                                        count k: SIMD16<UInt16>, middle: (SIMD16<UInt16>, SIMD16<UInt16>),
                                        median m: SIMD16<Float>, scale: Float,
                                        deviations e: UnsafeMutablePointer<SIMD16<UInt16>>) -> SIMD16<Float> {
        let mid = Middle(middle.0, middle.1)
        let zero = SIMD16<UInt16>(repeating: 0)
        var widest = zero
        for i in 0..<n {
            let x = v[i]
            let kept = (uncovered[i] .== zero) .& (x .>= band.0) .& (x .<= band.1)
            let d = mid.halfDeviation(x)
            e[i] = SIMD16<UInt16>(repeating: .max).replacing(with: d, where: kept)
            widest.replace(with: d, where: kept .& (d .> widest))
        }
        let lowRank = ((k &- 1) / 2).replacing(with: 0, where: k .== zero), highRank = k / 2
        let target = LaneSelection.select(UnsafePointer(e), rows: n, rank: lowRank, low: zero, span: widest)
        let g = group(e, v, uncovered: uncovered, rows: n, kept: band, at: target, middle: mid)
        let dLow = pick(g, at: target, position: lowRank &- g.below, middle: mid, median: m, scale: scale)
        var dHigh = pick(g, at: target, position: highRank &- g.below, middle: mid, median: m, scale: scale)
        // The upper rank lies in the next deviation when the first's samples end at the lower rank.
        let beyond = highRank .>= g.below &+ g.size(at: target, middle: mid)
        if any(beyond .& (k .> 1)) {
            let next = group(e, v, uncovered: uncovered, rows: n, kept: band, at: g.next, middle: mid)
            let d = pick(next, at: g.next, position: zero, middle: mid, median: m, scale: scale)
            let far = SIMD16<Int32>(truncatingIfNeeded: zero.replacing(with: 1, where: beyond)) .!= 0
            dHigh.replace(with: d, where: far)
        }
        let single = SIMD16<Int32>(truncatingIfNeeded: zero.replacing(with: 1, where: k .<= 1)) .!= 0
        return (0.5 * (dLow + dHigh)).replacing(with: 0, where: single)
    }

    /// The two middle levels a ≤ b as h = ⌊(a + b)/2⌋ and p = (a + b) mod 2.
    private struct Middle {
        let h: SIMD16<UInt16>
        let p: SIMD16<UInt16>

        init(_ a: SIMD16<UInt16>, _ b: SIMD16<UInt16>) {
            h = a &+ (b &- a) / 2
            p = (a ^ b) & 1
        }

        /// ⌊|2u − (a + b)| / 2⌋: u − h − p above h, h − u from h down.
        @inline(__always)
        func halfDeviation(_ u: SIMD16<UInt16>) -> SIMD16<UInt16> {
            (h &- u).replacing(with: u &- h &- p, where: u .> h)
        }

        /// The level below (or at) the middle with half-deviation `d`.
        @inline(__always)
        func leftLevel(_ d: SIMD16<UInt16>) -> SIMD16<UInt16> { h &- d }

        /// The level above the middle with half-deviation `d`.
        @inline(__always)
        func rightLevel(_ d: SIMD16<UInt16>) -> SIMD16<UInt16> { h &+ p &+ d }
    }

    /// The kept samples of one half-deviation `target` per lane: how many
    /// rank below it, how many it has on each side of the middle (a sample
    /// on the middle counts on both), and the next larger half-deviation.
    private struct DeviationGroup {
        var below = SIMD16<UInt16>(repeating: 0)
        var left = SIMD16<UInt16>(repeating: 0)
        var right = SIMD16<UInt16>(repeating: 0)
        var next = SIMD16<UInt16>(repeating: .max)

        /// Samples with half-deviation `target` (counted once when they lie on the middle).
        func size(at target: SIMD16<UInt16>, middle: Middle) -> SIMD16<UInt16> {
            (left &+ right).replacing(with: left, where: (target .== 0) .& (middle.p .== 0))
        }
    }

    @inline(__always)
    private static func group(_ e: UnsafePointer<SIMD16<UInt16>>, _ v: UnsafePointer<SIMD16<UInt16>>,
                              uncovered: UnsafePointer<SIMD16<UInt16>>, rows n: Int,
                              kept band: (SIMD16<UInt16>, SIMD16<UInt16>),
                              at target: SIMD16<UInt16>, middle: Middle) -> DeviationGroup {
        var g = DeviationGroup()
        let one = SIMD16<UInt16>(repeating: 1), zero = SIMD16<UInt16>(repeating: 0)
        for i in 0..<n {
            let d = e[i], x = v[i]
            let kept = (uncovered[i] .== zero) .& (x .>= band.0) .& (x .<= band.1)
            let on = kept .& (d .== target)
            g.below &+= zero.replacing(with: one, where: kept .& (d .< target))
            g.left &+= zero.replacing(with: one, where: on .& (x .<= middle.h))
            g.right &+= zero.replacing(with: one, where: on .& (x .>= middle.h &+ middle.p))
            g.next.replace(with: d, where: kept .& (d .> target) .& (d .< g.next))
        }
        return g
    }

    /// The float deviation at `position` within group `g` of half-deviation
    /// `target`: its samples sorted by float deviation, the side with the
    /// smaller one first.
    @inline(__always)
    private static func pick(_ g: DeviationGroup, at target: SIMD16<UInt16>, position p: SIMD16<UInt16>,
                             middle: Middle, median m: SIMD16<Float>, scale: Float) -> SIMD16<Float> {
        let dLeft = m - SIMD16<Float>(middle.leftLevel(target)) * scale
        let dRight = SIMD16<Float>(middle.rightLevel(target)) * scale - m
        let leftFirst = dLeft .<= dRight
        let zero = SIMD16<UInt16>(repeating: 0)
        let inLeft = SIMD16<Int32>(truncatingIfNeeded: zero.replacing(with: 1, where: p .< g.left)) .!= 0
        let inRight = SIMD16<Int32>(truncatingIfNeeded: zero.replacing(with: 1, where: p .< g.right)) .!= 0
        let smallFirst = dLeft.replacing(with: dRight, where: .!leftFirst)
        let largeLater = dRight.replacing(with: dLeft, where: .!leftFirst)
        let inFirst = (leftFirst .& inLeft) .| (.!leftFirst .& inRight)
        return largeLater.replacing(with: smallFirst, where: inFirst)
    }
}
