import Foundation
import Testing
@testable import Stacker
import TestSupport

/// The rejection family as pure per-pixel kernels, on stacks with planted
/// outliers whose place and side are known.
@Suite("Rejection algorithms")
struct RejectionAlgorithmTests {
    /// A synthetic stack: `pixels` pixels of `frames` samples each, truth
    /// from 0.3 to 0.8 plus N(0, `noise`); hot pixels (1.0) and dead pixels
    /// (0.0) in random frames, and a satellite trail (truth + 0.4) through
    /// one frame of every pixel with `trail` set. `plantedLow` / `plantedHigh`
    /// count, per pixel, the outliers planted below and above.
    struct PlantedStack {
        var truth: [Float] = []
        var samples: [[Float]] = []
        var plantedLow: [Int] = []
        var plantedHigh: [Int] = []
        var outlier: [[Bool]] = []

        /// `spike`: hot and dead pixels at truth ± spike instead of 1 and 0
        /// (both shifted by `offset`).
        init(pixels: Int, frames: Int, noise: Double, offset: Float = 0, spike: Float? = nil, seed: UInt64) {
            var rng = TestRandom(seed: seed)
            for p in 0..<pixels {
                let t = Float(0.3 + 0.5 * rng.uniform()) + offset
                var xs: [Float] = (0..<frames).map { _ in t + Float(noise * rng.gaussian()) }
                var isOutlier = [Bool](repeating: false, count: frames)
                var low = 0, high = 0
                // A trail crosses every 7th pixel in frame p % frames.
                if p % 7 == 0 {
                    let f = p % frames
                    xs[f] = t + 0.4; isOutlier[f] = true; high += 1
                }
                // Hot and dead pixels: each pixel has 0…2 of them.
                for _ in 0..<rng.int(in: 0...2) {
                    let f = rng.int(in: 0...(frames - 1))
                    guard !isOutlier[f] else { continue }
                    if rng.uniform() < 0.5 {
                        xs[f] = spike.map { t + $0 } ?? 1 + offset; high += 1
                    } else {
                        xs[f] = spike.map { t - $0 } ?? offset; low += 1
                    }
                    isOutlier[f] = true
                }
                truth.append(t)
                samples.append(xs)
                plantedLow.append(low)
                plantedHigh.append(high)
                outlier.append(isOutlier)
            }
        }

        /// PSNR of `values` against the truth, peak 1.
        func psnr(_ values: [Float]) -> Double {
            var se = 0.0
            for (v, t) in zip(values, truth) { se += Double(v - t) * Double(v - t) }
            let mse = se / Double(truth.count)
            return 10 * log10(1 / mse)
        }
    }

    /// Every algorithm at its defaults, as `--reject` gives them.
    static let algorithms: [RejectionAlgorithm] = RejectionAlgorithm.Name.allCases.map { .named($0) }

    @Test("each algorithm removes every planted hot pixel, dead pixel and trail sample at 24 frames, beats the mean's PSNR, and counts low and high apart",
          arguments: RejectionAlgorithm.Name.allCases)
    func removesPlantedOutliers(_ name: RejectionAlgorithm.Name) {
        let algorithm = RejectionAlgorithm.named(name)
        // Percentile's bounds are fractions of the median (20 % below, 10 %
        // above): the noise must be small beside them, as on the few
        // frames of good data it is meant for.
        let noise = name == .percentile ? 0.005 : 0.02
        let stack = PlantedStack(pixels: 3000, frames: 24, noise: noise, seed: 41)
        var values: [Float] = [], means: [Float] = [], inlierMeans: [Float] = []
        var missedLow = 0, missedHigh = 0, wrongSide = 0, goodRejected = 0, goodSamples = 0
        for p in 0..<stack.truth.count {
            let xs = stack.samples[p]
            let r = algorithm.reject(xs)
            values.append(r.value)
            means.append(xs.reduce(0, +) / Float(xs.count))
            let inliers = zip(xs, stack.outlier[p]).filter { !$0.1 }.map(\.0)
            inlierMeans.append(inliers.reduce(0, +) / Float(inliers.count))
            #expect(r.kept + r.rejectedLow + r.rejectedHigh == xs.count)
            // Every planted outlier gone, on its own side.
            if r.rejectedLow < stack.plantedLow[p] { missedLow += 1 }
            if r.rejectedHigh < stack.plantedHigh[p] { missedHigh += 1 }
            // A planted low outlier rejected as high would show as more highs than lows
            // beyond the good samples' share; count the good samples rejected.
            let extra = (r.rejectedLow - stack.plantedLow[p]) + (r.rejectedHigh - stack.plantedHigh[p])
            if r.rejectedLow < stack.plantedLow[p] && r.rejectedHigh > stack.plantedHigh[p] { wrongSide += 1 }
            goodRejected += max(0, extra)
            goodSamples += xs.count - stack.plantedLow[p] - stack.plantedHigh[p]
        }
        let loss = Double(goodRejected) / Double(goodSamples)
        let rejected = stack.psnr(values), plain = stack.psnr(means), oracle = stack.psnr(inlierMeans)
        print("\(name.rawValue): PSNR \(rejected) dB against the mean's \(plain) dB and the good samples' mean's \(oracle) dB; good samples lost \(loss)")
        #expect(missedLow == 0, "\(name.rawValue): \(missedLow) pixels kept a planted low outlier")
        #expect(missedHigh == 0, "\(name.rawValue): \(missedHigh) pixels kept a planted high outlier")
        #expect(wrongSide == 0)
        // The mean carries the outliers (33 dB here). The mean of exactly
        // the good samples (an oracle that knows them) is the ceiling; a
        // rejection that removes the outliers and few good samples comes
        // within 0.5 dB of it.
        #expect(rejected > plain + 10, "\(name.rawValue): \(rejected) dB against the mean's \(plain) dB")
        #expect(rejected > oracle - 0.5, "\(name.rawValue): \(rejected) dB against the oracle's \(oracle) dB")
        // Good samples lost: a 3σ clip of normal data loses 0.27 %; the
        // looser estimates of σ from 24 samples lose more, 5 % is the bound.
        #expect(loss < 0.05, "\(name.rawValue) lost \(loss) of the good samples")
    }

