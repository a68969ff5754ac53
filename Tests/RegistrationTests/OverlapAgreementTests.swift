import Foundation
@testable import Registration
import Testing

/// The second registration confidence (`OverlapAgreement`) and the acceptance
/// rule built on it (`TranslationOptions.accepts`).
@Suite("Overlap agreement")
struct OverlapAgreementTests {
    static let width = 320, height = 240

    /// A reference as in `StreetLikeRegistrationTests.heavyOcclusion`: the
    /// block scene of seed 43 with a third of it under flat objects.
    static func heavyOcclusionReference() -> Plane {
        let scene = BlockScene(seed: 43, width: width, height: height, blocks: 60, margin: 32)
        return scene.render(width: width, height: height, dx: 0, dy: 0)
            .pastingObjects(coverage: 0.33, maxSide: 80, seed: 143)
            .addingNoise(sigma: 0.01, seed: 243).quantised8()
    }

    @Test("unrelated scenes, a blank frame and a noise frame are rejected by the score and by the agreement")
    func nonMatchesAreRejected() throws {
        let reg = try TranslationRegistrar(reference: Self.heavyOcclusionReference())
        let w = Self.width, h = Self.height
        var unrelated: [TranslationEstimate] = []
        for i in 0..<4 {
            // Same generator, other seeds: block scenes with objects of their
            // own, and band-limited textures.
            let other = BlockScene(seed: 1000 + UInt64(i), width: w, height: h, blocks: 60, margin: 32)
            unrelated.append(try reg.estimate(other.render(width: w, height: h, dx: 0, dy: 0)
                .pastingObjects(coverage: 0.33, maxSide: 80, seed: 500 + UInt64(i))
                .addingNoise(sigma: 0.01, seed: 600 + UInt64(i)).quantised8()))
            let texture = Texture(seed: 2000 + UInt64(i), width: w, height: h)
            unrelated.append(try reg.estimate(texture.render(width: w, height: h)
                .addingNoise(sigma: 0.02, seed: 700 + UInt64(i)).quantised8()))
        }
        let blank = try reg.estimate(Plane(width: w, height: h, repeating: 0.5))
        let noise = try reg.estimate(Plane(width: w, height: h, repeating: 0.5).addingNoise(sigma: 0.1, seed: 3))
        let all = unrelated + [blank, noise]
        print("agreement of non-matches: unrelated \(unrelated.map { String(format: "%.4f/%.3f", $0.score, $0.overlapAgreement ?? -1) }), blank \(blank.overlapAgreement ?? -1), noise \(noise.overlapAgreement ?? -1)")
        // Measured: unrelated scores 0.021–0.041 (block scenes peak higher:
        // their straight edges share axis-aligned spectra), agreement
        // 0–0.005; blank score 0, agreement 0; noise score 0.021, agreement 0.
        // Half the 0.1 threshold leaves room for other seeds; the true heavy
        // occlusion matches measure 0.27–0.47.
        for e in all {
            #expect(!e.isAccepted, "accepted a non-match: score \(e.score), agreement \(e.overlapAgreement ?? -1)")
            // All of them score below the threshold, so the agreement was measured.
            let agreement = try #require(e.overlapAgreement)
            #expect(agreement < TranslationOptions.defaultMinimumAgreement / 2)
        }
        #expect(blank.score == 0 && blank.overlapAgreement == 0)
        #expect(noise.overlapAgreement == 0)
    }

