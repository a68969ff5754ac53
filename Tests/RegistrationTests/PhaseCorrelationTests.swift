import Foundation
import Registration
import Testing
import TestSupport

@Suite("Phase correlation")
struct PhaseCorrelationTests {
    static let width = 320, height = 240
    /// Noise on a 0…1 scale: a bit above a typical phone JPEG's residual noise.
    static let noise = 0.02

    static let texture = Texture(seed: 1, width: width, height: height)
    static let reference = texture.render(width: width, height: height)

    func frame(dx: Double, dy: Double, seed: UInt64, w: Int = width, h: Int = height,
               texture: Texture = PhaseCorrelationTests.texture) -> Plane {
        texture.render(width: w, height: h, dx: dx, dy: dy).addingNoise(sigma: Self.noise, seed: seed)
    }

    @Test("integer shifts are recovered exactly under noise")
    func integerShifts() throws {
        let reg = try TranslationRegistrar(reference: Self.reference.addingNoise(sigma: Self.noise, seed: 99))
        let shifts: [(Double, Double)] = [(0, 0), (1, 0), (0, -1), (3, -7), (-12, 5), (25, 18), (-31, -23)]
        for (i, s) in shifts.enumerated() {
            let e = try reg.estimate(frame(dx: s.0, dy: s.1, seed: UInt64(100 + i)))
            // 0.01 px: an integer shift has an exact correlation peak on the
            // grid; anything larger would mean a biased estimator.
            #expect(abs(e.dx - s.0) < 0.01 && abs(e.dy - s.1) < 0.01, "shift \(s) estimated (\(e.dx), \(e.dy))")
            #expect(e.isAccepted)
        }
    }

    /// Runs `count` random subpixel shifts within ±10 % of the frame size and
    /// returns the per-axis errors.
    func subpixelErrors(w: Int, h: Int, count: Int, seed: UInt64) throws -> [Double] {
        let tex = Texture(seed: seed, width: w, height: h, margin: max(w, h) / 10 + 4)
        let reg = try TranslationRegistrar(reference: tex.render(width: w, height: h).addingNoise(sigma: Self.noise, seed: seed + 1))
        var rng = TestRandom(seed: seed + 2)
        var errors: [Double] = []
        for i in 0..<count {
            let dx = (rng.uniform() * 2 - 1) * 0.1 * Double(w), dy = (rng.uniform() * 2 - 1) * 0.1 * Double(h)
            let e = try reg.estimate(frame(dx: dx, dy: dy, seed: seed + 10 + UInt64(i), w: w, h: h, texture: tex))
            errors += [e.dx - dx, e.dy - dy]
        }
        return errors
    }

    @Test("subpixel shifts within 0.03 px (RMS ≤ 0.01 px) under noise σ = 0.02")
    func subpixelShifts() throws {
        // 320×240 (single-level path) and 640×480 (downscaled coarse search).
        let small = try subpixelErrors(w: 320, h: 240, count: 12, seed: 7)
        let large = try subpixelErrors(w: 640, h: 480, count: 6, seed: 8)
        for (name, errs) in [("320x240", small), ("640x480", large)] {
            let rms = (errs.map { $0 * $0 }.reduce(0, +) / Double(errs.count)).squareRoot()
            let mx = errs.map(abs).max() ?? 0
            print("subpixel \(name): RMS \(String(format: "%.4f", rms)) px, max \(String(format: "%.4f", mx)) px over \(errs.count) axis errors")
            // The issue asked for each shift within 0.1 px and RMS ≤ 0.05 px;
            // with the direct refinement the measured figures are ≤ 0.002 px
            // RMS and ≤ 0.004 px max, so the bounds are tightened to 0.03 px
            // max and 0.01 px RMS (still ~5× margin).
            #expect(mx < 0.03, "\(name) max error \(mx)")
            #expect(rms <= 0.01, "\(name) RMS error \(rms)")
        }
    }

    @Test("sign convention: frame(x, y) = ref(x + dx, y + dy) returns +dx, +dy")
    func signConvention() throws {
        let reg = try TranslationRegistrar(reference: Self.reference)
        let f = Self.texture.render(width: Self.width, height: Self.height, dx: 5.25, dy: -3.5)
        let e = try reg.estimate(f)
        // Noise-free, so the estimate must be close; the sign is the point.
        #expect(abs(e.dx - 5.25) < 0.02 && abs(e.dy + 3.5) < 0.02, "got (\(e.dx), \(e.dy))")
        #expect(e.transform == .translation(dx: e.dx, dy: e.dy))
        // Direct check of the convention at one pixel: f(10, 10) = ref(15.25, 6.5).
        #expect(abs(f[10, 10] - Self.texture.value(x: 15.25, y: 6.5)) < 1e-5)
    }

