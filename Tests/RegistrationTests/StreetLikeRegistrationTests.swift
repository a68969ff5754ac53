import Foundation
import Registration
import Testing
import TestSupport

/// A street-like scene defined at every real coordinate: the band-limited
/// `Texture` plus axis-aligned blocks (façades, windows, poles) whose edges
/// rise as a smoothstep over `edgeWidth` px, point-sampled. The edges carry
/// energy up to Nyquist, which is what made the Fourier refinement of a
/// single Hann-windowed crop drift by 0.1–0.5 px on generated street bursts.
struct BlockScene {
    struct Block { var x0, x1, y0, y1: Double; var level: Float }
    static let edgeWidth = 1.5
    let texture: Texture
    let blocks: [Block]

    init(seed: UInt64, width: Int, height: Int, blocks count: Int, margin: Int) {
        texture = Texture(seed: seed, width: width, height: height, margin: margin, contrast: 0.06)
        var rng = TestRandom(seed: seed &+ 17)
        let m = Double(margin)
        blocks = (0..<count).map { _ in
            let w = 6 + rng.uniform() * Double(width) / 4, h = 6 + rng.uniform() * Double(height) / 4
            let x0 = -m + rng.uniform() * (Double(width) + 2 * m - w), y0 = -m + rng.uniform() * (Double(height) + 2 * m - h)
            return Block(x0: x0, x1: x0 + w, y0: y0, y1: y0 + h, level: Float(rng.uniform() * 0.5 - 0.25))
        }
    }

    /// Smoothstep edge profile: 0 below `−edgeWidth/2`, 1 above `+edgeWidth/2`.
    static func edge(_ t: Double) -> Float {
        let u = min(1, max(0, t / edgeWidth + 0.5))
        return Float(u * u * (3 - 2 * u))
    }

    /// The scene at `(x + dx, y + dy)` for every pixel `(x, y)`, so that a
    /// frame rendered with `(dx, dy)` shows the reference (`(0, 0)`) at `(x + dx, y + dy)`.
    func render(width: Int, height: Int, dx: Double, dy: Double) -> Plane {
        var p = texture.render(width: width, height: height, dx: dx, dy: dy)
        let pad = Self.edgeWidth
        for b in blocks {
            // Pixels whose reference coordinate can touch the block.
            let xa = max(0, Int((b.x0 - pad - dx).rounded(.down))), xb = min(width - 1, Int((b.x1 + pad - dx).rounded(.up)))
            let ya = max(0, Int((b.y0 - pad - dy).rounded(.down))), yb = min(height - 1, Int((b.y1 + pad - dy).rounded(.up)))
            guard xa <= xb, ya <= yb else { continue }
            let px = (xa...xb).map { x -> Float in
                let X = Double(x) + dx
                return Self.edge(X - b.x0) * Self.edge(b.x1 - X)
            }
            for y in ya...yb {
                let Y = Double(y) + dy
                let py = Self.edge(Y - b.y0) * Self.edge(b.y1 - Y)
                guard py > 0 else { continue }
                for (i, x) in (xa...xb).enumerated() { p[x, y] += b.level * py * px[i] }
            }
        }
        return p
    }
}

extension Plane {
    /// `self` with opaque flat-coloured rectangles ("moving objects") pasted
    /// until about `coverage` of the area is covered (overlaps allowed).
    func pastingObjects(coverage: Double, maxSide: Int, seed: UInt64) -> Plane {
        var rng = TestRandom(seed: seed)
        var p = self
        var covered = 0.0
        let target = coverage * Double(width * height)
        while covered < target {
            let w = 8 + Int(rng.uniform() * Double(maxSide - 8)), h = 8 + Int(rng.uniform() * Double(maxSide - 8))
            let x0 = Int(rng.uniform() * Double(width - w)), y0 = Int(rng.uniform() * Double(height - h))
            let v = Float(rng.uniform())
            for y in y0..<(y0 + h) { for x in x0..<(x0 + w) { p[x, y] = v } }
            covered += Double(w * h)
        }
        return p
    }
}

@Suite("Street-like registration")
struct StreetLikeRegistrationTests {
    /// Registers `frames` shifted frames (each with its own objects, noise and
    /// 8-bit quantisation) against a reference that has objects of its own;
    /// returns the error length of each estimate (px).
    func errors(width w: Int, height h: Int, frames: Int, maxShift: Double, coverage: Double,
                seed: UInt64) throws -> [Double] {
        try estimates(width: w, height: h, frames: frames, maxShift: maxShift, coverage: coverage, seed: seed).map(\.error)
    }

