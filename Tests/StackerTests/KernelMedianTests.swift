import Testing
import Registration
@testable import Stacker
import TestSupport

@Suite("Median kernel")
struct KernelMedianTests {
    /// The reference: sort, then the middle one or the mean of the two middle ones
    /// (the same `0.5 * (a + b)` formula, so equality is exact).
    static func reference(_ xs: [Float]) -> Float {
        let s = xs.sorted()
        guard !s.isEmpty else { return 0 }
        return 0.5 * (s[(s.count - 1) / 2] + s[s.count / 2])
    }

    @Test("median equals the sorted reference for every count 1…64, odd and even, with ties")
    func medianMatchesSortedReference() {
        var rng = TestRandom(seed: 1)
        for n in 1...64 {
            for trial in 0..<50 {
                // Every third trial draws from few levels, so ties are common.
                let xs: [Float] = (0..<n).map { _ in
                    trial % 3 == 0 ? Float(rng.int(in: 0...4)) / 4 : Float(rng.uniform())
                }
                #expect(Median.of(xs) == Self.reference(xs), "n = \(n), trial \(trial)")
            }
        }
        #expect(Median.of([]) == 0)
    }

    @Test("median of large counts (quickselect path) equals the sorted reference")
    func medianLargeCounts() {
        var rng = TestRandom(seed: 2)
        for n in [65, 100, 257, 1000, 1001] {
            let xs: [Float] = (0..<n).map { _ in Float(rng.uniform()) }
            #expect(Median.of(xs) == Self.reference(xs), "n = \(n)")
        }
    }

