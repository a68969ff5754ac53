import Testing
import Foundation
import TestSupport
import SceneGen
import Registration
@testable import Stacker

/// `RCDDebayer`, whose rows are split by column parity, against the
/// whole-row version it replaced (`RCDWholeRowReference`): the split only
/// skips the sites a step does not fill, and the steps that blend two
/// quotients now divide once (`RCDRowKernels`), which moves the last bits
/// only: every sample must stay within 1e-5 of the reference's.
@Suite("RCD half rows")
struct RCDHalfRowTests {
    /// A 256 × 256 mosaic with detail at every scale: a smooth colour
    /// field, sharp-edged stripes and discs, and uniform noise, with
    /// samples below 0 (which RCD clamps) and above 1.
    static func detailedMosaic(seed: UInt64) -> Plane {
        let w = 256, h = 256
        var rng = SplitMix64(seed: seed, stream: 25)
        return Plane(width: w, height: h, pixels: (0..<(w * h)).map { i in
            let x = Float(i % w), y = Float(i / w)
            var v = 0.4 + 0.25 * sin(x * 0.05) * cos(y * 0.07)
            if Int(x + 0.6 * y) % 23 < 4 { v += 0.5 }                               // slanted stripes
            if (x - 170) * (x - 170) + (y - 90) * (y - 90) < 900 { v -= 0.35 }       // a disc
            if Int(y) % 9 == 0 { v += 0.3 }                                          // thin rows
            return v + 0.3 * (Float(rng.unit()) - 0.5)
        })
    }

    /// The part of `m` from column `dx`, row `dy` on.
    static func crop(_ m: Plane, dx: Int, dy: Int) -> Plane {
        let w = m.width - dx, h = m.height - dy
        return Plane(width: w, height: h, pixels: (0..<(w * h)).map { m.pixels[(($0 / w) + dy) * m.width + ($0 % w) + dx] })
    }

    /// The largest difference between two images' samples, and how many differ at all.
    static func difference(_ a: Image, _ b: Image) -> (worst: Float, differing: Int) {
        var worst: Float = 0, differing = 0
        for c in 0..<3 {
            for (x, y) in zip(a.planes[c].pixels, b.planes[c].pixels) where x.bitPattern != y.bitPattern {
                differing += 1
                worst = max(worst, abs(x - y))
            }
        }
        return (worst, differing)
    }

    @Test("the split rows give the whole-row output within 1e-5: a 256² detailed mosaic from each of its 4 top-left pixels (every pattern, odd sizes)")
    func sameAsWholeRows() {
        // One RGGB mosaic seen from (0, 0), (1, 0), (0, 1) and (1, 1): the
        // four patterns, on even and odd widths and heights. (Lane widths
        // 2 and 8 are `narrow`'s and `DebayerTests.laneWidths`'.)
        let full = Self.detailedMosaic(seed: 2530)
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let m = Self.crop(full, dx: dx, dy: dy), p = BayerPattern.rggb.shifted(dx: dx, dy: dy)
            let reference = RCDWholeRowReference.image(m, pattern: p)
            let (worst, differing) = Self.difference(RCDDebayer.image(m, pattern: p), reference)
            print("RCD half rows, \(p) from (\(dx), \(dy)): \(differing) of \(3 * m.pixels.count) samples differ, by up to \(worst)")
            #expect(worst <= 1e-5, "\(p) from (\(dx), \(dy)): \(differing) samples differ, by up to \(worst)")
        }
    }

    @Test("narrow mosaics, where a row has fewer sites than lanes, match the whole-row output within 1e-5")
    func narrow() {
        var rng = SplitMix64(seed: 2531, stream: 5)
        for (w, h) in [(10, 10), (11, 13), (12, 10), (17, 11), (26, 18), (33, 12), (40, 14)] {
            let m = Plane(width: w, height: h, pixels: (0..<(w * h)).map { _ in Float(rng.unit()) * 1.2 - 0.1 })
            for pattern in BayerPattern.allCases {
                let reference = RCDWholeRowReference.image(m, pattern: pattern, lanes: SIMD2<Float>.self)
                let split = RCDDebayer.image(m, pattern: pattern, lanes: SIMD16<Float>.self)
                let (worst, differing) = Self.difference(split, reference)
                #expect(worst <= 1e-5, "\(w)×\(h) \(pattern): \(differing) samples differ, by up to \(worst)")
            }
        }
    }
}
