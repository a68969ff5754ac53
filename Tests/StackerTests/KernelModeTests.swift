import Testing
@testable import Stacker
import TestSupport

@Suite("Mode kernel")
struct KernelModeTests {
    /// Shuffles `xs` in place with `rng` (Fisher–Yates), so sample order is random.
    static func shuffle<T>(_ xs: inout [T], _ rng: inout TestRandom) {
        guard xs.count > 1 else { return }
        for i in stride(from: xs.count - 1, to: 0, by: -1) { xs.swapAt(i, rng.int(in: 0...i)) }
    }

    @Test("background in 40 % of samples, three object levels in 20 % each: mode ≈ 0.3, median is not")
    func grayBackgroundIsLargestCluster() {
        var rng = TestRandom(seed: 20)
        var worst = 0.0
        var medianNearBackground = 0
        for _ in 0..<500 {
            var xs: [Float] = []
            for level in [(0.3, 8), (0.5, 4), (0.7, 4), (0.9, 4)] {
                for _ in 0..<level.1 { xs.append(Float(level.0 + 0.01 * rng.gaussian())) }
            }
            Self.shuffle(&xs, &rng)
            worst = max(worst, abs(Double(ModeCluster.mode(xs)) - 0.3))
            if abs(Median.of(xs) - 0.3) < 0.05 { medianNearBackground += 1 }
        }
        // The output is the mean of ~8 background samples of σ 0.01 (σ_mean 0.0035);
        // 0.015 is > 4 of those, while a wrong cluster would be ≥ 0.2 off.
        #expect(worst < 0.015)
        // The median sits in the 0.5 objects (ranks 9 and 10 of 20): never near 0.3.
        #expect(medianNearBackground == 0)
    }

    @Test("colour: objects of different colours (one as bright as the background) are removed")
    func colourClusters() {
        var rng = TestRandom(seed: 21)
        let background: [Double] = [0.3, 0.4, 0.5]
        // Object A has the background's luma (0.381) but another colour; luma-only
        // clustering could not separate it.
        let objects: [[Double]] = [[0.6, 0.25, 0.48], [0.8, 0.7, 0.2], [0.2, 0.7, 0.9]]
        var worst = 0.0
        for _ in 0..<300 {
            var samples: [[Float]] = []
            for _ in 0..<8 { samples.append(background.map { Float($0 + 0.01 * rng.gaussian()) }) }
            for o in objects {
                for _ in 0..<4 { samples.append(o.map { Float($0 + 0.01 * rng.gaussian()) }) }
            }
            Self.shuffle(&samples, &rng)
            let m = ModeCluster.mode(samples)
            #expect(m.count == 3)
            for c in 0..<3 { worst = max(worst, abs(Double(m[c]) - background[c])) }
        }
        // Same reasoning as the gray case: mean of ~8 samples of σ 0.01.
        #expect(worst < 0.015)
    }

    @Test("objects covering 60 % of frames in one colour each still lose to a 40 % background")
    func objectsCoverMostFrames() {
        // 4 background, 2+2+2 objects out of 10.
        let xs: [Float] = [0.30, 0.31, 0.29, 0.30, 0.60, 0.61, 0.80, 0.79, 0.10, 0.11]
        #expect(abs(ModeCluster.mode(xs) - 0.30) < 1e-6)
    }

    @Test("a tie between equal clusters goes to the one closer to the median")
    func tieGoesToMedian() {
        // 7 at 0.3, 7 at 0.6, 6 at 0.9: the median (ranks 9, 10) is 0.6.
        let xs = [Float](repeating: 0.3, count: 7) + [Float](repeating: 0.6, count: 7)
            + [Float](repeating: 0.9, count: 6)
        #expect(ModeCluster.mode(xs) == 0.6)
        // Mirrored: 6 at 0.1, 7 at 0.4, 7 at 0.7 → median 0.4.
        let ys = [Float](repeating: 0.7, count: 7) + [Float](repeating: 0.4, count: 7)
            + [Float](repeating: 0.1, count: 6)
        #expect(ModeCluster.mode(ys) == 0.4)
    }

    @Test("weights weight the cluster mean; edge cases")
    func weightsAndEdges() {
        // Cluster {0.30, 0.32} with weights 1 and 3 → 0.315; 0.9 is alone.
        let v = ModeCluster.mode([0.30, 0.32, 0.9], weights: [1, 3, 10])
        #expect(abs(v - 0.315) < 1e-6)
        #expect(ModeCluster.mode([Float]()) == 0)
        #expect(ModeCluster.mode([0.42]) == 0.42)
        #expect(ModeCluster.mode([Float](repeating: 0.25, count: 5)) == 0.25)
        // 3·√2·0.014 ≈ 0.0594, the default 0.06 comes from typical JPEG noise.
        #expect(abs(ModeCluster.tolerance(forNoiseSigma: 0.014) - 0.0594) < 1e-3)
        #expect(ModeCluster.tolerance(forNoiseSigma: 0) == ModeCluster.defaultTolerance)
        #expect(ModeCluster.tolerance(forNoiseSigma: 1) == 0.15)
    }
}