    @Test("Batcher network sorts every 0–1 input for n ≤ 14 (0–1 principle) and random inputs to 64")
    func sortingNetworkSorts() {
        for n in 1...14 {
            let net = SortingNetwork(count: n)
            let v = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: n)
            defer { v.deallocate() }
            // 8 bit patterns per network run, one per lane.
            var pattern = 0
            while pattern < (1 << n) {
                for i in 0..<n {
                    var lane = SIMD8<Float>(repeating: 0)
                    for l in 0..<8 { lane[l] = ((pattern + l) >> i) & 1 == 1 ? 1 : 0 }
                    v[i] = lane
                }
                net.sort(v)
                for l in 0..<8 {
                    for i in 1..<max(n, 1) where v[i - 1][l] > v[i][l] {
                        Issue.record("n = \(n), pattern \(pattern + l) not sorted")
                    }
                }
                pattern += 8
            }
        }
        var rng = TestRandom(seed: 3)
        for n in 15...64 {
            let net = SortingNetwork(count: n)
            let v = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: n)
            defer { v.deallocate() }
            var columns = [[Float]](repeating: [], count: 8)
            for i in 0..<n {
                var lane = SIMD8<Float>(repeating: 0)
                for l in 0..<8 { lane[l] = Float(rng.uniform()); columns[l].append(lane[l]) }
                v[i] = lane
            }
            net.sort(v)
            for l in 0..<8 {
                #expect((0..<n).map { v[$0][l] } == columns[l].sorted(), "n = \(n), lane \(l)")
            }
        }
        #expect(SortingNetwork(count: 32).comparatorCount == 191)
    }

    @Test("network with its written-out groups of 8 and 16 sorts every 0–1 input of 8…20 integer lanes (0–1 principle)")
    func sortingNetworkGroupsSortAllZeroOnePatterns() {
        for n in 8...20 {
            let net = SortingNetwork(count: n)
            let v = UnsafeMutablePointer<SIMD16<UInt16>>.allocate(capacity: n)
            defer { v.deallocate() }
            // 16 bit patterns per network run, one per lane.
            var pattern = 0
            var unsorted = 0
            while pattern < (1 << n) {
                for i in 0..<n {
                    var lane = SIMD16<UInt16>(repeating: 0)
                    for l in 0..<16 { lane[l] = ((pattern + l) >> i) & 1 == 1 ? 1 : 0 }
                    v[i] = lane
                }
                net.sort(v)
                for l in 0..<16 {
                    for i in 1..<n where v[i - 1][l] > v[i][l] { unsorted += 1 }
                }
                pattern += 16
            }
            #expect(unsorted == 0, "n = \(n): \(unsorted) out-of-order neighbours")
        }
    }

    @Test("store median equals the sorted reference of covered samples for counts 0…64 (SIMD and scalar paths)",
          arguments: [FrameStore.SampleDepth.eight, .sixteen])
    func storeMedianWithCoverageGaps(depth: FrameStore.SampleDepth) throws {
        var rng = TestRandom(seed: 4)
        let w = 29, h = 7, n = 64
        let store = try FrameStore(width: w, height: h, channels: 1, frameCount: n, depth: depth,
                                   memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
        // Stored value and read-back at this depth.
        func stored(_ v: Float) -> Float {
            depth == .eight ? Float(UInt8.quantize(v)) * UInt8.scale : FrameStore.dequantize(FrameStore.quantize(v))
        }
        // Each frame covers one run per row (as a warped frame does). In rows
        // 0…2 pixel (x, y) is covered by frames 0..<k with k = min(64, x + 29y),
        // so counts pass through every value 0…64 (frame f covers the run of
        // x with k > f); the other rows have random runs.
        var cover = [[Float]](repeating: [Float](repeating: 0, count: w * h), count: n)
        var values = [[Float]](repeating: [Float](repeating: 0, count: w * h), count: n)
        for f in 0..<n {
            for y in 0..<h {
                if y < 3 {
                    for x in 0..<w where min(64, x + 29 * y) > f { cover[f][y * w + x] = 1 }
                } else {
                    let start = rng.int(in: 0...(w - 1))
                    for x in start..<(start + rng.int(in: 0...(w - start))) { cover[f][y * w + x] = 1 }
                }
            }
        }
        var counts = Set<Int>()
        for p in 0..<(w * h) {
            counts.insert((0..<n).filter { cover[$0][p] > 0 }.count)
            // One sample in eight is full scale: covered samples that tie with
            // the integer median's marker for uncovered ones.
            for f in 0..<n { values[f][p] = rng.uniform() < 0.125 ? 1 : Float(rng.uniform()) }
        }
        for f in 0..<n {
            try store.store(frame: f, planes: [Plane(width: w, height: h, pixels: values[f])],
                            coverage: Plane(width: w, height: h, pixels: cover[f]))
        }
        let simd = try store.reduce(.median, weights: [Float](repeating: 1, count: n), threads: 2)
        let scalar = try store.reduce(.median, weights: [Float](repeating: 1, count: n), threads: 2,
                                      networkLimit: 0)
        var mismatches = 0
        for p in 0..<(w * h) {
            let covered = (0..<n).filter { cover[$0][p] > 0.5 }
                .map { stored(values[$0][p]) }
            let expected = Self.reference(covered)
            if simd.image.planes[0].pixels[p] != expected || scalar.image.planes[0].pixels[p] != expected {
                mismatches += 1
            }
            #expect(simd.coverageCount.pixels[p] == Float(covered.count))
        }
        #expect(mismatches == 0)
        #expect(simd.image == scalar.image)
        // Both odd and even counts, empty pixels and deep ones are exercised.
        #expect(counts.isSuperset(of: 0...64), "counts \(counts.sorted())")
    }

    /// A store of up to 32 frames sorts the pixels every frame covers with
    /// a network unrolled for each count, 32 at a time as bytes (8-bit) or
    /// 16 (16-bit), and the others 16 at a time, as past 32 frames: rows
    /// fully covered, rows whose runs end inside a group, and a row's tail
    /// shorter than a group must all give the sorted reference's bits.
    @Test("median over groups of fully covered pixels and the 16-pixel groups around them: the reference's bits",
          arguments: [1, 2, 3, 19, 20, 32, 33], [FrameStore.SampleDepth.eight, .sixteen])
    func medianOfCoveredGroups(frames n: Int, depth: FrameStore.SampleDepth) throws {
        var rng = TestRandom(seed: 32 + UInt64(n))
        let w = 101, h = 6, c = 2
        let store = try FrameStore(width: w, height: h, channels: c, frameCount: n, depth: depth,
                                   memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
        // Rows 0–2 are covered by every frame; in rows 3–5 frame f's run ends
        // at x = 101 − 3f (inside a group of 32), or starts at 5 in row 5.
        func covers(_ f: Int, _ x: Int, _ y: Int) -> Bool {
            switch y {
            case 0...2: return true
            case 3, 4: return x < w - 3 * f
            default: return x >= 5
            }
        }
        var values = [[[Float]]](repeating: [[Float]](repeating: [Float](repeating: 0, count: w * h), count: c), count: n)
        for f in 0..<n {
            for ch in 0..<c {
                for p in 0..<(w * h) {
                    let r = rng.uniform()
                    values[f][ch][p] = r < 0.1 ? 1 : r < 0.2 ? 0 : Float(rng.uniform())
                }
            }
            let cover = Plane(width: w, height: h, pixels: (0..<(w * h)).map { covers(f, $0 % w, $0 / w) ? 1 : 0 })
            try store.store(frame: f, planes: values[f].map { Plane(width: w, height: h, pixels: $0) }, coverage: cover)
        }
        let result = try store.reduce(.median, weights: [Float](repeating: 1, count: n), threads: 2)
        var mismatches = 0
        for ch in 0..<c {
            for p in 0..<(w * h) {
                let covered = (0..<n).filter { covers($0, p % w, p / w) }
                    .map { depth == .eight ? Float(UInt8.quantize(values[$0][ch][p])) * UInt8.scale
                                           : FrameStore.dequantize(FrameStore.quantize(values[$0][ch][p])) }
                if result.image.planes[ch].pixels[p] != Self.reference(covered) { mismatches += 1 }
                if ch == 0 { #expect(result.coverageCount.pixels[p] == Float(covered.count)) }
            }
        }
        #expect(mismatches == 0)
    }
}
