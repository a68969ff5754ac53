import Dispatch
import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

@Suite("Frame store")
struct FrameStoreTests {
    /// Random frames (values 0…1 with a few bright "object" samples) and
    /// coverage as a warped frame has it, one run per row: shifted-frame
    /// borders, ragged row ends, and a corner no frame covers.
    struct Burst {
        let width: Int, height: Int, channels: Int, frames: Int
        var planes: [[Plane]] = []
        var coverage: [Plane] = []

        init(width: Int, height: Int, channels: Int, frames: Int, seed: UInt64) {
            self.width = width; self.height = height; self.channels = channels; self.frames = frames
            var rng = TestRandom(seed: seed)
            for f in 0..<frames {
                var ps: [Plane] = []
                for c in 0..<channels {
                    var p = Plane(width: width, height: height)
                    for i in 0..<p.count {
                        let base = 0.2 + 0.1 * Double(c) + 0.02 * rng.gaussian()
                        p.pixels[i] = Float(rng.uniform() < 0.15 ? 0.9 + 0.05 * rng.uniform() : base)
                    }
                    ps.append(p)
                }
                planes.append(ps)
                var cov = Plane(width: width, height: height, repeating: 1)
                let shift = f % 5
                for y in 0..<height {
                    let start = max(shift, y < 2 ? 2 : 0) + rng.int(in: 0...2)
                    let end = width - rng.int(in: 0...2)
                    for x in 0..<width {
                        let border = x < start || x >= end || y >= height - shift
                        if border { cov[x, y] = rng.uniform() < 0.5 ? 0 : 0.3 }
                    }
                }
                coverage.append(cov)
            }
        }

        func fill(_ store: FrameStore) throws {
            for f in 0..<frames { try store.store(frame: f, planes: planes[f], coverage: coverage[f]) }
        }

        /// Dequantised covered samples of pixel `p`, channel `c`, in frame order,
        /// with their frame weights.
        func covered(_ p: Int, _ c: Int, _ weights: [Float]) -> (values: [Float], weights: [Float]) {
            var v: [Float] = [], w: [Float] = []
            for f in 0..<frames where coverage[f].pixels[p] > 0.5 {
                v.append(FrameStore.dequantize(FrameStore.quantize(planes[f][c].pixels[p])))
                w.append(weights[f])
            }
            return (v, w)
        }
    }

    static let kernels: [RobustKernel] = [.median, .mode, .sigmaClip,
                                          .sigmaClip(kappaLow: 2, kappaHigh: 2.5, maxIterations: 3)]