    @Test("at 300 frames, with 20 % of each pixel's samples outliers, every algorithm removes them all and comes within 0.5 dB of the oracle",
          arguments: RejectionAlgorithm.Name.allCases)
    func manyFrames(_ name: RejectionAlgorithm.Name) {
        var rng = TestRandom(seed: 45)
        let n = 300, pixels = 200
        let noise = name == .percentile ? 0.005 : 0.02
        let algorithm = RejectionAlgorithm.named(name)
        var se = 0.0, seOracle = 0.0, missed = 0
        for _ in 0..<pixels {
            let t = 0.3 + 0.5 * rng.uniform()
            var xs = (0..<n).map { _ in Float(t + noise * rng.gaussian()) }
            let oracle = xs[60...].reduce(0.0) { $0 + Double($1) } / Double(n - 60)
            // 60 outliers: 40 above (a trail, hot pixels), 20 below.
            for f in 0..<60 { xs[f] = Float(f < 40 ? t + 0.3 + 0.01 * Double(f) : t - 0.25 - 0.005 * Double(f)) }
            let r = algorithm.reject(xs)
            if r.rejectedHigh < 40 || r.rejectedLow < 20 { missed += 1 }
            se += (Double(r.value) - t) * (Double(r.value) - t)
            seOracle += (oracle - t) * (oracle - t)
        }
        let p = 10 * log10(Double(pixels) / se), pOracle = 10 * log10(Double(pixels) / seOracle)
        print("\(name.rawValue) at 300 frames: \(p) dB, oracle \(pOracle) dB")
        #expect(missed == 0, "\(name.rawValue): \(missed) pixels kept an outlier")
        #expect(p > pOracle - 0.5, "\(name.rawValue): \(p) dB against the oracle's \(pOracle) dB")
    }

    @Test("float data outside 0…1 survives every algorithm: a stack at −0.8…−0.3 and one at 1.7…2.2 come out near the truth",
          arguments: RejectionAlgorithm.Name.allCases)
    func floatDataOutsideUnitRange(_ name: RejectionAlgorithm.Name) {
        let algorithm = RejectionAlgorithm.named(name)
        let noise = name == .percentile ? 0.002 : 0.02
        for offset: Float in [-1.1, 1.4] {
            // Spikes of ±1: outliers for percentile's bounds too (at most
            // 0.2 × 2.2 from the median here).
            let stack = PlantedStack(pixels: 500, frames: 24, noise: noise, offset: offset, spike: 1, seed: 42)
            var worst: Float = 0
            for p in 0..<stack.truth.count {
                let r = algorithm.reject(stack.samples[p])
                worst = max(worst, abs(r.value - stack.truth[p]))
            }
            // σ/√24 ≈ 0.004: 0.02 is five of those, and far from any clamp
            // to 0…1 (at least 0.3 away).
            #expect(worst < 0.02, "\(name.rawValue) at offset \(offset): worst error \(worst)")
        }
    }

    @Test("identical samples come back exactly, nothing rejected; no samples give 0")
    func identicalAndEmpty() {
        for algorithm in Self.algorithms {
            let r = algorithm.reject([Float](repeating: 0.4375, count: 9))
            #expect(r.value == 0.4375 && r.kept == 9 && r.rejectedLow == 0 && r.rejectedHigh == 0, "\(algorithm)")
            #expect(algorithm.reject([]) == RejectionResult(value: 0, kept: 0, rejectedLow: 0, rejectedHigh: 0))
        }
    }

