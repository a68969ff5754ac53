import Testing
import Foundation
import Registration
@testable import Stacker
import TestSupport

@Suite("Average kernel")
struct AverageAccumulatorTests {
    @Test("averaging N aligned noisy frames lowers the noise by close to √N")
    func noiseFallsBySqrtN() {
        let w = 128, h = 128, n = 16, sigma = 0.05
        var rng = TestRandom(seed: 42)
        let truth = Plane(width: w, height: h, pixels: (0..<(w * h)).map { Float(0.3 + 0.4 * Double($0 % w) / Double(w)) })
        var acc = AverageAccumulator(width: w, height: h, channels: 1)
        for _ in 0..<n {
            var frame = truth
            for i in 0..<frame.count { frame.pixels[i] += Float(sigma * rng.gaussian()) }
            acc.add([frame], coverage: nil)
        }
        var sq = 0.0
        for i in 0..<truth.count { let d = Double(acc.mean[0].pixels[i] - truth.pixels[i]); sq += d * d }
        let residual = (sq / Double(truth.count)).squareRoot()
        let ratio = sigma / residual
        // √16 = 4; 16 384 samples estimate the residual within ~1 %, so ±5 % is generous but meaningful.
        #expect(abs(ratio - 4) < 0.2, "noise fell by \(ratio)×, expected ≈ 4")
    }

    @Test("the fold equals the weighted mean Σwx/Σw, and uncovered pixels get no weight")
    func weightedMeanWithCoverage() {
        let w = 37, h = 3  // not a multiple of the SIMD width: exercises the scalar tail
        var acc = AverageAccumulator(width: w, height: h, channels: 2)
        let values: [Float] = [0.2, 0.9, 0.5]
        let weights: [Float] = [1, 3, 0.5]
        var half = Plane(width: w, height: h, repeating: 1)
        for i in 0..<(w * h) where i % 2 == 1 { half.pixels[i] = 0 }   // frame 1 covers even pixels only
        for k in 0..<3 {
            let p = Plane(width: w, height: h, repeating: values[k])
            let q = Plane(width: w, height: h, repeating: 1 - values[k])
            acc.add([p, q], coverage: k == 1 ? half : nil, weight: weights[k])
        }
        let full = (0.2 * 1 + 0.9 * 3 + 0.5 * 0.5) / 4.5
        let partial = (0.2 * 1 + 0.5 * 0.5) / 1.5
        for i in 0..<(w * h) {
            let expected = Float(i % 2 == 0 ? full : partial)
            #expect(abs(acc.mean[0].pixels[i] - expected) < 1e-6)
            #expect(abs(acc.mean[1].pixels[i] - (1 - expected)) < 1e-6)
        }
        #expect(acc.weightSum.pixels[0] == 4.5 && acc.weightSum.pixels[1] == 1.5)
        #expect(acc.frameCount == 3)
    }

    @Test("warping while folding, on 1 or 3 threads, equals folding Warper.warp's output, bit for bit")
    func warpingFoldMatchesWarpThenFold() throws {
        let w = 61, h = 45  // bands of uneven size, widths off the SIMD width
        var rng = TestRandom(seed: 7)
        let frames = (0..<4).map { _ in
            (0..<3).map { _ in Plane(width: w, height: h, pixels: (0..<(w * h)).map { _ in Float(0.5 + 0.2 * rng.gaussian()) }) }
        }
        let transforms: [Transform] = [.identity, .translation(dx: 2.4, dy: -1.7), .translation(dx: -3, dy: 5),
                                       Transform(matrix: [0.99, -0.03, 1.2, 0.03, 0.99, -0.8, 0, 0, 1])]
        let weights: [Float] = [1, 0.5, 2, 1.3]
        let gains: [[(gain: Float, offset: Float)]] = [[], [(1.1, -0.02), (1, 0), (0.9, 0.05)], [], [(1, 0.01), (1, 0.01), (1, 0.01)]]
        var reference = AverageAccumulator(width: w, height: h, channels: 3)
        var single = reference, triple = reference
        for k in 0..<4 {
            let warped = Warper.warp(frames[k], by: transforms[k], width: w, height: h)
            var planes = warped.planes
            Normalization.apply(gains[k], to: &planes)
            reference.add(planes, coverage: warped.coverage, weight: weights[k])
            let rows = try #require(RowWarper(frames[k], by: transforms[k], width: w, height: h))
            single.add(warping: rows, weight: weights[k], gains: gains[k], threads: 1)
            triple.add(warping: rows, weight: weights[k], gains: gains[k], threads: 3)
        }
        #expect(single.mean == reference.mean && single.weightSum == reference.weightSum)
        #expect(triple.mean == reference.mean && triple.weightSum == reference.weightSum)
        #expect(triple.frameCount == 4)
    }

    @Test("a copy of an accumulator is independent (value semantics)")
    func copiesAreIndependent() {
        var a = AverageAccumulator(width: 8, height: 2, channels: 1)
        a.add([Plane(width: 8, height: 2, repeating: 0.25)], coverage: nil)
        var b = a
        b.add([Plane(width: 8, height: 2, repeating: 0.75)], coverage: nil)
        #expect(a.mean[0].pixels.allSatisfy { $0 == 0.25 } && a.frameCount == 1)
        #expect(b.mean[0].pixels.allSatisfy { $0 == 0.5 } && b.frameCount == 2)
    }

    @Test("removeAll empties an accumulator as if new, leaves its copies alone, and it folds again")
    func removeAllResets() {
        var a = AverageAccumulator(width: 8, height: 2, channels: 2)
        a.add([Plane(width: 8, height: 2, repeating: 0.25), Plane(width: 8, height: 2, repeating: 0.5)], coverage: nil)
        let copy = a
        a.removeAll()
        #expect(a.frameCount == 0)
        #expect(a.mean == AverageAccumulator(width: 8, height: 2, channels: 2).mean)
        #expect(a.weightSum.pixels.allSatisfy { $0 == 0 } && a.weightSum.count == 16)
        #expect(copy.mean[1].pixels.allSatisfy { $0 == 0.5 } && copy.frameCount == 1)
        a.add([Plane(width: 8, height: 2, repeating: 0.75), Plane(width: 8, height: 2, repeating: 0.125)], coverage: nil)
        #expect(a.mean[0].pixels.allSatisfy { $0 == 0.75 } && a.mean[1].pixels.allSatisfy { $0 == 0.125 })
        #expect(a.frameCount == 1)
    }

    @Test("pixels covered by no frame stay 0 with weight 0")
    func uncoveredStaysZero() {
        var acc = AverageAccumulator(width: 20, height: 1, channels: 1)
        var cov = Plane(width: 20, height: 1, repeating: 1)
        cov.pixels[7] = 0
        acc.add([Plane(width: 20, height: 1, repeating: 0.5)], coverage: cov)
        #expect(acc.mean[0].pixels[7] == 0 && acc.weightSum.pixels[7] == 0)
        #expect(acc.mean[0].pixels[6] == 0.5)
    }

    @Test("a long fold of a constant stays exact in Float (numerically stable)")
    func longFoldIsStable() {
        var acc = AverageAccumulator(width: 16, height: 1, channels: 1)
        let frame = Plane(width: 16, height: 1, repeating: 0.7)
        for _ in 0..<1000 { acc.add([frame], coverage: nil) }
        // r·(x − m) is exactly 0 once m == x, so the mean cannot drift.
        #expect(acc.mean[0].pixels.allSatisfy { $0 == Float(0.7) })
    }
}