    /// As `errors`, with each estimate.
    func estimates(width w: Int, height h: Int, frames: Int, maxShift: Double, coverage: Double,
                   seed: UInt64) throws -> [(estimate: TranslationEstimate, error: Double)] {
        let margin = Int(maxShift) + 8
        let scene = BlockScene(seed: seed, width: w, height: h, blocks: 60, margin: margin)
        let maxSide = max(16, min(w, h) / 3)
        func shot(_ dx: Double, _ dy: Double, _ i: UInt64) -> Plane {
            scene.render(width: w, height: h, dx: dx, dy: dy)
                .pastingObjects(coverage: coverage, maxSide: maxSide, seed: seed &+ 100 &+ i)
                .addingNoise(sigma: 0.01, seed: seed &+ 200 &+ i)
                .quantised8()
        }
        let reg = try TranslationRegistrar(reference: shot(0, 0, 0))
        var rng = TestRandom(seed: seed &+ 300)
        var out: [(estimate: TranslationEstimate, error: Double)] = []
        for i in 1...frames {
            let dx = (rng.uniform() * 2 - 1) * maxShift, dy = (rng.uniform() * 2 - 1) * maxShift
            let e = try reg.estimate(shot(dx, dy, UInt64(i)))
            #expect(e.isAccepted, "frame \(i) scored \(e.score), overlap agreement \(e.overlapAgreement ?? -1)")
            out.append((e, ((e.dx - dx) * (e.dx - dx) + (e.dy - dy) * (e.dy - dy)).squareRoot()))
        }
        return out
    }

    func summary(_ errs: [Double]) -> (rms: Double, max: Double) {
        ((errs.map { $0 * $0 }.reduce(0, +) / Double(errs.count)).squareRoot(), errs.max() ?? 0)
    }

    @Test("sharp edges, moving objects, noise and 8-bit steps: RMS ≤ 0.03 px, max ≤ 0.08 px")
    func streetLikeBurst() throws {
        // As the generated street bursts: shifts ±6 px, objects covering ~15 %
        // of each frame (reference included), noise σ = 0.01, 8-bit. Before
        // the direct refinement the estimator gave 0.04–0.19 px RMS on such
        // bursts; now ≈ 0.005–0.01 px. The bounds leave ~3× margin for seeds
        // and platforms while still failing the old estimator.
        for (w, h, seed) in [(320, 240, UInt64(41)), (480, 360, UInt64(42))] {
            let (rms, mx) = summary(try errors(width: w, height: h, frames: 8, maxShift: 6, coverage: 0.15, seed: seed))
            print("street-like \(w)x\(h): RMS \(String(format: "%.4f", rms)) px, max \(String(format: "%.4f", mx)) px")
            #expect(rms <= 0.03, "\(w)x\(h) RMS \(rms)")
            #expect(mx <= 0.08, "\(w)x\(h) max \(mx)")
        }
    }

    @Test("large shifts (±10 %) and objects over a third of the frame: RMS ≤ 0.05 px, max ≤ 0.15 px, every frame accepted")
    func heavyOcclusion() throws {
        // The harder target: shifts up to 10 % of the frame, a third of each
        // frame covered by objects. Bounds as that target states.
        //
        // With a third of both reference and frame under flat objects only
        // about (2/3)² of the area is shared, and the phase-correlation peak
        // height (the score) falls to 0.040–0.062, mostly under the 0.06
        // threshold that unrelated scenes (0.022–0.041) need. The frames are
        // accepted by the second measure: score ≥ 0.03 (half the threshold)
        // and overlap agreement ≥ 0.1 (measured 0.27–0.36 here; unrelated
        // scenes ≤ 0.022, noise and blank 0: OverlapAgreementTests).
        let results = try estimates(width: 320, height: 240, frames: 8, maxShift: 24, coverage: 0.33, seed: 43)
        let (rms, mx) = summary(results.map(\.error))
        print("heavy occlusion 320x240: RMS \(String(format: "%.4f", rms)) px, max \(String(format: "%.4f", mx)) px; score/agreement \(results.map { String(format: "%.3f/%.3f", $0.estimate.score, $0.estimate.overlapAgreement ?? -1) })")
        #expect(rms <= 0.05, "RMS \(rms)")
        #expect(mx <= 0.15, "max \(mx)")
        #expect(results.filter(\.estimate.isAccepted).count == 8)
        // Where the score alone fails, the agreement is well clear of the
        // 0.1 threshold (2× margin), not scraping past it.
        for r in results where r.estimate.score < TranslationOptions.defaultMinimumScore {
            #expect((r.estimate.overlapAgreement ?? 0) >= 2 * TranslationOptions.defaultMinimumAgreement)
        }
    }
}
