import Testing
@testable import Stacker
import TestSupport

@Suite("Sigma-clip kernel")
struct KernelSigmaClipTests {
    /// The population standard deviation of `xs`.
    static func standardDeviation(_ xs: [Double]) -> Double {
        let m = xs.reduce(0, +) / Double(xs.count)
        return (xs.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(xs.count)).squareRoot()
    }

    @Test("a trail value 1.0 among N(0.3, 0.02) samples is rejected, and only it")
    func rejectsExactlyTheOutliers() {
        var rng = TestRandom(seed: 10)
        // One fixed set: 17 inliers and 3 trail samples. The inliers are drawn
        // from N(0.3, 0.02) truncated at ±2σ, so none is a legitimate 3σ outlier
        // and rejecting one would be the kernel's fault, not chance.
        var inliers: [Float] = []
        while inliers.count < 17 {
            let g = rng.gaussian()
            if abs(g) <= 2 { inliers.append(Float(0.3 + 0.02 * g)) }
        }
        let samples = inliers + [1.0, 1.0, 1.0]
        let r = SigmaClip.clip(samples)
        #expect(r.rejectedHigh == 3)
        #expect(r.rejectedLow == 0)
        #expect(r.kept == 17)
        let inlierMean = inliers.reduce(0.0) { $0 + Double($1) } / 17
        #expect(abs(Double(r.value) - inlierMean) < 1e-6)

        // Over 2000 pixels of untruncated N(0.3, 0.02) with 1…6 trail samples:
        // every trail sample goes. Inliers are lost at about the rate clipping
        // loses on pure noise (0.27 % for a known σ; ~1.8 % measured with a MAD
        // σ from 20 samples and 5 passes, the trail's pull on the median adds a
        // little), so the bound is 3 %.
        var trailKept = 0, inliersLost = 0, inlierCount = 0
        for _ in 0..<2000 {
            let trail = rng.int(in: 1...6)
            let good = 20 - trail
            var xs: [Float] = (0..<good).map { _ in Float(0.3 + 0.02 * rng.gaussian()) }
            xs += [Float](repeating: 1.0, count: trail)
            let res = SigmaClip.clip(xs)
            let keptHigh = xs.count - res.rejectedHigh
            if keptHigh > good { trailKept += 1 }
            inliersLost += (res.rejectedLow + res.rejectedHigh) - trail
            inlierCount += good
        }
        #expect(trailKept == 0)
        let lossRate = Double(inliersLost) / Double(inlierCount)
        print("sigma-clip inlier loss with trails: \(lossRate)")
        #expect(lossRate < 0.03)
    }

    @Test("without outliers sigma-clip keeps the noise of the mean (≤ 1.1 σ/√N), the median's is ~1.25×")
    func noiseCloseToMean() {
        var rng = TestRandom(seed: 11)
        let n = 20, pixels = 4000, sigma = 0.02
        var clipped: [Double] = [], medians: [Double] = []
        for _ in 0..<pixels {
            let xs: [Float] = (0..<n).map { _ in Float(0.3 + sigma * rng.gaussian()) }
            clipped.append(Double(SigmaClip.clip(xs).value))
            medians.append(Double(Median.of(xs)))
        }
        let ideal = sigma / Double(n).squareRoot()
        let clipRatio = Self.standardDeviation(clipped) / ideal
        let medianRatio = Self.standardDeviation(medians) / ideal
        print("sigma-clip noise / (σ/√N) = \(clipRatio), median = \(medianRatio)")
        // 4000 pixels estimate a std to about ±1.2 %, so 1.1 leaves room for the
        // few inliers clipping loses; the median's efficiency gives ~1.2–1.25.
        #expect(clipRatio <= 1.1)
        #expect(medianRatio > 1.15)
        #expect(clipRatio < medianRatio)
    }

    @Test("the output is the weighted mean of the kept samples (hand computation 0.302)")
    func weightedMeanByHand() {
        // Median 0.31, MAD 0.01 → σ = 0.014826 · 1.206 (n = 5) = 0.01788,
        // band [0.2564, 0.3636]: 0.95 goes; the second pass changes nothing.
        // Kept: (0.30·1 + 0.32·2 + 0.28·3 + 0.31·4) / (1+2+3+4) = 3.02 / 10 = 0.302.
        let r = SigmaClip.clip([0.30, 0.32, 0.28, 0.31, 0.95], weights: [1, 2, 3, 4, 5])
        #expect(abs(r.value - 0.302) < 1e-6)
        #expect(r.kept == 4 && r.rejectedHigh == 1 && r.rejectedLow == 0)
        // Unweighted the same set gives (0.30+0.32+0.28+0.31)/4 = 0.3025.
        #expect(abs(SigmaClip.clip([0.30, 0.32, 0.28, 0.31, 0.95]).value - 0.3025) < 1e-6)
    }

    @Test("dark outliers are counted as low rejections")
    func lowRejections() {
        let xs: [Float] = [0.50, 0.52, 0.49, 0.51, 0.50, 0.48, 0.0, 0.02]
        let r = SigmaClip.clip(xs)
        #expect(r.rejectedLow == 2 && r.rejectedHigh == 0)
        #expect(abs(r.value - 0.5) < 1e-6)
    }

    @Test("guards: identical samples, σ = 0, no iterations, tiny and empty sets")
    func guards() {
        // Identical samples return exactly their value, nothing rejected.
        let same = SigmaClip.clip([Float](repeating: 0.4, count: 9))
        #expect(same.value == 0.4 && same.kept == 9 && same.iterations == 0)
        // σ = 0 (most samples equal): the band is the median; the rest goes.
        let zero = SigmaClip.clip([0.5, 0.5, 0.5, 0.5, 0.9, 0.1])
        #expect(zero.value == 0.5 && zero.rejectedHigh == 1 && zero.rejectedLow == 1)
        // maxIterations 0 is the plain weighted mean.
        let none = SigmaClip.clip([0.2, 0.4, 1.0], weights: [1, 1, 2], maxIterations: 0)
        #expect(abs(none.value - 0.65) < 1e-6 && none.kept == 3)
        // One and two samples are never rejected.
        #expect(SigmaClip.clip([0.7]).value == 0.7)
        let two = SigmaClip.clip([0.1, 0.9])
        #expect(two.kept == 2 && abs(two.value - 0.5) < 1e-6)
        // A tiny κ may not reject everything.
        let tiny = SigmaClip.clip([0.1, 0.2, 0.3, 0.4], kappaLow: 0.01, kappaHigh: 0.01)
        #expect(tiny.kept >= 1)
        #expect(SigmaClip.clip([]).kept == 0)
    }

    @Test("MAD on a sorted range matches the definition")
    func madMatchesDefinition() {
        var rng = TestRandom(seed: 12)
        for n in 1...40 {
            let xs = (0..<n).map { _ in Float(rng.uniform()) }.sorted()
            let m = Median.of(xs)
            let expected = Median.of(xs.map { abs($0 - m) })
            let got = xs.withUnsafeBufferPointer { SigmaClip.madSorted($0.baseAddress!, 0, n, median: m) }
            #expect(got == expected, "n = \(n)")
        }
    }
}
