import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

@Suite("Background normalisation")
struct NormalizationTests {
    @Test("each method maps a frame's background statistics exactly onto the reference's")
    func coefficientsMatchStatistics() {
        let reference = [RobustStatistics(median: 0.2, sigma: 0.01)]
        let frame = [RobustStatistics(median: 0.35, sigma: 0.015)]
        func mapped(_ n: Normalization, _ x: Double) -> Double {
            let k = n.coefficients(frame: frame, reference: reference)[0]
            return Double(k.gain) * x + Double(k.offset)
        }
        #expect(abs(mapped(.additive, 0.35) - 0.2) < 1e-6)
        #expect(abs(mapped(.multiplicative, 0.35) - 0.2) < 1e-6)
        // addscale: the median goes to the median and one σ to one σ.
        #expect(abs(mapped(.addscale, 0.35) - 0.2) < 1e-6)
        #expect(abs(mapped(.addscale, 0.365) - 0.21) < 1e-6)
        #expect(mapped(.none, 0.35) == 0.35)
        // A non-positive background cannot be matched by a gain: left alone.
        let dark = [RobustStatistics(median: 0, sigma: 0.01)]
        #expect(Normalization.multiplicative.coefficients(frame: dark, reference: reference)[0] == (1, 0) as (Float, Float))
    }

    /// Frames `gᵢ·(S + nᵢ) + oᵢ` of one star field S (changing transparency
    /// gᵢ and sky level oᵢ), a satellite trail across frame 5.
    static func frames(count: Int, width: Int, height: Int) -> (frames: [Image], truth: Image, trail: [Int]) {
        var rng = TestRandom(seed: 41)
        var signal = [Float](repeating: 0.15, count: width * height)
        for _ in 0..<60 {
            let sx = rng.uniform() * Double(width), sy = rng.uniform() * Double(height)
            let peak = Float(0.05 + 0.4 * rng.uniform())
            for y in max(0, Int(sy) - 6)..<min(height, Int(sy) + 7) {
                for x in max(0, Int(sx) - 6)..<min(width, Int(sx) + 7) {
                    let r2 = (Double(x) - sx) * (Double(x) - sx) + (Double(y) - sy) * (Double(y) - sy)
                    signal[y * width + x] += peak * Float(exp(-r2 / (2 * 1.5 * 1.5)))
                }
            }
        }
        let trail = (0..<width).flatMap { x -> [Int] in
            let y = Int(Double(height) * 0.2 + Double(x) * 0.5)
            return (y - 1...y + 1).filter { $0 >= 0 && $0 < height }.map { $0 * width + x }
        }
        var frames: [Image] = []
        for i in 0..<count {
            let g: Float = i == 0 ? 1 : Float(0.8 + 0.45 * rng.uniform())
            let o: Float = i == 0 ? 0 : Float(-0.05 + 0.15 * rng.uniform())
            var p = signal.map { g * ($0 + Float(0.004 * rng.gaussian())) + o }
            if i == 5 { for j in trail { p[j] = 0.9 } }
            frames.append(Image(width: width, height: height, planes: [Plane(width: width, height: height, pixels: p)]))
        }
        let truth = Image(width: width, height: height, planes: [Plane(width: width, height: height, pixels: signal)])
        return (frames, truth, trail)
    }

    @Test("addscale normalisation lets sigma-clip reject the trail, not the sky changes: 10 dB better than none")
    func normalisationBeforeSigmaClip() throws {
        let (frames, truth, trail) = Self.frames(count: 12, width: 200, height: 150)
        let folder = try TestFiles.temporaryFolder("normalize")
        defer { TestFiles.remove(folder) }
        let paths = try writeFrames(frames, prefix: "light", folder: folder)
        func stack(_ n: Normalization) throws -> StackResult {
            var options = StackOptions()
            options.mode = .sigmaClip
            options.alignment = .none
            options.normalization = n
            options.threads = 2
            return try StackPipeline.run(paths: paths, options: options)
        }
        let none = try stack(.none), addscale = try stack(.addscale)
        let psnrNone = ImageMetrics.psnr(none.image, truth), psnrScaled = ImageMetrics.psnr(addscale.image, truth)
        // Without normalisation the stack sits at the frames' mean level, a
        // few hundredths off the reference's; with it only noise is left
        // (0.004/√12 ≈ 0.0012, about 58 dB).
        #expect(psnrScaled > psnrNone + 10, "addscale \(psnrScaled) dB, none \(psnrNone) dB")
        #expect(psnrScaled > 50, "addscale \(psnrScaled) dB")
        let trailError = trail.map { abs(addscale.image.planes[0].pixels[$0] - truth.planes[0].pixels[$0]) }.max() ?? 1
        // The trail (0.9 against ≈ 0.15) is rejected: what is left is noise,
        // at most about 4 σ of the 11-frame mean (0.004/√11 · 4 ≈ 0.005).
        #expect(trailError < 0.006, "max trail error \(trailError)")
        // The report carries each frame's measured background.
        #expect(addscale.frames.allSatisfy { $0.background != nil && $0.noiseSigma != nil })
    }
}
