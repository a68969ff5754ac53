import Foundation
@testable import Registration
import Testing
import TestSupport

/// Frames with a constant fill (issue 22, item 4): a fill identical in both
/// frames correlates with itself at shift 0, and its edges dominated the
/// phase correlation, so large shifts were reported as (0, 0) and accepted.
/// The fill is detected (`FillMask`) and such frames are registered by the
/// masked normalised cross-correlation (`MaskedCorrelation`), refined with
/// the fill left out, and accepted only when the overlap agreement confirms.
@Suite("Masked registration")
struct MaskedRegistrationTests {
    static let width = 320, height = 240

    /// `plane` with every pixel where `keep` is false set to `fill`.
    static func filled(_ plane: Plane, fill: Float = 0, keep: (Int, Int) -> Bool) -> Plane {
        var p = plane
        for y in 0..<p.height { for x in 0..<p.width where !keep(x, y) { p[x, y] = fill } }
        return p
    }

    /// An ultrasound-like fan: a 70° wedge from the top centre, out to 90 % of the height.
    static func fan(_ x: Int, _ y: Int) -> Bool {
        let ux = Double(x) - Double(width) / 2, uy = Double(y) + 10
        let r = (ux * ux + uy * uy).squareRoot(), angle = atan2(ux, uy) * 180 / .pi
        return r < 0.9 * Double(height) && abs(angle) < 35
    }

    /// Vignetted corners: a disc of radius 0.55 × width around the centre.
    static func disc(_ x: Int, _ y: Int) -> Bool {
        let ux = Double(x) - Double(width) / 2, uy = Double(y) - Double(height) / 2
        return (ux * ux + uy * uy).squareRoot() < 0.55 * Double(width)
    }

    /// A textured pair, 8-bit, noise σ = 0.005: the frame shows the
    /// reference at `(x + dx, y + dy)`; the fill (`keep` false) sits at the
    /// same place in both unless `frameOnly`.
    static func pair(dx: Double, dy: Double, seed: UInt64, frameOnly: Bool = false,
                     keep: (Int, Int) -> Bool) -> (reference: Plane, frame: Plane) {
        let texture = Texture(seed: seed, width: width, height: height, margin: 140)
        let reference = texture.render(width: width, height: height).addingNoise(sigma: 0.005, seed: seed + 1).quantised8()
        let frame = texture.render(width: width, height: height, dx: dx, dy: dy)
            .addingNoise(sigma: 0.005, seed: seed + 2).quantised8()
        return (frameOnly ? reference : filled(reference, keep: keep), filled(frame, keep: keep))
    }

    @Test("a fill shared by both frames (fan, vignetted corners) or only in the frame (an earlier warp): the shift within 0.05 px, accepted",
          arguments: [
              (name: "fan", dx: -40.3, dy: 35.6, frameOnly: false),
              (name: "disc", dx: 23.4, dy: -17.8, frameOnly: false),
              (name: "warp border", dx: 12.2, dy: 8.7, frameOnly: true),
          ])
    func maskedShift(_ c: (name: String, dx: Double, dy: Double, frameOnly: Bool)) throws {
        let keep: (Int, Int) -> Bool
        switch c.name {
        case "fan": keep = Self.fan
        case "disc": keep = Self.disc
        default: keep = { x, y in x >= 31 && y >= 22 }     // black left and top bands, as a warp leaves them
        }
        let (reference, frame) = Self.pair(dx: c.dx, dy: c.dy, seed: 61, frameOnly: c.frameOnly, keep: keep)
        let e = try TranslationRegistrar(reference: reference).estimate(frame)
        let error = max(abs(e.dx - c.dx), abs(e.dy - c.dy))
        print("masked \(c.name): (\(e.dx), \(e.dy)) truth (\(c.dx), \(c.dy)) error \(error) px, score \(e.score), agreement \(e.overlapAgreement ?? -1)")
        #expect(e.masked)
        #expect(error < 0.05, "\(c.name): (\(e.dx), \(e.dy))")
        #expect(e.isAccepted)
    }

    @Test("a fill is found only where it is: ordinary and 8-bit textured planes have none; a fan's is its outside")
    func fillDetection() {
        let (reference, frame) = Self.pair(dx: 5, dy: 3, seed: 62, keep: Self.fan)
        let plain = Texture(seed: 62, width: Self.width, height: Self.height).render(width: Self.width, height: Self.height)
        #expect(FillMask.detect(plain) == nil)
        #expect(FillMask.detect(plain.addingNoise(sigma: 0.005, seed: 1).quantised8()) == nil)
        let mask = try? #require(FillMask.detect(frame))
        var outside = 0
        for y in 0..<Self.height { for x in 0..<Self.width where !Self.fan(x, y) { outside += 1 } }
        // The fill is the outside of the fan (plus any texture pixel that is exactly 0 next to it).
        #expect(abs((mask?.filledFraction ?? 0) - Double(outside) / Double(Self.width * Self.height)) < 0.005)
        #expect(FillMask.detect(reference) != nil)
        // A thin border (under 1 % of the plane) does not count.
        #expect(FillMask.detect(Self.filled(plain, keep: { x, _ in x > 0 })) == nil)
        // A bright constant at the edge (a clipped sky) is content, not a fill.
        let sky = Self.filled(plain, fill: 1, keep: { _, y in y > Self.height / 4 })
        #expect(FillMask.detect(sky) == nil)
        #expect(FillMask.detect(Self.filled(sky, keep: Self.fan)) != nil)
    }