@Suite("Mode kernel, many samples")
struct KernelModeLargeTests {
    @Test("more than 64 samples (several mask words) give the same cluster as 64")
    func largeCounts() {
        var rng = TestRandom(seed: 22)
        // 100 samples: 40 background, 3 × 20 objects; and its first 64.
        var xs: [Float] = []
        for (level, count) in [(0.3, 40), (0.5, 20), (0.7, 20), (0.9, 20)] {
            for _ in 0..<count { xs.append(Float(level + 0.01 * rng.gaussian())) }
        }
        KernelModeTests.shuffle(&xs, &rng)
        let background = xs.filter { abs($0 - 0.3) < 0.06 }
        let expected = background.reduce(0.0) { $0 + Double($1) } / Double(background.count)
        #expect(abs(Double(ModeCluster.mode(xs)) - expected) < 1e-6)
        // 64 samples (one mask word) and the same plus a far outlier (65: two
        // words) must give the same cluster mean.
        let first64 = Array(xs.prefix(64))
        let with65 = first64 + [0.05]
        #expect(abs(ModeCluster.mode(first64) - ModeCluster.mode(with65)) < 1e-6)
    }

    /// The definition, pair by pair: each sample's cluster is the samples
    /// within τ in every channel; the largest wins; ties between different
    /// member sets go to the cluster mean closest (Chebyshev) to the
    /// per-channel median (`Median.of`),
    /// then to the lowest index; the output is the weighted mean.
    static func naiveMode(_ samples: [[Float]], weights: [Float], tolerance tau: Float) -> [Float] {
        let k = samples.count, c = samples[0].count
        let members = (0..<k).map { i in (0..<k).filter { j in (0..<c).allSatisfy { abs(samples[i][$0] - samples[j][$0]) <= tau } } }
        let best = members.map(\.count).max()!
        var candidates: [Int] = []
        for i in 0..<k where members[i].count == best && !candidates.contains(where: { members[$0] == members[i] }) {
            candidates.append(i)
        }
        var chosen = candidates[0]
        if candidates.count > 1 {
            var medians = [Float](repeating: 0, count: c)
            for ch in 0..<c {
                medians[ch] = Median.of(samples.map { $0[ch] })
            }
            var bestDistance = Float.infinity
            for i in candidates {
                var distance: Float = 0
                for ch in 0..<c {
                    let mean = members[i].reduce(Float(0)) { $0 + samples[$1][ch] } / Float(members[i].count)
                    distance = max(distance, abs(mean - medians[ch]))
                }
                if distance < bestDistance { bestDistance = distance; chosen = i }
            }
        }
        let m = members[chosen]
        let sumW = m.reduce(0.0) { $0 + Double(weights[$1]) }
        return (0..<c).map { ch in Float(m.reduce(0.0) { $0 + Double(weights[$1]) * Double(samples[$1][ch]) } / sumW) }
    }

    @Test("any sample count up to 300, 1 or 3 channels: the kernel gives the definition's cluster and mean",
          arguments: [1, 3])
    func matchesDefinition(channels: Int) {
        var rng = TestRandom(seed: UInt64(40 + channels))
        for k in [2, 7, 63, 64, 65, 127, 128, 129, 200, 300] {
            for trial in 0..<4 {
                // Three to five clusters of random sizes and spreads, some
                // overlapping, so ties and shared members occur.
                let centres = (0..<(3 + trial % 3)).map { _ in (0..<channels).map { _ in Float(rng.uniform()) } }
                var samples: [[Float]] = []
                for _ in 0..<k {
                    let centre = centres[Int(rng.uniform() * Double(centres.count)) % centres.count]
                    samples.append(centre.map { $0 + Float(0.03 * rng.gaussian()) })
                }
                let weights = (0..<k).map { _ in Float(0.5 + rng.uniform()) }
                let got = ModeCluster.mode(samples, weights: weights, tolerance: 0.06)
                let want = Self.naiveMode(samples, weights: weights, tolerance: 0.06)
                let error = zip(got, want).map { abs($0 - $1) }.max() ?? 0
                #expect(error < 1e-5, "k \(k), trial \(trial): \(got) vs \(want)")
            }
        }
    }
}
