import Registration
import SceneGen
import Stacker
import Testing
import TestSupport

/// `--mode average --robust` (`TukeyMean`): moving things fade as in the
/// median, noise averages down as in the mean.
@Suite("Motion-robust average")
struct RobustAverageTests {
    @Test("an outlier gets no weight; Gaussian samples average with less noise than their median")
    func kernel() {
        var values: [Float] = [0.5, 0.51, 0.49, 0.5, 0.95], weights = [Float](repeating: 1, count: 5)
        let v = values.withUnsafeMutableBufferPointer { vb in
            weights.withUnsafeMutableBufferPointer { TukeyMean.reduce(vb, weights: $0) }
        }
        #expect(abs(v - 0.5) < 0.002, "\(v)")
        // 4000 pixels of 8 samples, σ 0.01: spread of each estimator around the truth.
        var rng = TestRandom(seed: 9)
        var se = (tukey: 0.0, median: 0.0, mean: 0.0)
        let pixels = 4000
        for _ in 0..<pixels {
            var s = (0..<8).map { _ in Float(0.5 + 0.01 * rng.gaussian()) }
            var w = [Float](repeating: 1, count: 8)
            let mean = Double(s.reduce(0, +)) / 8
            let sorted = s.sorted()
            let median = Double(sorted[3] + sorted[4]) / 2
            let t = s.withUnsafeMutableBufferPointer { sb in w.withUnsafeMutableBufferPointer { TukeyMean.reduce(sb, weights: $0) } }
            se.tukey += (Double(t) - 0.5) * (Double(t) - 0.5)
            se.median += (median - 0.5) * (median - 0.5)
            se.mean += (mean - 0.5) * (mean - 0.5)
        }
        let rms = (tukey: (se.tukey / Double(pixels)).squareRoot(), median: (se.median / Double(pixels)).squareRoot(),
                   mean: (se.mean / Double(pixels)).squareRoot())
        print("noise after stacking 8 samples of σ 0.01: Tukey \(rms.tukey), median \(rms.median), mean \(rms.mean)")
        // Between the two: the biweight's scale comes from the MAD of 8
        // samples, itself noisy, so it gives up some of the mean's
        // efficiency (measured: 0.91 × the median's error, 1.06 × the mean's).
        #expect(rms.tukey < 0.95 * rms.median)
        #expect(rms.tukey < 1.1 * rms.mean)
    }

    @Test("on a burst with passers-by: ghosts fade (≥ 3 dB over the plain average) and noise is below the median's")
    func burst() throws {
        var b = ParallaxBurst(width: 128, height: 96, frames: 8, seed: 4)
        b.parallax = 0
        b.jitter = 0
        b.objects = 2
        b.noise = 0.02
        let (frames, truth) = b.render()
        func run(_ mode: StackMode, robust: Bool) throws -> Double {
            var o = StackOptions()
            o.mode = mode
            o.alignment = .none
            o.robustAverage = robust
            let r = try stack(frames.enumerated().map { .image($1, name: "f\($0)") }, options: o)
            return ImageMetrics.psnr(r.image, truth)
        }
        let average = try run(.average, robust: false), robust = try run(.average, robust: true)
        let median = try run(.median, robust: false)
        print("passers-by: average \(average) dB, robust average \(robust) dB, median \(median) dB")
        #expect(robust >= average + 3)
        #expect(robust > median)
    }
}
