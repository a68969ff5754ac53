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

    @Test("each grid cell of a level keeps its quota of the largest gradient magnitudes (the bitwise selection picks what a sort would)")
    func selectionKeepsTheStrongestGradients() throws {
        let w = 203, h = 151, maxSamples = 3000
        let plane = HomographyScene(seed: 5, width: w, height: h).render(width: w, height: h, seed: 6)
        let coords = NormalisedCoordinates(width: w, height: h)
        let level = HomographyLevel(plane: plane, factor: 1, coordinates: coords, maxSamples: maxSamples)
        // The magnitudes as a full-plane blur and central differences give
        // them (per normalised unit, as the level's gradients).
        let blurred = HomographyLevel.smoothed(plane).pixels, unit = Float(level.toPixels.matrix[0])
        func magnitude(_ x: Int, _ y: Int) -> Float {
            let gx = 0.5 * unit * (blurred[y * w + x + 1] - blurred[y * w + x - 1])
            let gy = 0.5 * unit * (blurred[(y + 1) * w + x] - blurred[(y - 1) * w + x])
            return gx * gx + gy * gy
        }
        var chosen = Set<Int>()
        for i in 0..<level.count {
            let p = level.toPixels.apply(x: Double(level.xs[i]), y: Double(level.ys[i]))
            chosen.insert(Int(p.y.rounded()) * w + Int(p.x.rounded()))
        }
        #expect(chosen.count == level.count, "samples land on distinct pixels")
        let interior = (w - 2) * (h - 2)
        let cols = HomographyLevel.gridColumns, rows = HomographyLevel.gridRows
        var cellsChecked = 0
        for cy in 0..<rows {
            let y0 = 1 + cy * (h - 2) / rows, y1 = 1 + (cy + 1) * (h - 2) / rows
            for cx in 0..<cols {
                let x0 = 1 + cx * (w - 2) / cols, x1 = 1 + (cx + 1) * (w - 2) / cols
                let cell = (x1 - x0) * (y1 - y0)
                let quota = min(cell, maxSamples * cell / interior)
                var kept = [Float](), left = [Float]()
                for y in y0..<y1 { for x in x0..<x1 {
                    if chosen.contains(y * w + x) { kept.append(magnitude(x, y)) } else { left.append(magnitude(x, y)) }
                } }
                #expect(kept.count == quota, "cell (\(cx), \(cy)): \(kept.count) kept, quota \(quota)")
                // None left stronger than one kept.
                #expect((kept.min() ?? .infinity) >= (left.max() ?? 0), "cell (\(cx), \(cy))")
                cellsChecked += 1
            }
        }
        #expect(cellsChecked == cols * rows && level.count <= maxSamples && level.count > maxSamples * 9 / 10)
    }
}
