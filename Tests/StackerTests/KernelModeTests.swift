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

    /// The definition, pair by pair: each candidate's cluster is the samples
    /// within τ in every channel; the largest wins; ties between different
    /// member sets go to the cluster mean closest (Chebyshev) to the
    /// per-channel median (`Median.of`),
    /// then to the lowest index; the output is the weighted mean.
    /// `candidates`: the candidate sample indices, in increasing order (nil: all).
    static func naiveMode(_ samples: [[Float]], weights: [Float], tolerance tau: Float,
                          candidates: [Int]? = nil) -> [Float] {
        let k = samples.count, c = samples[0].count
        let centres = candidates ?? Array(0..<k)
        let members = centres.map { i in (0..<k).filter { j in (0..<c).allSatisfy { abs(samples[i][$0] - samples[j][$0]) <= tau } } }
        let best = members.map(\.count).max()!
        var tied: [Int] = []
        for i in members.indices where members[i].count == best && !tied.contains(where: { members[$0] == members[i] }) {
            tied.append(i)
        }
        var chosen = tied[0]
        if tied.count > 1 {
            var medians = [Float](repeating: 0, count: c)
            for ch in 0..<c {
                medians[ch] = Median.of(samples.map { $0[ch] })
            }
            var bestDistance = Float.infinity
            for i in tied {
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

    /// The candidate indices of the definition past `candidateLimit`
    /// (written out here, not taken from the kernel): the middle of each of
    /// M equal runs of the sample order.
    static func strideCandidates(_ k: Int) -> [Int]? {
        let m = ModeCluster.candidateLimit
        return k <= m ? nil : (0..<m).map { (2 * $0 + 1) * k / (2 * m) }
    }

    /// Overlapping clusters of random sizes and spreads, so ties and shared members occur.
    static func clusteredSamples(_ k: Int, channels: Int, clusters: Int, _ rng: inout TestRandom) -> [[Float]] {
        let centres = (0..<clusters).map { _ in (0..<channels).map { _ in Float(rng.uniform()) } }
        return (0..<k).map { _ in
            let centre = centres[Int(rng.uniform() * Double(centres.count)) % centres.count]
            return centre.map { $0 + Float(0.03 * rng.gaussian()) }
        }
    }

    @Test("any sample count up to 300, 1 or 3 channels: the kernel gives the definition's cluster and mean",
          arguments: [1, 3])
    func matchesDefinition(channels: Int) {
        var rng = TestRandom(seed: UInt64(40 + channels))
        for k in [2, 7, 23, 24, 25, 63, 64, 65, 127, 128, 129, 200, 300] {
            for trial in 0..<4 {
                let samples = Self.clusteredSamples(k, channels: channels, clusters: 3 + trial % 3, &rng)
                let weights = (0..<k).map { _ in Float(0.5 + rng.uniform()) }
                let got = ModeCluster.mode(samples, weights: weights, tolerance: 0.06)
                let want = Self.naiveMode(samples, weights: weights, tolerance: 0.06,
                                          candidates: Self.strideCandidates(k))
                // Up to M samples the exact definition, bit for bit; past it
                // the same sums in the same order, so bit for bit as well.
                #expect(got == want, "k \(k), trial \(trial): \(got) vs \(want)")
            }
        }
    }

    @Test("the 16-lane candidates path with every sample a candidate is the exact path, bit for bit",
          arguments: [1, 3])
    func candidatesPathWithAllSamplesIsExact(channels: Int) {
        var rng = TestRandom(seed: UInt64(50 + channels))
        let scratch = ModeCluster.Scratch(capacity: 300, channels: channels)
        var mismatches = 0, tiedPixels = 0
        for k in [1, 2, 15, 16, 17, 24, 63, 64, 65, 200, 300] {
            for trial in 0..<6 {
                var samples = Self.clusteredSamples(k, channels: channels, clusters: 2 + trial % 4, &rng)
                if trial % 2 == 1 {
                    // Quantised to 8 bits: equal samples, equal member sets and ties.
                    samples = samples.map { $0.map { (max(0, min(1, $0)) * 20).rounded() / 20 } }
                }
                let flat = samples.flatMap { $0 }
                let weights = (0..<k).map { _ in Float(0.5 + rng.uniform()) }
                var exact = [Float](repeating: -1, count: channels), all = exact
                let exactMembers = ModeCluster.reduce(samples: flat, count: k, channels: channels, weights: weights,
                                                      tolerance: 0.06, output: &exact, scratch: scratch,
                                                      candidateLimit: .max)
                let ties = (0..<k).filter { scratch.counts[$0] == Int32(exactMembers) }.count
                if ties > 1 { tiedPixels += 1 }
                let allMembers = ModeCluster.reduceCandidates(samples: flat, count: k, channels: channels,
                                                              weights: weights, tolerance: 0.06, candidates: k,
                                                              output: &all, scratch: scratch)
                if exact != all || exactMembers != allMembers { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        // The quantised trials must exercise the tie-break.
        #expect(tiedPixels > 5)
    }
}

@Suite("Mode kernel, candidates past the limit")
struct KernelModeCandidateTests {
    /// `k` samples: a background cluster (level 0.3, 0.4, 0.5, σ 0.01) and
    /// `outliers` of them in `colours` object colours, each colour in one
    /// run of consecutive frames (a mover passing) or scattered.
    static func planted(_ k: Int, outliers: Int, colours: Int, runs: Bool, _ rng: inout TestRandom) -> [[Float]] {
        let background: [Float] = [0.3, 0.4, 0.5]
        let objects: [[Float]] = [[0.8, 0.2, 0.2], [0.2, 0.7, 0.9], [0.6, 0.6, 0.1]]
        var isObject = [Int](repeating: -1, count: k)
        if runs {
            // Colour i covers the run starting at a random frame, runs not overlapping.
            let each = outliers / colours
            var start = Int(rng.uniform() * Double(k - outliers))
            for i in 0..<colours {
                for f in 0..<(i == colours - 1 ? outliers - each * i : each) { isObject[start + f] = i }
                start += each
            }
        } else {
            var order = Array(0..<k)
            KernelModeTests.shuffle(&order, &rng)
            for (n, f) in order.prefix(outliers).enumerated() { isObject[f] = n % colours }
        }
        return isObject.map { o in (o < 0 ? background : objects[o]).map { $0 + Float(0.01 * rng.gaussian()) } }
    }

    @Test("past the limit, 25 to 1,000 samples with 10–45 % outliers: the candidates find the exact mode's cluster")
    func sameClusterAsExact() {
        var rng = TestRandom(seed: 60)
        let scratch = ModeCluster.Scratch(capacity: 1000, channels: 3)
        var worstGap: Float = 0, worstBackground: Float = 0, cases = 0
        for k in [ModeCluster.candidateLimit + 1, 100, 1000] {
            // At 1,000 samples the exact mode is slow in a debug build: the hardest share only.
            for share in k < 1000 ? [0.10, 0.30, 0.45] : [0.45] {
                for colours in [1, 3] {
                    for runs in [true, false] {
                        let samples = Self.planted(k, outliers: Int(share * Double(k)), colours: colours,
                                                   runs: runs, &rng)
                        let flat = samples.flatMap { $0 }
                        let weights = [Float](repeating: 1, count: k)
                        var exact = [Float](repeating: 0, count: 3), some = exact
                        let exactMembers = ModeCluster.reduce(samples: flat, count: k, channels: 3, weights: weights,
                                                              tolerance: 0.06, output: &exact, scratch: scratch,
                                                              candidateLimit: .max)
                        let members = ModeCluster.reduce(samples: flat, count: k, channels: 3, weights: weights,
                                                         tolerance: 0.06, output: &some, scratch: scratch)
                        // The background holds k − outliers samples; both must pick it whole.
                        #expect(members == exactMembers, "k \(k), \(share), \(colours) colours, runs \(runs)")
                        for ch in 0..<3 {
                            worstGap = max(worstGap, abs(some[ch] - exact[ch]))
                            worstBackground = max(worstBackground, abs(some[ch] - (0.3 + 0.1 * Float(ch))))
                        }
                        cases += 1
                    }
                }
            }
        }
        #expect(cases == 28)
        // Same member set → the same sums in the same order: identical.
        #expect(worstGap == 0)
        // A mean of ≥ 14 background samples of σ 0.01 (σ_mean ≤ 0.0027); an
        // object cluster would be ≥ 0.2 off.
        #expect(worstBackground < 0.012)
    }

    @Test("1,000 samples, a mover on 45 % of them in one run of frames: the background still wins")
    func moverInOneRun() {
        // 1,000 samples: frames 100…549 (45 %) a mover at 0.8, the rest the
        // background at 0.3, exact levels. Candidates at the stride: 45 %
        // of them on the mover, the background's 550 members win.
        let k = 1000
        let xs = (0..<k).map { (100..<550).contains($0) ? Float(0.8) : Float(0.3) }
        #expect(ModeCluster.mode(xs) == 0.3)
        let m = ModeCluster.candidateLimit
        let onMover = (0..<m).filter { (100..<550).contains((2 * $0 + 1) * k / (2 * m)) }.count
        #expect(onMover < m / 2 && onMover > 0)
    }
}