    @Test("growing and shrinking a mask: every pixel within the radius of a fill becomes fill; a coarse pixel is valid only when all its pixels are")
    func dilationAndDownsampling() {
        var rng = TestRandom(seed: 5)
        let w = 37, h = 23
        let valid = (0..<(w * h)).map { _ in UInt8(rng.uniform() < 0.03 ? 0 : 1) }
        let mask = FillMask(width: w, height: h, valid: valid)
        for r in [1, 3] {
            let grown = mask.dilated(by: r)
            for y in 0..<h {
                for x in 0..<w {
                    var near = false
                    for j in max(0, y - r)...min(h - 1, y + r) {
                        for i in max(0, x - r)...min(w - 1, x + r) where valid[j * w + i] == 0 { near = true }
                    }
                    #expect(grown.valid[y * w + x] == (near ? 0 : 1), "r \(r) at (\(x), \(y))")
                }
            }
        }
        let small = mask.downsampled(by: 2)
        #expect(small.width == w / 2 && small.height == h / 2)
        for y in 0..<small.height {
            for x in 0..<small.width {
                let all = valid[2 * y * w + 2 * x] & valid[2 * y * w + 2 * x + 1] & valid[(2 * y + 1) * w + 2 * x]
                    & valid[(2 * y + 1) * w + 2 * x + 1]
                #expect(small.valid[y * small.width + x] == all)
            }
        }
    }

    @Test("the matching frame without a fill keeps the unmasked path")
    func unmaskedKeepsFastPath() throws {
        let texture = Texture(seed: 63, width: Self.width, height: Self.height)
        let reference = texture.render(width: Self.width, height: Self.height).quantised8()
        let frame = texture.render(width: Self.width, height: Self.height, dx: 3.3, dy: -2.1).quantised8()
        let e = try TranslationRegistrar(reference: reference).estimate(frame)
        #expect(!e.masked)
        #expect(abs(e.dx - 3.3) < 0.05 && abs(e.dy + 2.1) < 0.05)
    }

    @Test("an unrelated frame under the same fill is refused: the overlap agreement vetoes whatever the correlation")
    func contradictedMatchIsVetoed() throws {
        var seen: [String] = []
        for seed in [70, 71, 72] as [UInt64] {
            let (reference, _) = Self.pair(dx: 0, dy: 0, seed: seed, keep: Self.fan)
            let (_, unrelated) = Self.pair(dx: 9, dy: -4, seed: seed + 100, keep: Self.fan)
            let e = try TranslationRegistrar(reference: reference).estimate(unrelated)
            seen.append("score \(e.score) agreement \(e.overlapAgreement ?? -1) at (\(e.dx), \(e.dy))")
            #expect(e.masked)
            #expect(!e.isAccepted)
            #expect((e.overlapAgreement ?? 1) < TranslationOptions.defaultMinimumAgreement)
        }
        print("unrelated frames under one fan: \(seen)")
        // The veto, not the score, refuses: a masked correlation above the
        // score threshold with an agreement below its own is refused.
        let options = TranslationOptions()
        let (reference, _) = Self.pair(dx: 0, dy: 0, seed: 70, keep: Self.fan)
        let (_, unrelated) = Self.pair(dx: 9, dy: -4, seed: 170, keep: Self.fan)
        let e = try TranslationRegistrar(reference: reference, options: options).estimate(unrelated)
        // Measured: 0.23 (the best of ~280 000 shifts of unrelated smooth texture).
        #expect(e.score >= options.minimumScore)
        #expect(!e.isAccepted)
        #expect(options.maskedRejection(score: e.score, overlapAgreement: e.overlapAgreement ?? 0).contains("overlap agreement"))
    }

    @Test("a blank frame and an all-fill reference score 0 and are refused")
    func blankUnderMask() throws {
        let (reference, _) = Self.pair(dx: 0, dy: 0, seed: 73, keep: Self.fan)
        let blank = Plane(width: Self.width, height: Self.height, repeating: 0)
        let e = try TranslationRegistrar(reference: reference).estimate(blank)
        #expect(e.score == 0 && !e.isAccepted)
        let f = try TranslationRegistrar(reference: blank).estimate(reference)
        #expect(f.score == 0 && !f.isAccepted)
    }
}