    @Test("the kept samples are averaged with their weights; a rejected sample's weight does not count")
    func weightedMeanOfKept() {
        // 20 samples spread evenly over 0.22…0.28 with weight 0, but 0.24
        // (weight 3) and 0.26 (weight 1), near the centre where every
        // algorithm keeps them; 0.9 (weight 5) is far above and rejected.
        var xs: [Float] = (0..<20).map { 0.22 + 0.06 * Float($0) / 19 }
        var w = [Float](repeating: 0, count: 20)
        xs[9] = 0.24; w[9] = 3
        xs[10] = 0.26; w[10] = 1
        xs.append(0.9); w.append(5)
        for algorithm in Self.algorithms {
            let r = algorithm.reject(xs, weights: w)
            #expect(r.rejectedHigh >= 1, "\(algorithm)")
            #expect(abs(r.value - 0.245) < 1e-6, "\(algorithm): \(r.value)")
        }
    }

    @Test("sigma in the family is SigmaClip, bit for bit")
    func sigmaIsSigmaClip() {
        let stack = PlantedStack(pixels: 300, frames: 17, noise: 0.02, seed: 43)
        for xs in stack.samples {
            let a = RejectionAlgorithm.named(.sigma).reject(xs)
            let b = SigmaClip.clip(xs)
            #expect(a.value == b.value && a.rejectedLow == b.rejectedLow && a.rejectedHigh == b.rejectedHigh)
        }
    }

    @Test("bad parameters are named")
    func invalidParameters() {
        #expect(RejectionAlgorithm.percentile(low: -0.1, high: 0.1).invalidReason != nil)
        #expect(RejectionAlgorithm.mad(kappaLow: 0, kappaHigh: 3).invalidReason != nil)
        #expect(RejectionAlgorithm.linearFit(kappaLow: 3, kappaHigh: .nan).invalidReason != nil)
        #expect(RejectionAlgorithm.gesd(outlierFraction: 1.5, significance: 0.05).invalidReason != nil)
        #expect(RejectionAlgorithm.gesd(outlierFraction: 0.3, significance: 0).invalidReason != nil)
        for algorithm in Self.algorithms { #expect(algorithm.invalidReason == nil) }
    }

    @Test("Student t quantiles match the tables to 1e-5 relative, for few and many degrees of freedom")
    func studentQuantiles() {
        // (p, ν, t) from the t distribution's tables (scipy.stats.t.ppf).
        let table: [(Double, Int, Double)] = [
            (0.975, 1, 12.706204736174707), (0.975, 2, 4.302652729749464),
            (0.975, 3, 3.1824463052837078), (0.995, 3, 5.840909309733355),
            (0.99999, 3, 47.92772837600671), (0.9995, 5, 6.868826625881276),
            (0.99999, 4, 23.332182700855984), (0.975, 10, 2.228138851986274),
            (0.99999, 10, 7.526954019343624), (0.995, 30, 2.7499956535672254),
            (0.99999, 30, 5.054032421448104), (0.025, 7, -2.3646242515927849),
        ]
        for (p, nu, t) in table {
            let q = StudentT.quantile(p, degreesOfFreedom: nu)
            #expect(abs(q / t - 1) < 1e-5, "t(\(p), \(nu)) = \(q), table \(t)")
        }
    }

    @Test("GESD finds exactly the planted outliers in Rosner's sense: 3 far ones among 40 normal samples, none in clean data")
    func gesdCounts() {
        var rng = TestRandom(seed: 44)
        var falseAlarms = 0
        for _ in 0..<500 {
            var xs: [Float] = (0..<40).map { _ in Float(0.5 + 0.02 * rng.gaussian()) }
            let clean = RejectionAlgorithm.named(.gesd).reject(xs)
            falseAlarms += clean.rejectedLow + clean.rejectedHigh > 0 ? 1 : 0
            xs[3] = 0.9; xs[17] = 0.05; xs[30] = 0.95
            let r = RejectionAlgorithm.named(.gesd).reject(xs)
            #expect(r.rejectedHigh >= 2 && r.rejectedLow >= 1)
        }
        // α = 0.05 is the chance of any false outlier in a clean sample.
        #expect(falseAlarms < 50, "\(falseAlarms) of 500 clean pixels had an outlier")
    }

    @Test("GESD's critical-value table gives the values it would compute, and the same rejections, at 5 to 300 samples")
    func gesdTable() {
        let table = GESDClip.CriticalValues(significance: 0.05, maxCount: 300)
        for k in [3, 4, 7, 40, 299, 300] {
            #expect(table.values[k] == GESDClip.criticalValue(count: k, significance: 0.05))
        }
        let algorithm = RejectionAlgorithm.named(.gesd)
        for frames in [5, 40, 300] {
            let stack = PlantedStack(pixels: 60, frames: frames, noise: 0.02, seed: 45)
            for xs in stack.samples {
                var v1 = xs, w1 = [Float](repeating: 1, count: xs.count)
                var v2 = xs, w2 = w1
                let a = v1.withUnsafeMutableBufferPointer { vb in
                    w1.withUnsafeMutableBufferPointer { wb in algorithm.reject(values: vb, weights: wb) }
                }
                let b = v2.withUnsafeMutableBufferPointer { vb in
                    w2.withUnsafeMutableBufferPointer { wb in algorithm.reject(values: vb, weights: wb, gesdTable: table) }
                }
                #expect(a.value == b.value && a.rejectedLow == b.rejectedLow && a.rejectedHigh == b.rejectedHigh)
            }
        }
    }
}
