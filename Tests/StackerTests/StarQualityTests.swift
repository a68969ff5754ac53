import Foundation
import Testing
import Registration
import SceneGen
@testable import Stacker
import TestSupport

/// Frame quality from stars (`--keep-by`, `--weights fwhm|stars`) on a
/// generated star session of 13 lights in which three frames are spoiled
/// after rendering: one blurred (large FWHM), one trailed (elongated
/// stars), one under thin cloud (few stars, bright sky).
@Suite("Frame quality from stars")
struct StarQualityTests {
    /// The spoiled frames of `session()`.
    static let blurred = 3, trailed = 6, clouded = 9

    /// The 13-light session of `AstroStackingTests.session` with frames
    /// `blurred`, `trailed` and `clouded` rewritten:
    /// - blurred: a Gaussian of σ = 1.6 px (FWHM 2.8 → ≈ 4.7 px);
    /// - trailed: the mean of the frame shifted by 0…3 px along x (a 4-px
    ///   trail: axis ratio ≈ 1.4, roundness ≈ 0.73; longer trails exceed
    ///   the detector's elongation limit and leave too few stars to align);
    /// - clouded: star and sky light × 0.7 plus a cloud glow of 0.03 (on
    ///   the 0…1 scale of the 16-bit file, 3.5 × the sky) with noise of
    ///   σ = 0.00005 (half the sky's ≈ 0.0001): the faint stars drown
    ///   (measured: 15 found against ≈ 68), and enough stay to align it.
    static func session() throws -> AstroStackingTests.Session {
        let s = try AstroStackingTests.session(seed: 31)
        var rng = TestRandom(seed: 313)
        for (index, spoil) in [(blurred, { (p: Plane) in gaussianBlur(p, sigma: 1.6) }),
                               (trailed, { (p: Plane) in trail(p, length: 4) }),
                               (clouded, { (p: Plane) in
                                   Plane(width: p.width, height: p.height, pixels: p.pixels.map {
                                       min(1, max(0, 0.7 * $0 + 0.03 + Float(0.00005 * rng.gaussian())))
                                   })
                               })] {
            let path = s.lights[index]
            let image = try ImageFile.read(path).image
            let spoiled = Image(width: image.width, height: image.height, planes: image.planes.map(spoil))
            try ImageFile.write(spoiled, to: path, options: EncodeOptions(bitDepth: 16))
        }
        return s
    }

    /// `p` convolved with a Gaussian of `sigma` pixels (separable, edges clamped).
    static func gaussianBlur(_ p: Plane, sigma: Double) -> Plane {
        let r = Int((3 * sigma).rounded(.up))
        let taps = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = taps.reduce(0, +)
        let k = taps.map { Float($0 / total) }
        func pass(_ src: Plane, horizontal: Bool) -> Plane {
            var out = src
            for y in 0..<src.height {
                for x in 0..<src.width {
                    var s: Float = 0
                    for (i, w) in k.enumerated() {
                        let d = i - r
                        s += w * (horizontal ? src[min(src.width - 1, max(0, x + d)), y]
                                             : src[x, min(src.height - 1, max(0, y + d))])
                    }
                    out[x, y] = s
                }
            }
            return out
        }
        return pass(pass(p, horizontal: true), horizontal: false)
    }

    /// The mean of `p` shifted by 0…length−1 pixels along x (edges clamped):
    /// a star trailed by a mount that slipped during the exposure.
    static func trail(_ p: Plane, length: Int) -> Plane {
        var out = p
        for y in 0..<p.height {
            for x in 0..<p.width {
                var s: Float = 0
                for d in 0..<length { s += p[min(p.width - 1, x + d), y] }
                out[x, y] = s / Float(length)
            }
        }
        return out
    }

    /// The median of `values`.
    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    @Test("every star-aligned frame records FWHM, roundness, star count and background, and each spoiled frame stands out by its own measure")
    func measuresRecorded() throws {
        let s = try Self.session()
        defer { s.remove() }
        let r = try AstroStackingTests.run(s, mode: .average, align: .stars)
        let frames = r.frames
        for (i, f) in frames.enumerated() {
            #expect(f.used, "frame \(i): \(f.reason ?? "")")
            print(String(format: "frame %2d: fwhm %.3f roundness %.3f stars %d background %.5f", i,
                         f.fwhm ?? -1, f.roundness ?? -1, f.starsFound ?? -1, f.background ?? -1))
        }
        let good = frames.indices.filter { ![Self.blurred, Self.trailed, Self.clouded].contains($0) }
        let fwhm = Self.median(good.map { frames[$0].fwhm ?? 0 })
        let roundness = Self.median(good.map { frames[$0].roundness ?? 0 })
        let stars = Self.median(good.map { Double(frames[$0].starsFound ?? 0) })
        let background = good.map { frames[$0].background ?? 1 }.max()!
        // Blur of σ 1.6 px on FWHM 2.8 px gives ≈ 4.7 px: far above 1.3 × the good frames'.
        #expect((frames[Self.blurred].fwhm ?? 0) > 1.3 * fwhm)
        // A 4-px trail on a 2.8-px star: axis ratio ≈ 1.4, so roundness ≈ 0.73 against ≈ 0.9.
        #expect((frames[Self.trailed].roundness ?? 1) < roundness - 0.1)
        #expect(Double(frames[Self.clouded].starsFound ?? .max) < stars / 2)
        #expect((frames[Self.clouded].background ?? 0) > 2 * background)
        // The good frames' own measures: round stars of the rendered width.
        #expect(abs(fwhm - 2.8) < 0.3 && roundness > 0.8)
    }
}
