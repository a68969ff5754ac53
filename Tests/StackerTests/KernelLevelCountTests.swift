import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// Sigma-clip on level counts (an 8-bit store past the sorting network)
/// against the bisection path and the per-pixel kernel, and a mapped
/// store's `pwrite` rows against an in-memory store's bytes.
@Suite("Level-count sigma-clip and mapped-store writes")
struct KernelLevelCountTests {
    @Test("clipCounts gives clip's bits on random 8-bit sample sets of 1…300, ties, outliers and κ variants")
    func countsMatchSortedClip() {
        var rng = TestRandom(seed: 310)
        let kappas: [(Float, Float, Int)] = [(3, 3, 5), (2, 2.5, 5), (1, 1, 10), (0.5, 0.5, 3), (3, 3, 0)]
        var counts = [UInt16](repeating: 0, count: 256)
        var wrong = 0, rejecting = 0, sets = 0
        for trial in 0..<1500 {
            let k = trial < 300 ? trial % 300 + 1 : rng.int(in: 1...300)
            // Narrow noise around a level (many ties), a few outliers anywhere.
            let centre = rng.int(in: 0...255), spread = rng.int(in: 0...12)
            let levels = (0..<k).map { _ in
                rng.uniform() < 0.1 ? rng.int(in: 0...255) : min(255, max(0, centre + rng.int(in: -spread...spread)))
            }
            let values = levels.map { Float($0) * UInt8.scale }
            let (kl, kh, iterations) = kappas[trial % kappas.count]
            let expected = SigmaClip.clip(values, kappaLow: kl, kappaHigh: kh, maxIterations: iterations)
            for u in levels { counts[u] += 1 }
            let got = counts.withUnsafeBufferPointer {
                SigmaClip.clipCounts($0.baseAddress!, lowest: levels.min()!, highest: levels.max()!, total: k,
                                     scale: UInt8.scale, kappaLow: kl, kappaHigh: kh, maxIterations: iterations)
            }
            for u in levels { counts[u] = 0 }
            if got != expected.value { wrong += 1 }
            if expected.kept < k { rejecting += 1 }
            sets += 1
        }
        #expect(wrong == 0, "\(wrong) of \(sets) sets differ from SigmaClip.clip")
        // The sets exercise rejection, not only the mean.
        #expect(rejecting > sets / 4, "only \(rejecting) of \(sets) sets rejected anything")
    }

    @Test("an 8-bit store's sigma-clip by level counts equals bisection and the per-pixel kernel, 3…300 frames; a 16-bit store's is unchanged")
    func storeCountingMatchesSelecting() throws {
        let kernels: [RobustKernel] = [.sigmaClip, .sigmaClip(kappaLow: 1, kappaHigh: 1, maxIterations: 10)]
        let runs: [(FrameStore.SampleDepth, Int, Int)] = [3, 20, 65, 300].flatMap { n in [-1, 0, 5].map { (.eight, n, $0) } }
            + [(.sixteen, 100, -1)]
        for (i, (depth, n, levels)) in runs.enumerated() {
            let c = try KernelLargeCountTests.Case(frames: n, depth: depth, levels: levels, seed: 3100 + UInt64(i))
            let ones = [Float](repeating: 1, count: n)
            for kernel in kernels {
                guard case .sigmaClip(let kl, let kh, let iterations) = kernel else { continue }
                // networkLimit 0: every count takes the path past the network.
                let counted = try c.store.reduce(kernel, weights: ones, threads: 2, networkLimit: 0)
                let bisected = try c.store.reduce(kernel, weights: ones, threads: 2, networkLimit: 0,
                                                  countsLevels: false)
                #expect(counted.image == bisected.image, "\(depth) n = \(n), levels \(levels), \(kernel)")
                let (wrong, rejecting) = c.sigmaClipMismatches(counted.image, kappaLow: kl, kappaHigh: kh,
                                                               maxIterations: iterations)
                #expect(wrong == 0, "\(depth) n = \(n), levels \(levels), \(kernel): \(wrong) pixels differ")
                if levels < 0 { #expect(rejecting > 0, "\(kernel) rejected nothing at n = \(n)") }
            }
        }
    }

    @Test("a memory-mapped store written with pwrite holds the bytes of an in-memory one, 8- and 16-bit, and reduces to the same image")
    func mappedWritesMatchMemory() throws {
        let burst = FrameStoreTests.Burst(width: 41, height: 29, channels: 3, frames: 7, seed: 311)
        let transforms: [Transform] = [.translation(dx: 1.6, dy: -2.2), .identity,
                                       Transform(matrix: [1.01, 0.02, -1.5, -0.02, 1.01, 0.7, 0, 0, 1])]
        let dir = try TestFiles.temporaryFolder("levelcount-mapped")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for depth in KernelLargeCountTests.depths {
            func make(_ limit: Int) throws -> FrameStore {
                try FrameStore(width: 41, height: 29, channels: 3, frameCount: 7, depth: depth, memoryLimit: limit,
                               temporaryDirectory: dir)
            }
            let memory = try make(1 << 30), mapped = try make(0)
            #expect(!memory.isMemoryMapped && mapped.isMemoryMapped)
            for f in 0..<7 {
                let warper = try #require(RowWarper(burst.planes[f], by: transforms[f % 3], width: 41, height: 29))
                try memory.store(frame: f, warping: warper)
                try mapped.store(frame: f, warping: warper)
            }
            #expect(memcmp(memory.buffer.base, mapped.buffer.base, memory.byteCount) == 0, "\(depth)")
            let ones = [Float](repeating: 1, count: 7)
            for kernel in [RobustKernel.median, .sigmaClip] {
                #expect(try memory.reduce(kernel, weights: ones, threads: 2).image
                        == mapped.reduce(kernel, weights: ones, threads: 2).image, "\(depth) \(kernel)")
            }
        }
    }
}
