import Foundation
@testable import Registration
import TestSupport
import Testing

/// The homography's frame levels are read at the sample points only:
/// `SmoothedBilinear` must equal bilinear sampling of the blurred level, and
/// a frame given as bytes must register as the same frame given as floats.
@Suite("Sparse homography sampling")
struct SparseHomographyTests {
    /// Bilinear sampling of a plane, clamped as `HomographyLevel.refine` did.
    static func bilinear(_ p: Plane, _ u: Float, _ v: Float) -> Float {
        let ix = min(Int(u), p.width - 2), iy = min(Int(v), p.height - 2)
        let tx = u - Float(ix), ty = v - Float(iy)
        let o = iy * p.width + ix, f = p.pixels
        let top = f[o] + tx * (f[o + 1] - f[o])
        let bottom = f[o + p.width] + tx * (f[o + p.width + 1] - f[o + p.width])
        return top + ty * (bottom - top)
    }

    @Test("the folded 4 × 4 taps equal bilinear sampling of the [1 2 1]² blurred plane, edges included (floats and bytes)")
    func foldedTapsMatchBlurThenBilinear() {
        var rng = TestRandom(seed: 61)
        let w = 37, h = 23
        let bytes = BytePlane(width: w, height: h, pixels: (0..<(w * h)).map { _ in UInt8(rng.uniform() * 255.99) })
        let floats = bytes.floats
        let blurred = HomographyLevel.smoothed(floats)
        var worst: Float = 0, points = 0
        // Random interior points, then the four edges and corners exactly.
        var uvs = (0..<2000).map { _ in (Float(rng.uniform()) * Float(w - 1), Float(rng.uniform()) * Float(h - 1)) }
        for t in stride(from: Float(0), through: 1, by: 0.125) {
            uvs += [(t * Float(w - 1), 0), (t * Float(w - 1), Float(h - 1)), (0, t * Float(h - 1)), (Float(w - 1), t * Float(h - 1))]
        }
        floats.pixels.withUnsafeBufferPointer { fp in
            bytes.pixels.withUnsafeBufferPointer { bp in
                let f = SmoothedBilinear(fp, width: w, height: h), b = SmoothedBilinear(bp, width: w, height: h)
                for (u, v) in uvs {
                    let truth = Self.bilinear(blurred, u, v)
                    worst = max(worst, abs(f.value(u: u, v: v) - truth), abs(b.value(u: u, v: v) - truth))
                    points += 1
                }
            }
        }
        print("SmoothedBilinear: \(points) points, worst difference \(worst) (values 0…1)")
        // Float rounding only: a few ulps of values ≤ 1 (a wrong tap or a
        // wrong edge clamp shows as ≥ 1e-3).
        #expect(worst <= 1e-6)
    }

    @Test("an 8-bit frame registers the same as bytes and as floats (corners within 1e-3 px), on a 640 × 480 jitter")
    func bytesRegisterAsFloats() throws {
        let registrar = try #require(HomographyTests.registrar)
        var rng = TestRandom(seed: 4242)
        var worst = 0.0, truthWorst = 0.0
        for trial in 0..<2 {
            let truth = try #require(randomHomography(&rng, width: HomographyTests.width, height: HomographyTests.height,
                                                      shift: 10, jitter: 12))
            let frame = HomographyTests.scene.render(width: HomographyTests.width, height: HomographyTests.height,
                                                     transform: truth, occluders: HomographyTests.occluders(&rng),
                                                     seed: UInt64(700 + trial))
            // The rendered frame is 8-bit steps already; as bytes it is the same values.
            let bytes = BytePlane(width: frame.width, height: frame.height,
                                  pixels: frame.pixels.map { UInt8(max(0, min(255, ($0 * 255).rounded()))) })
            let asFloats = try registrar.estimate(bytes.floats), asBytes = try registrar.estimate(bytes)
            #expect(asFloats.fallbackReason == nil && asBytes.fallbackReason == nil)
            let d = cornerErrors(asBytes.transform, asFloats.transform, width: frame.width, height: frame.height).max() ?? 1
            let e = cornerErrors(asBytes.transform, truth, width: frame.width, height: frame.height).max() ?? 1
            worst = max(worst, d)
            truthWorst = max(truthWorst, e)
            #expect(asBytes.isAccepted == asFloats.isAccepted)
            #expect(abs(asBytes.score - asFloats.score) < 1e-3)
        }
        print(String(format: "homography bytes vs floats: worst corner difference %.2e px; bytes vs truth: worst %.4f px",
                     worst, truthWorst))
        // The two differ only in float rounding inside the sampler.
        #expect(worst <= 1e-3)
        #expect(truthWorst <= 0.5)
    }
}
