import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// The rejection map: per pixel, the fractions of covered samples rejected
/// low and high, as the kernels counted them.
@Suite("Rejection map")
struct RejectionMapTests {
    /// A float store of `frames` grey frames (w × h) with planted outliers:
    /// per pixel 0…3 samples set to truth ± 0.6 (side at random), the rest
    /// truth + N(0, 0.02); the last frame covers only the left half.
    static func plantedStore(w: Int, h: Int, frames: Int, seed: UInt64) throws
        -> (store: FrameStore, samples: [[Float]], low: [Int], high: [Int]) {
        var rng = TestRandom(seed: seed)
        let truth = (0..<(w * h)).map { _ in Float(0.2 + 0.6 * rng.uniform()) }
        var pixels = [[Float]](repeating: [], count: frames)
        for f in 0..<frames {
            pixels[f] = truth.map { $0 + Float(0.02 * rng.gaussian()) }
        }
        var low = [Int](repeating: 0, count: w * h), high = low
        for p in 0..<(w * h) {
            var used = Set<Int>()
            for _ in 0..<rng.int(in: 0...3) {
                let f = rng.int(in: 0...(frames - 2))
                guard used.insert(f).inserted else { continue }
                if rng.uniform() < 0.5 {
                    pixels[f][p] = truth[p] + 0.6; high[p] += 1
                } else {
                    pixels[f][p] = truth[p] - 0.6; low[p] += 1
                }
            }
        }
        let store = try FrameStore(width: w, height: h, channels: 1, frameCount: frames, depth: .float32,
                                   memoryLimit: 1 << 30, temporaryDirectory: ".")
        var samples = [[Float]](repeating: [], count: w * h)
        for f in 0..<frames {
            var coverage = Plane(width: w, height: h, repeating: 1)
            if f == frames - 1 {
                for y in 0..<h { for x in (w / 2)..<w { coverage[x, y] = 0 } }
            }
            try store.store(frame: f, planes: [Plane(width: w, height: h, pixels: pixels[f])], coverage: coverage)
            for p in 0..<(w * h) where f < frames - 1 || p % w < w / 2 { samples[p].append(pixels[f][p]) }
        }
        return (store, samples, low, high)
    }

    @Test("the map's fractions are the kernel's own low and high counts over the covering frames, for every algorithm and sigma-clip",
          arguments: RejectionAlgorithm.Name.allCases)
    func mapMatchesKernelCounts(_ name: RejectionAlgorithm.Name) throws {
        let w = 41, h = 13, frames = 20
        let (store, samples, plantedLow, plantedHigh) = try Self.plantedStore(w: w, h: h, frames: frames, seed: 51)
        let algorithm = RejectionAlgorithm.named(name)
        let kernel: RobustKernel = name == .sigma ? .sigmaClip : .rejection(algorithm)
        let weights = [Float](repeating: 1, count: frames)
        let (image, low, high) = try store.reduceWithRejectionMap(kernel, weights: weights, threads: 2)
        var countMismatch = 0, valueMismatch = 0, plantedKept = 0
        for p in 0..<(w * h) {
            let r = algorithm.reject(samples[p])
            let n = Float(samples[p].count)
            // The map holds count / n in Float; n · fraction rounds back to the count.
            if Int((low.pixels[p] * n).rounded()) != r.rejectedLow
                || Int((high.pixels[p] * n).rounded()) != r.rejectedHigh { countMismatch += 1 }
            if image.planes[0].pixels[p] != r.value { valueMismatch += 1 }
            if r.rejectedLow < plantedLow[p] || r.rejectedHigh < plantedHigh[p] { plantedKept += 1 }
        }
        #expect(countMismatch == 0, "\(name.rawValue): \(countMismatch) pixels' map differs from the kernel's counts")
        #expect(valueMismatch == 0, "\(name.rawValue): \(valueMismatch) pixels differ from the kernel's value")
        // Percentile's bounds are 20 % / 10 % of the median: ±0.6 is past them.
        #expect(plantedKept == 0, "\(name.rawValue): \(plantedKept) pixels kept a planted outlier")
        // And the planted outliers show in the map: its total is at least theirs.
        let mapHigh = (0..<(w * h)).reduce(0) { $0 + Int((high.pixels[$1] * Float(samples[$1].count)).rounded()) }
        #expect(mapHigh >= plantedHigh.reduce(0, +))
    }

    @Test("the normal reduce gives the same image as the reduce with a map, for the family")
    func sameImageWithoutMap() throws {
        let (store, _, _, _) = try Self.plantedStore(w: 23, h: 9, frames: 12, seed: 52)
        let weights = [Float](repeating: 1, count: 12)
        for name in RejectionAlgorithm.Name.allCases where name != .sigma {
            let kernel = RobustKernel.rejection(.named(name))
            let plain = try store.reduce(kernel, weights: weights, threads: 2).image
            let mapped = try store.reduceWithRejectionMap(kernel, weights: weights, threads: 1).image
            #expect(plain.planes[0].pixels == mapped.planes[0].pixels, "\(name.rawValue)")
        }
    }

    @Test("median and mode make no map: the reduce refuses them")
    func nonRejectingKernelsRefused() throws {
        let (store, _, _, _) = try Self.plantedStore(w: 8, h: 4, frames: 5, seed: 53)
        #expect(throws: StackerError.self) {
            try store.reduceWithRejectionMap(.median, weights: [1, 1, 1, 1, 1], threads: 1)
        }
    }
}

/// `FrameSelection`: which frames `--keep` keeps, as a pure choice over records.
@Suite("Frame selection by quality")
struct FrameSelectionTests {
    static func reports(scores: [Double], fwhm: [Double?]? = nil) -> [FrameReport] {
        scores.enumerated().map { i, s in
            var r = FrameReport(path: "f\(i)", score: s, used: true)
            r.fwhm = fwhm?[i]
            return r
        }
    }

    @Test("the best by score are kept, the reference always, and the cut-off is the worst kept")
    func byScore() {
        let r = Self.reports(scores: [0.2, 0.9, 0.5, 0.7, 0.1])
        let o = FrameSelection.count(3).select(r, referenceIndex: 0, usesStars: false)!
        // The reference (0.2) stays; the two best others are 0.9 and 0.7.
        #expect(o.dropped.map(\.index) == [2, 4] && o.cutoff == 0.7 && o.kept == 3 && o.measure == .score)
        #expect(FrameSelection.percent(100).select(r, referenceIndex: 0, usesStars: false) == nil)
        #expect(FrameSelection.percent(50).keptCount(of: 5) == 3)
        #expect(FrameSelection.percent(1).keptCount(of: 5) == 1)
    }

    @Test("star runs rank by FWHM, smaller first, when every used frame has one; unused frames are not ranked")
    func byFWHM() {
        var r = Self.reports(scores: [1, 1, 1, 1], fwhm: [2.0, 3.5, 2.2, 5.0])
        r[1].used = false
        let o = FrameSelection.count(2).select(r, referenceIndex: 0, usesStars: true)!
        #expect(o.measure == .fwhm && o.dropped.map(\.index) == [3] && o.cutoff == 2.2)
    }

    @Test("bad counts and percentages are named")
    func invalid() {
        #expect(FrameSelection.count(0).invalidReason != nil)
        #expect(FrameSelection.percent(150).invalidReason != nil)
        #expect(FrameSelection.percent(0).invalidReason != nil)
        #expect(FrameSelection.percent(.nan).invalidReason != nil)
        #expect(FrameSelection.count(1).invalidReason == nil)
    }
}
