import TestSupport
import Testing
import Registration
@testable import Stacker

/// The reductions past the sorting network (more than 64 frames) against
/// references computed on each pixel's covered samples alone.
@Suite("Robust kernels past 64 frames")
struct KernelLargeCountTests {
    /// A store of `n` one-channel frames with coverage gaps and ties, and
    /// each pixel's covered samples as the store reads them back.
    struct Case {
        let store: FrameStore
        let covered: [[Float]]
        let frames: Int

        /// `levels` > 0 draws samples from that many levels (many ties);
        /// 0 draws them uniformly; -1 from a normal distribution around 0.5
        /// (σ 0.02) with one sample in ten an outlier drawn uniformly. One sample in eight is 1 (full scale, which
        /// ties with the marker for uncovered samples). Rows 0 and 1 are
        /// fully covered; in row 2 pixel x is covered by the frames
        /// f < x·n / (w − 1), so counts run from 0 to n; row 5 is covered by
        /// none; rows 3 and 4 have one random run per frame and row.
        init(frames n: Int, depth: FrameStore.SampleDepth, levels: Int, seed: UInt64) throws {
            var rng = TestRandom(seed: seed)
            let w = 37, h = 6
            store = try FrameStore(width: w, height: h, channels: 1, frameCount: n, depth: depth,
                                   memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
            var covered = [[Float]](repeating: [], count: w * h)
            for f in 0..<n {
                var values = [Float](repeating: 0, count: w * h)
                var cover = [Float](repeating: 0, count: w * h)
                for y in 0..<h {
                    let start = y < 2 ? 0 : rng.int(in: 0...(w - 1))
                    let end = y < 2 ? w : start + rng.int(in: 0...(w - start))
                    for x in 0..<w {
                        let inRun = y == 2 ? f * (w - 1) < x * n : y != 5 && x >= start && x < end
                        if inRun { cover[y * w + x] = 1 }
                    }
                }
                for p in 0..<(w * h) {
                    let u = rng.uniform()
                    if levels < 0 {
                        values[p] = u < 0.1 ? Float(rng.uniform()) : Float(0.5 + 0.02 * rng.gaussian())
                    } else {
                        values[p] = u < 0.125 ? 1 : levels > 0 ? Float(rng.int(in: 0...(levels - 1))) / Float(levels)
                                                               : Float(rng.uniform())
                    }
                    if cover[p] > 0 {
                        covered[p].append(depth == .eight ? Float(UInt8.quantize(values[p])) * UInt8.scale
                                                          : FrameStore.dequantize(FrameStore.quantize(values[p])))
                    }
                }
                try store.store(frame: f, planes: [Plane(width: w, height: h, pixels: values)],
                                coverage: Plane(width: w, height: h, pixels: cover))
            }
            self.covered = covered
            frames = n
        }

        /// How many pixels of `image` differ from `SigmaClip.clip` of their
        /// covered samples, and at how many that clip rejects anything.
        func sigmaClipMismatches(_ image: Image, kappaLow: Float, kappaHigh: Float, maxIterations: Int)
            -> (wrong: Int, rejecting: Int) {
            var wrong = 0, rejecting = 0
            for (p, samples) in covered.enumerated() {
                let expected = SigmaClip.clip(samples, kappaLow: kappaLow, kappaHigh: kappaHigh, maxIterations: maxIterations)
                if image.planes[0].pixels[p] != expected.value { wrong += 1 }
                if expected.kept < samples.count { rejecting += 1 }
            }
            return (wrong, rejecting)
        }
    }

    static let depths: [FrameStore.SampleDepth] = [.eight, .sixteen]

    @Test("the median past 64 frames equals the sorted reference, ties, gaps and even counts included",
          arguments: depths)
    func medianMatchesReference(depth: FrameStore.SampleDepth) throws {
        for (i, n) in [65, 100, 201, 300].enumerated() {
            for levels in [0, 5, 300] {
                let c = try Case(frames: n, depth: depth, levels: levels, seed: UInt64(10 * i + levels))
                let ones = [Float](repeating: 1, count: n)
                let selected = try c.store.reduce(.median, weights: ones, threads: 2)
                let scalar = try c.store.reduce(.median, weights: ones, threads: 2, networkLimit: 0,
                                                scalarPastNetwork: true)
                var wrong = 0
                for (p, samples) in c.covered.enumerated()
                where selected.image.planes[0].pixels[p] != KernelMedianTests.reference(samples) {
                    wrong += 1
                }
                #expect(wrong == 0, "n = \(n), levels \(levels): \(wrong) pixels differ from the reference")
                #expect(selected.image == scalar.image, "n = \(n), levels \(levels)")
                #expect(selected.coverageCount == scalar.coverageCount)
                let counts = Set(c.covered.map(\.count))
                #expect(counts.contains(0) && counts.contains(n) && counts.contains { $0 % 2 == 0 && $0 > 0 })
            }
        }
    }

    @Test("sigma-clip past 64 frames equals the per-pixel kernel, ties, gaps, outliers and κ variants included",
          arguments: depths)
    func sigmaClipMatchesReference(depth: FrameStore.SampleDepth) throws {
        let kernels: [RobustKernel] = [.sigmaClip, .sigmaClip(kappaLow: 2, kappaHigh: 2.5, maxIterations: 5),
                                       .sigmaClip(kappaLow: 1, kappaHigh: 1, maxIterations: 10),
                                       .sigmaClip(kappaLow: 3, kappaHigh: 3, maxIterations: 0)]
        for (i, n) in [65, 100, 201].enumerated() {
            for levels in [-1, 0, 5, 300] {
                let c = try Case(frames: n, depth: depth, levels: levels, seed: UInt64(100 + 10 * i) &+ UInt64(bitPattern: Int64(levels)))
                let ones = [Float](repeating: 1, count: n)
                for kernel in kernels {
                    guard case .sigmaClip(let kl, let kh, let iterations) = kernel else { continue }
                    let selected = try c.store.reduce(kernel, weights: ones, threads: 2)
                    let scalar = try c.store.reduce(kernel, weights: ones, threads: 2, networkLimit: 0,
                                                    scalarPastNetwork: true)
                    let (wrong, rejecting) = c.sigmaClipMismatches(selected.image, kappaLow: kl, kappaHigh: kh,
                                                                   maxIterations: iterations)
                    #expect(wrong == 0, "n = \(n), levels \(levels), \(kernel): \(wrong) pixels differ")
                    #expect(selected.image == scalar.image, "n = \(n), levels \(levels), \(kernel)")
                    // With planted outliers the clipping is exercised, not only the mean.
                    if iterations > 0 && levels < 0 { #expect(rejecting > 0, "\(kernel) rejected nothing") }
                }
            }
        }
    }

    @Test("sigma-clip past 64 frames with unequal weights equals the scalar path")
    func weightedSigmaClipPastNetwork() throws {
        let c = try Case(frames: 80, depth: .sixteen, levels: -1, seed: 7)
        var rng = TestRandom(seed: 8)
        let weights = (0..<80).map { _ in Float(0.2 + rng.uniform()) }
        let reduced = try c.store.reduce(.sigmaClip, weights: weights, threads: 2)
        let scalar = try c.store.reduce(.sigmaClip, weights: weights, threads: 2, networkLimit: 0,
                                        scalarPastNetwork: true)
        #expect(reduced.image == scalar.image)
    }
}