    @Test("unrelated low-contrast scenes under the same vignetting and sky gradient do not agree")
    func sharedVignettingIsNotAgreement() throws {
        // Frames of one camera share vignetting and, outdoors, a sky gradient;
        // a plain block correlation counted those as agreement (measured
        // 0.07–0.42 of the blocks, the blank vignetted frame the most). The
        // plane fit removes them: measured 0–0.004.
        let w = Self.width, h = Self.height
        func vignetted(_ p: Plane, seed: UInt64) -> Plane {
            var q = p
            for y in 0..<h {
                for x in 0..<w {
                    let rx = Double(x - w / 2) / Double(w / 2), ry = Double(y - h / 2) / Double(w / 2)
                    q[x, y] = p[x, y] * Float(1 - 0.5 * (rx * rx + ry * ry)) + Float(0.2 * Double(y) / Double(h))
                }
            }
            return q.addingNoise(sigma: 0.01, seed: seed).quantised8()
        }
        let reg = try TranslationRegistrar(reference: vignetted(Texture(seed: 5000, width: w, height: h, contrast: 0.03).render(width: w, height: h), seed: 1))
        var frames = (0..<3).map { vignetted(Texture(seed: 5001 + UInt64($0), width: w, height: h, contrast: 0.03).render(width: w, height: h), seed: 10 + UInt64($0)) }
        frames.append(vignetted(Plane(width: w, height: h, repeating: 0.5), seed: 20))
        for f in frames {
            let e = try reg.estimate(f)
            #expect(!e.isAccepted)
            #expect((e.overlapAgreement ?? 1) < TranslationOptions.defaultMinimumAgreement / 2, "agreement \(e.overlapAgreement ?? -1)")
        }
    }

    @Test("a block confirms only what it pins down: identical texture agrees, stripes and flat planes do not")
    func apertureAndFlatness() {
        let w = 160, h = 120
        let texture = Texture(seed: 3, width: w, height: h).render(width: w, height: h)
        // Identical textured planes: every block confirms.
        #expect(OverlapAgreement.measure(frame: texture, reference: texture, dx: 0, dy: 0) > 0.95)
        // The right subpixel shift still agrees; the texture's correlation
        // length is ~1.5 px, so a 5 px error leaves nothing.
        let shifted = Texture(seed: 3, width: w, height: h).render(width: w, height: h, dx: 3.4, dy: -2.7)
        #expect(OverlapAgreement.measure(frame: shifted, reference: texture, dx: 3.4, dy: -2.7) > 0.95)
        #expect(OverlapAgreement.measure(frame: shifted, reference: texture, dx: 8.4, dy: -2.7) < 0.02)
        // Vertical stripes: every block correlates perfectly with the
        // identical plane, but equally well 2 px up or down, so none pins the
        // shift down.
        var stripes = Plane(width: w, height: h)
        for y in 0..<h { for x in 0..<w { stripes[x, y] = Float(0.5 + 0.3 * sin(Double(x) * 0.7)) } }
        #expect(OverlapAgreement.measure(frame: stripes, reference: stripes, dx: 0, dy: 0) == 0)
        // Flat planes (and an overlap without a whole block) give 0.
        let flat = Plane(width: w, height: h, repeating: 0.4)
        #expect(OverlapAgreement.measure(frame: flat, reference: flat, dx: 0, dy: 0) == 0)
        #expect(OverlapAgreement.measure(frame: texture, reference: texture, dx: Double(w - 10), dy: 0) == 0)
    }

    @Test("acceptance rule: the score alone, or half the score confirmed by the agreement; the reason names both")
    func acceptanceRule() {
        let o = TranslationOptions()          // 0.06 and 0.1
        #expect(o.accepts(score: 0.06, overlapAgreement: nil))
        #expect(o.accepts(score: 0.04, overlapAgreement: 0.3))
        #expect(!o.accepts(score: 0.04, overlapAgreement: 0.05))
        #expect(!o.accepts(score: 0.04, overlapAgreement: nil))
        // Below the floor (half the threshold) no agreement helps.
        #expect(o.confirmationFloor == 0.03)
        #expect(!o.accepts(score: 0.029, overlapAgreement: 0.9))
        // --min-score still moves everything: a stricter threshold raises the floor.
        let strict = TranslationOptions(minimumScore: 0.2)
        #expect(!strict.accepts(score: 0.09, overlapAgreement: 0.9))
        #expect(strict.accepts(score: 0.1, overlapAgreement: 0.9))
        let reason = o.rejection(score: 0.041, overlapAgreement: 0.004)
        #expect(reason.contains("score 0.041") && reason.contains("0.06") && reason.contains("overlap agreement 0.004"))
        #expect(o.rejection(score: 0.02, overlapAgreement: 0.5).contains("overlap agreement (0.5)"))
    }
}
