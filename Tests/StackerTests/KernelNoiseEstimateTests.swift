import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

@Suite("Noise estimate")
struct KernelNoiseEstimateTests {
    /// A 384×320 plane with smooth waves, a diagonal ramp and hard-edged
    /// rectangles (values 0.15…0.85, so noise is not clipped).
    static func texture() -> Plane {
        let w = 384, h = 320
        var p = Plane(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let fx = Double(x), fy = Double(y)
                var v = 0.5 + 0.12 * sin(2 * .pi * fx / 37)
                    + 0.08 * sin(2 * .pi * (fx + fy) / 53) * cos(2 * .pi * fy / 29)
                    + 0.0004 * (fx - fy)
                // Rectangles every 64 px: edges of contrast 0.15.
                if (x / 64 + y / 64) % 2 == 0 && x % 64 > 12 && y % 64 > 20 { v += 0.15 }
                p[x, y] = Float(min(max(v, 0.05), 0.95))
            }
        }
        return p
    }

    @Test("estimate is within 15 % of the true sigma on a textured plane, for σ = 0.004…0.03")
    func withinFifteenPercent() {
        let base = Self.texture()
        var rng = TestRandom(seed: 30)
        for sigma in [0.004, 0.01, 0.02, 0.03] {
            var p = base
            for i in 0..<p.count { p.pixels[i] += Float(sigma * rng.gaussian()) }
            let est = estimateNoiseSigma(p)
            print("noise σ \(sigma): estimate \(est) (ratio \(est / sigma))")
            #expect(abs(est / sigma - 1) < 0.15, "σ = \(sigma), estimate \(est)")
        }
        // The texture alone reads as little noise: under a quarter of the smallest σ tested.
        let textureOnly = estimateNoiseSigma(base)
        print("texture only: \(textureOnly)")
        #expect(textureOnly < 0.001)
    }

    @Test("flat, tiny and clipped planes give 0; weights are inverse variance averaging 1")
    func edgeCasesAndWeights() {
        #expect(estimateNoiseSigma(Plane(width: 50, height: 40, repeating: 0.5)) == 0)
        #expect(estimateNoiseSigma(Plane(width: 2, height: 9, repeating: 0.5)) == 0)
        #expect(estimateNoiseSigma(Plane(width: 50, height: 40, repeating: 1)) == 0)
        let w = inverseNoiseVarianceWeights([0.01, 0.02])
        // 1/σ²: 10000 and 2500, mean 6250 → 1.6 and 0.4.
        #expect(abs(w[0] - 1.6) < 1e-5 && abs(w[1] - 0.4) < 1e-5)
        let z = inverseNoiseVarianceWeights([0, 0.01, .nan])
        #expect(z.allSatisfy { $0.isFinite && $0 > 0 })
        #expect(inverseNoiseVarianceWeights([]).isEmpty)
    }
}