    @Test("in-memory and memory-mapped stores reduce bit-identically; no temporary file is left")
    func memoryVersusMapped() throws {
        let burst = Burst(width: 37, height: 23, channels: 3, frames: 9, seed: 40)
        let dir = try TestFiles.temporaryFolder("framestore-mapped")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let weights: [Float] = (0..<9).map { 0.5 + Float($0) * 0.1 }
        let memory = try FrameStore(width: 37, height: 23, channels: 3, frameCount: 9,
                                    memoryLimit: 1 << 30, temporaryDirectory: dir)
        #expect(!memory.isMemoryMapped && memory.temporaryFilePath == nil)
        try burst.fill(memory)
        var path: String?
        do {
            let mapped = try FrameStore(width: 37, height: 23, channels: 3, frameCount: 9,
                                        memoryLimit: 1, temporaryDirectory: dir)
            #expect(mapped.isMemoryMapped)
            path = mapped.temporaryFilePath
            #expect(path?.hasPrefix(dir) == true)
            try burst.fill(mapped)
            // 6 bytes of samples per pixel and frame, 8 per row and frame for its covered run.
            #expect(mapped.byteCount == (37 * 23 * 9 * 6 + 7) / 8 * 8 + 23 * 9 * 8)
            for kernel in Self.kernels {
                let a = try memory.reduce(kernel, weights: weights, threads: 2)
                let b = try mapped.reduce(kernel, weights: weights, threads: 2)
                #expect(a.image == b.image, "\(kernel)")
                #expect(a.coverageCount == b.coverageCount, "\(kernel)")
            }
        }
        // The mapped store is released: neither its file nor any other is left.
        if let path { #expect(!FileManager.default.fileExists(atPath: path)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test("removeAll empties an in-memory and a memory-mapped store: no frame stored, every pixel uncovered; it can be filled again")
    func removeAllEmpties() throws {
        let burst = Burst(width: 37, height: 23, channels: 3, frames: 5, seed: 44)
        let dir = try TestFiles.temporaryFolder("framestore-removeall")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let weights = [Float](repeating: 1, count: 5)
        for limit in [1 << 30, 1] {
            let store = try FrameStore(width: 37, height: 23, channels: 3, frameCount: 5,
                                       memoryLimit: limit, temporaryDirectory: dir)
            #expect(store.isMemoryMapped == (limit == 1))
            try burst.fill(store)
            let full = try store.reduce(.median, weights: weights, threads: 2)
            store.removeAll()
            #expect(store.storedFrameCount == 0)
            let empty = try store.reduce(.median, weights: weights, threads: 2)
            #expect(empty.coverageCount.pixels.allSatisfy { $0 == 0 })
            #expect(empty.image.planes.allSatisfy { $0.pixels.allSatisfy { $0 == 0 } })
            try burst.fill(store)
            #expect(try store.reduce(.median, weights: weights, threads: 2).image == full.image)
        }
    }

    @Test("reduce with 1, 2 and 3 threads gives identical output")
    func threadCountIndependent() throws {
        let burst = Burst(width: 41, height: 50, channels: 3, frames: 7, seed: 41)
        let store = try FrameStore(width: 41, height: 50, channels: 3, frameCount: 7,
                                   memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
        try burst.fill(store)
        let weights: [Float] = [1, 2, 1, 0.5, 1, 3, 1]
        for kernel in Self.kernels {
            let one = try store.reduce(kernel, weights: weights, threads: 1)
            for t in [2, 3] {
                let many = try store.reduce(kernel, weights: weights, threads: t)
                #expect(one.image == many.image, "\(kernel), \(t) threads")
                #expect(one.coverageCount == many.coverageCount)
            }
        }
    }

    @Test("without coverage counts the image is the same, on the SIMD and the scalar paths, 8- and 16-bit")
    func imageOnly() throws {
        let burst = Burst(width: 41, height: 50, channels: 3, frames: 7, seed: 43)
        for depth in [FrameStore.SampleDepth.sixteen, .eight] {
            let store = try FrameStore(width: 41, height: 50, channels: 3, frameCount: 7, depth: depth,
                                       memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
            try burst.fill(store)
            let weights: [Float] = [1, 2, 1, 0.5, 1, 3, 1]
            for kernel in Self.kernels {
                let imageOnly = try store.reduceImage(kernel, weights: weights, threads: 2)
                #expect(imageOnly == (try store.reduce(kernel, weights: weights, threads: 2).image), "\(kernel)")
                let scalar = try store.reduce(kernel, weights: weights, threads: 2, networkLimit: 0, counts: false)
                let scalarWithCounts = try store.reduce(kernel, weights: weights, threads: 2, networkLimit: 0)
                #expect(scalar.image == scalarWithCounts.image)
                #expect(scalar.coverageCount.count == 0)
            }
        }
    }

    @Test("store reduction equals the pure per-pixel kernels on the stored samples; gaps give 0")
    func matchesPureKernels() throws {
        let w = 19, h = 11, c = 3, n = 12
        let burst = Burst(width: w, height: h, channels: c, frames: n, seed: 42)
        let store = try FrameStore(width: w, height: h, channels: c, frameCount: n,
                                   memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
        try burst.fill(store)
        var rng = TestRandom(seed: 43)
        let weights: [Float] = (0..<n).map { _ in Float(0.2 + rng.uniform()) }
        let clip = try store.reduce(.sigmaClip, weights: weights, threads: 2)
        let clipScalar = try store.reduce(.sigmaClip, weights: weights, threads: 2, networkLimit: 0)
        let mode = try store.reduce(.mode, weights: weights, threads: 2)
        var worstClip: Float = 0, worstMode: Float = 0, uncovered = 0
        for p in 0..<(w * h) {
            let k = burst.covered(p, 0, weights).values.count
            #expect(clip.coverageCount.pixels[p] == Float(k))
            #expect(mode.coverageCount.pixels[p] == Float(k))
            if k == 0 {
                uncovered += 1
                for ch in 0..<c { #expect(clip.image.planes[ch].pixels[p] == 0 && mode.image.planes[ch].pixels[p] == 0) }
                continue
            }
            var samples = [[Float]](repeating: [], count: k)
            for ch in 0..<c {
                let s = burst.covered(p, ch, weights)
                let expected = SigmaClip.clip(s.values, weights: s.weights).value
                worstClip = max(worstClip, abs(clip.image.planes[ch].pixels[p] - expected),
                                abs(clipScalar.image.planes[ch].pixels[p] - expected))
                for i in 0..<k { samples[i].append(s.values[i]) }
            }
            let m = ModeCluster.mode(samples, weights: burst.covered(p, 0, weights).weights)
            for ch in 0..<c { worstMode = max(worstMode, abs(mode.image.planes[ch].pixels[p] - m[ch])) }
        }
        // The same samples and sums; only the order of summing equal values with
        // different weights may differ (network vs Shell sort): Float rounding, < 1e-6.
        #expect(worstClip < 1e-6)
        // Mode walks the samples in frame order in both: exact.
        #expect(worstMode == 0)
        #expect(uncovered >= 4)  // the 2×2 corner no frame covers

        // Equal weights take the values-only sort: the same as the scalar path.
        let ones = [Float](repeating: 1, count: n)
        let equal = try store.reduce(.sigmaClip, weights: ones, threads: 2)
        let equalScalar = try store.reduce(.sigmaClip, weights: ones, threads: 1, networkLimit: 0)
        #expect(equal.image == equalScalar.image)
    }

    @Test("frames stored from several threads at once equal frames stored in order; unstored frames cover nothing")
    func concurrentStores() throws {
        let burst = Burst(width: 30, height: 20, channels: 1, frames: 8, seed: 44)
        let serial = try FrameStore(width: 30, height: 20, channels: 1, frameCount: 8,
                                    memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
        try burst.fill(serial)
        let parallel = try FrameStore(width: 30, height: 20, channels: 1, frameCount: 8,
                                      memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
        DispatchQueue.concurrentPerform(iterations: 8) { f in
            try? parallel.store(frame: 7 - f, planes: burst.planes[7 - f], coverage: burst.coverage[7 - f])
        }
        #expect(parallel.storedFrameCount == 8)
        let ones = [Float](repeating: 1, count: 8)
        #expect(try serial.reduce(.median, weights: ones, threads: 2).image
                == parallel.reduce(.median, weights: ones, threads: 2).image)

        let partial = try FrameStore(width: 30, height: 20, channels: 1, frameCount: 8,
                                     memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
        try partial.store(frame: 3, planes: burst.planes[3], coverage: burst.coverage[3])
        let r = try partial.reduce(.median, weights: ones, threads: 1)
        for p in 0..<600 {
            let covered = burst.coverage[3].pixels[p] > 0.5
            #expect(r.coverageCount.pixels[p] == (covered ? 1 : 0))
            let expected = covered ? FrameStore.dequantize(FrameStore.quantize(burst.planes[3][0].pixels[p])) : 0
            #expect(r.image.planes[0].pixels[p] == expected)
        }
    }

    @Test("storing a frame while warping it writes the bytes of storing Warper.warp's output")
    func warpingStoreMatchesWarpThenStore() throws {
        let burst = Burst(width: 53, height: 37, channels: 3, frames: 3, seed: 46)
        let transforms: [Transform] = [.translation(dx: 1.6, dy: -2.2), .identity,
                                       Transform(matrix: [1.01, 0.02, -1.5, -0.02, 1.01, 0.7, 0, 0, 1])]
        let gains: [[(gain: Float, offset: Float)]] = [[(1.05, -0.01), (1, 0), (0.95, 0.02)], [], []]
        func make() throws -> FrameStore {
            try FrameStore(width: 53, height: 37, channels: 3, frameCount: 3, memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
        }
        let whole = try make(), banded = try make()
        for f in 0..<3 {
            let warped = Warper.warp(burst.planes[f], by: transforms[f], width: 53, height: 37)
            var planes = warped.planes
            Normalization.apply(gains[f], to: &planes)
            try whole.store(frame: f, planes: planes, coverage: warped.coverage)
            try banded.store(frame: f, warping: try #require(RowWarper(burst.planes[f], by: transforms[f], width: 53, height: 37)),
                             gains: gains[f])
        }
        #expect(memcmp(whole.buffer.base, banded.buffer.base, whole.byteCount) == 0)
        #expect(banded.storedFrameCount == 3)
        let wrongSize = try #require(RowWarper(burst.planes[0], by: .identity, width: 52, height: 37))
        #expect(throws: StackerError.self) { try banded.store(frame: 0, warping: wrongSize) }
    }

    @Test("16-bit quantisation: error ≤ half a step, clamped to 0…1, NaN → 0")
    func quantisation() {
        var rng = TestRandom(seed: 45)
        var worst: Float = 0
        for _ in 0..<10000 {
            let v = Float(rng.uniform())
            worst = max(worst, abs(FrameStore.dequantize(FrameStore.quantize(v)) - v))
        }
        // Half a step is 0.5/65535 = 7.63e-6; Float rounding of v adds < 1e-7.
        #expect(worst <= 0.5 / 65535 + 1e-7)
        #expect(FrameStore.quantize(1) == 65535 && FrameStore.quantize(1.5) == 65535)
        #expect(FrameStore.quantize(-0.2) == 0 && FrameStore.quantize(.nan) == 0)
        #expect(FrameStore.dequantize(65535) == 1)
    }

    @Test("8-bit quantisation: the SIMD row path equals the scalar one, error ≤ half a step, clamped, NaN → 0")
    func quantisation8() {
        var rng = TestRandom(seed: 47)
        // Random values, values outside 0…1, NaN and infinities, and exact
        // half steps (k + 0.5)/255, which round up.
        var values: [Float] = (0..<1000).map { _ in Float(rng.uniform() * 1.4 - 0.2) }
        values += [.nan, .infinity, -.infinity, 0, 1, -0, 0.5 / 255, 1.5 / 255, 254.5 / 255]
        values += (0..<255).map { (Float($0) + 0.5) / 255 }
        for depth in [FrameStore.SampleDepth.eight, .sixteen] {
            for count in [values.count, 13, 8, 7] {  // whole vectors and a scalar tail
                let scalar: [UInt16] = values.prefix(count).map {
                    depth == .eight ? UInt16(UInt8.quantize($0)) : UInt16.quantize($0)
                }
                var simd = [UInt16](repeating: 7, count: count)
                if depth == .eight {
                    var bytes = [UInt8](repeating: 7, count: count)
                    values.withUnsafeBufferPointer { UInt8.quantize($0.baseAddress!, into: &bytes, count: count) }
                    simd = bytes.map(UInt16.init)
                } else {
                    values.withUnsafeBufferPointer { UInt16.quantize($0.baseAddress!, into: &simd, count: count) }
                }
                #expect(simd == scalar, "\(depth), \(count) values")
            }
        }
        var worst: Float = 0
        for v in values where v >= 0 && v <= 1 { worst = max(worst, abs(Float(UInt8.quantize(v)) / 255 - v)) }
        #expect(worst <= 0.5 / 255 + 1e-7)
        #expect(UInt8.quantize(.nan) == 0 && UInt8.quantize(-0.1) == 0 && UInt8.quantize(2) == 255)
        #expect(UInt8.quantize(0.5 / 255) == 1)
    }

    @Test("quantising with a gain and offset equals Normalization.apply then quantising, bit for bit, at every depth")
    func quantisationNormalising() {
        var rng = TestRandom(seed: 48)
        var values: [Float] = (0..<997).map { _ in Float(rng.uniform() * 1.4 - 0.2) }
        values += [.nan, .infinity, -.infinity, 0, 1, -0] + (0..<255).map { (Float($0) + 0.5) / 255 }
        let coefficients: [(gain: Float, offset: Float)] = [(1.0173, -0.0031), (0.98, 0.004), (1, 0.5 / 255)]
        for k in coefficients {
            var normalised = values
            normalised.withUnsafeMutableBufferPointer { Normalization.apply([k], to: [$0.baseAddress!], count: $0.count) }
            var bytes = [UInt8](repeating: 7, count: values.count), expectedBytes = bytes
            var shorts = [UInt16](repeating: 7, count: values.count), expectedShorts = shorts
            var floats = [Float](repeating: 7, count: values.count), expectedFloats = floats
            values.withUnsafeBufferPointer { v in
                UInt8.store(v.baseAddress!, into: &bytes, count: v.count, normalising: k)
                UInt16.store(v.baseAddress!, into: &shorts, count: v.count, normalising: k)
                Float.store(v.baseAddress!, into: &floats, count: v.count, normalising: k)
            }
            normalised.withUnsafeBufferPointer { v in
                UInt8.quantize(v.baseAddress!, into: &expectedBytes, count: v.count)
                UInt16.quantize(v.baseAddress!, into: &expectedShorts, count: v.count)
                Float.store(v.baseAddress!, into: &expectedFloats, count: v.count, normalising: nil)
            }
            #expect(bytes == expectedBytes && shorts == expectedShorts, "gain \(k.gain), offset \(k.offset)")
            #expect(floats.map(\.bitPattern) == expectedFloats.map(\.bitPattern))
            #expect(zip(normalised, expectedBytes).allSatisfy { $1 == UInt8.quantize($0) })
        }
    }

    @Test("an 8-bit store takes 3 bytes per RGB pixel and frame, and reduces like the per-pixel kernels")
    func eightBitStore() throws {
        let w = 23, h = 13, c = 3, n = 9
        let burst = Burst(width: w, height: h, channels: c, frames: n, seed: 48)
        let store = try FrameStore(width: w, height: h, channels: c, frameCount: n, depth: .eight,
                                   memoryLimit: 1 << 30, temporaryDirectory: "/tmp")
        #expect(store.byteCount == (w * h * n * 3 + 7) / 8 * 8 + h * n * 8)
        try burst.fill(store)
        let weights = [Float](repeating: 1, count: n)
        let median = try store.reduce(.median, weights: weights, threads: 2)
        let clip = try store.reduce(.sigmaClip, weights: weights, threads: 2)
        #expect(median.image == (try store.reduce(.median, weights: weights, threads: 1, networkLimit: 0)).image)
        #expect(clip.image == (try store.reduce(.sigmaClip, weights: weights, threads: 1, networkLimit: 0)).image)
        var worst: Float = 0
        for p in 0..<(w * h) {
            for ch in 0..<c {
                let v = (0..<n).filter { burst.coverage[$0].pixels[p] > 0.5 }
                    .map { Float(UInt8.quantize(burst.planes[$0][ch].pixels[p])) / 255 }
                worst = max(worst, abs(median.image.planes[ch].pixels[p] - Median.of(v)))
            }
        }
        // The same formula on the same values; /255 and ·(1/255) differ by an ulp.
        #expect(worst < 1e-6)
    }

    @Test("a row covered in several runs keeps its longest; an empty row covers nothing")
    func coveredRuns() throws {
        func run(_ row: [Float]) -> [Int32] {
            let r = row.withUnsafeBufferPointer { FrameStore.coveredRun($0.baseAddress!, count: row.count) }
            return [r.x, r.y]
        }
        #expect(run([0, 1, 1, 0.4, 1, 1, 1, 0]) == [4, 7])
        #expect(run([1, 1, 0, 1]) == [0, 2])
        #expect(run([0.5, 0, 0.2]) == [0, 0])
        #expect(run([1, 0.6, 0.51]) == [0, 3])
        // Through the store: the shorter run's samples are left out.
        let store = try FrameStore(width: 8, height: 1, channels: 1, frameCount: 2,
                                   memoryLimit: 1 << 20, temporaryDirectory: "/tmp")
        let mask = Plane(width: 8, height: 1, pixels: [0, 1, 1, 0, 1, 1, 1, 0])
        try store.store(frame: 0, planes: [Plane(width: 8, height: 1, repeating: 0.25)], coverage: mask)
        let r = try store.reduce(.median, weights: [1, 1], threads: 1)
        #expect(r.coverageCount.pixels == [0, 0, 0, 0, 1, 1, 1, 0])
        let v = FrameStore.dequantize(FrameStore.quantize(0.25))
        #expect(r.image.planes[0].pixels == [0, 0, 0, 0, v, v, v, 0])
    }

    @Test("bad sizes, indices, weights and kernel parameters throw invalidInput")
    func invalidInput() throws {
        #expect(throws: StackerError.self) {
            try FrameStore(width: 0, height: 5, channels: 1, frameCount: 2, memoryLimit: 1 << 20, temporaryDirectory: "/tmp")
        }
        #expect(throws: StackerError.self) {
            try FrameStore(width: Int.max / 2, height: 4, channels: 3, frameCount: 8, memoryLimit: 1 << 20, temporaryDirectory: "/tmp")
        }
        let store = try FrameStore(width: 4, height: 3, channels: 3, frameCount: 2,
                                   memoryLimit: 1 << 20, temporaryDirectory: "/tmp")
        let p = Plane(width: 4, height: 3, repeating: 0.5)
        #expect(throws: StackerError.self) { try store.store(frame: 2, planes: [p, p, p], coverage: p) }
        #expect(throws: StackerError.self) { try store.store(frame: 0, planes: [p], coverage: p) }
        #expect(throws: StackerError.self) {
            try store.store(frame: 0, planes: [p, p, p], coverage: Plane(width: 3, height: 3))
        }
        #expect(throws: StackerError.self) { try store.reduce(.median, weights: [1], threads: 1) }
        #expect(throws: StackerError.self) { try store.reduce(.median, weights: [1, -1], threads: 1) }
        #expect(throws: StackerError.self) { try store.reduce(.mode(tolerance: 0), weights: [1, 1], threads: 1) }
        #expect(throws: StackerError.self) {
            try store.reduce(.sigmaClip(kappaLow: .nan, kappaHigh: 3, maxIterations: 5), weights: [1, 1], threads: 1)
        }
        #expect(throws: StackerError.self) {
            try FrameStore(width: 4, height: 3, channels: 1, frameCount: 2, memoryLimit: 0,
                           temporaryDirectory: "/nonexistent-folder-for-stack-tests")
        }
    }
}