    @Test("score separates matches from unrelated and blank frames")
    func scoreSeparation() throws {
        let reg = try TranslationRegistrar(reference: Self.reference.addingNoise(sigma: Self.noise, seed: 5).quantised8())
        let other = Texture(seed: 424242, width: Self.width, height: Self.height)
        var matches: [Double] = [], nonMatches: [Double] = []
        var rng = TestRandom(seed: 77)
        for i in 0..<8 {
            let dx = (rng.uniform() * 2 - 1) * 30, dy = (rng.uniform() * 2 - 1) * 22
            // Noisy, 8-bit, shifted, with moving objects; the last ones harder
            // (stronger noise, more occlusion).
            let sigma = i < 6 ? Self.noise : 0.05
            let objects = i < 6 ? 3 : 8
            let f = Self.texture.render(width: Self.width, height: Self.height, dx: dx, dy: dy)
                .pasting(other.render(width: Self.width, height: Self.height), rectangles: objects, maxSide: 80, seed: UInt64(i))
                .addingNoise(sigma: sigma, seed: UInt64(200 + i)).quantised8()
            let e = try reg.estimate(f)
            matches.append(e.score)
            #expect(abs(e.dx - dx) < 0.15 && abs(e.dy - dy) < 0.15, "match \(i): (\(e.dx), \(e.dy)) vs (\(dx), \(dy))")
        }
        for i in 0..<6 {
            let t = Texture(seed: 1000 + UInt64(i), width: Self.width, height: Self.height)
            nonMatches.append(try reg.estimate(t.render(width: Self.width, height: Self.height)
                .addingNoise(sigma: Self.noise, seed: UInt64(500 + i)).quantised8()).score)
        }
        let pureNoise = Plane(width: Self.width, height: Self.height, repeating: 0.5).addingNoise(sigma: 0.1, seed: 3)
        nonMatches.append(try reg.estimate(pureNoise).score)
        let blanks = [Plane(width: Self.width, height: Self.height, repeating: 0.5),
                      Plane(width: Self.width, height: Self.height, repeating: 0)]
        let blankScores = try blanks.map { try reg.estimate($0).score }
        print("scores: matches \(matches.map { String(format: "%.3f", $0) }), unrelated \(nonMatches.map { String(format: "%.4f", $0) }), blank \(blankScores)")
        let threshold = TranslationOptions.defaultMinimumScore
        // The threshold must sit between the distributions with margin: at
        // least 2× above the best unrelated score (the random-peak floor
        // fluctuates little) and 1.5× below the worst (hardest) match.
        #expect((matches.min() ?? 0) > 1.5 * threshold)
        #expect((nonMatches.max() ?? 1) < threshold / 2)
        #expect(blankScores.allSatisfy { $0 == 0 })
        #expect(try reg.estimate(blanks[0]).isAccepted == false)
    }

    @Test("blank reference and blank frames give score 0, no NaN")
    func blankPlanes() throws {
        let blank = Plane(width: 64, height: 48, repeating: 0.3)
        let reg = try TranslationRegistrar(reference: blank)
        let e1 = try reg.estimate(Self.texture.render(width: 64, height: 48))
        let e2 = try reg.estimate(blank)
        for e in [e1, e2] {
            #expect(e.score == 0 && e.dx == 0 && e.dy == 0 && !e.isAccepted)
        }
    }

    @Test("identical frame: zero shift, score near 1")
    func identical() throws {
        let reg = try TranslationRegistrar(reference: Self.reference)
        let e = try reg.estimate(Self.reference)
        #expect(abs(e.dx) < 1e-3 && abs(e.dy) < 1e-3)
        // Not 1: the test texture is so band-limited that ~40 % of the bins
        // hold only float rounding and fall under the spectrum epsilon
        // (zeroed); real images fill more of the spectrum.
        #expect(e.score > 0.5 && e.score <= 1)
    }

    @Test("bad input: size mismatch and too small planes throw")
    func badInput() throws {
        let reg = try TranslationRegistrar(reference: Self.reference)
        #expect(throws: RegistrationError.self) { try reg.estimate(Plane(width: 10, height: 10)) }
        #expect(throws: RegistrationError.self) { try TranslationRegistrar(reference: Plane(width: 8, height: 100)) }
        #expect(throws: RegistrationError.self) { try TranslationRegistrar(reference: Plane(width: 0, height: 0)) }
    }

    @Test("concurrent estimates equal sequential ones")
    func concurrency() async throws {
        let reg = try TranslationRegistrar(reference: Self.reference)
        let frames = (0..<6).map { frame(dx: Double($0) * 1.7 - 4, dy: 2.3 - Double($0), seed: UInt64(300 + $0)) }
        let sequential = try frames.map { try reg.estimate($0) }
        let parallel = try await withThrowingTaskGroup(of: (Int, TranslationEstimate).self) { group in
            for (i, f) in frames.enumerated() { group.addTask { (i, try reg.estimate(f)) } }
            var out = [TranslationEstimate?](repeating: nil, count: frames.count)
            for try await (i, e) in group { out[i] = e }
            return out
        }
        #expect(parallel == sequential.map { Optional($0) })
    }
}
