import Testing
import Registration
@testable import Stacker
import TestSupport
import SceneGen

/// `--debayer rcd` (`RCDDebayer`) against the truth it was sampled from.
@Suite("RCD debayer")
struct RCDDebayerTests {
    /// The mosaic of `truth` under `pattern` (each pixel keeps its colour's sample).
    static func mosaic(_ truth: Image, _ pattern: BayerPattern) -> Plane {
        let w = truth.width
        return Plane(width: w, height: truth.height, pixels: (0..<truth.pixelCount).map {
            truth.planes[pattern.channel(x: $0 % w, y: $0 / w)].pixels[$0] })
    }

    @Test("flat colour comes back exactly, for every pattern, border included")
    func flat() {
        let w = 23, h = 18
        let colour: [Float] = [0.7, 0.4, 0.2]
        for pattern in BayerPattern.allCases {
            let m = Plane(width: w, height: h, pixels: (0..<(w * h)).map { colour[pattern.channel(x: $0 % w, y: $0 / w)] })
            let rgb = Debayer.image(m, pattern: pattern, method: .rcd)
            for c in 0..<3 {
                let worst = rgb.planes[c].pixels.map { abs($0 - colour[c]) }.max() ?? 1
                #expect(worst < 1e-5, "\(pattern) channel \(c): \(worst)")
            }
        }
    }

    @Test("on a colourful scene with fine detail RCD comes closer to the truth than bilinear, for every pattern")
    func beatsBilinear() {
        let truth = RAWCodecTests.Scene(seed: 2521, count: 160, sigma: 0.8...3).truth()
        for pattern in BayerPattern.allCases {
            let m = Self.mosaic(truth, pattern)
            let rcd = ImageMetrics.psnr(Debayer.image(m, pattern: pattern, method: .rcd), truth, border: 4)
            let bilinear = ImageMetrics.psnr(Debayer.image(m, pattern: pattern, method: .bilinear), truth, border: 4)
            print("RCD \(pattern): \(rcd) dB, bilinear \(bilinear) dB")
            #expect(rcd > bilinear + 3, "\(pattern): RCD \(rcd) dB, bilinear \(bilinear) dB")
        }
    }

    @Test("the result does not depend on how many columns the kernels take at a time (2, 8, 16)")
    func laneWidths() {
        var rng = SplitMix64(seed: 2525, stream: 5)
        for (w, h) in [(37, 29), (24, 18)] {
            // Values below 0 too, which the steps clamp.
            let m = Plane(width: w, height: h, pixels: (0..<(w * h)).map { _ in Float(rng.unit()) * 1.2 - 0.1 })
            for pattern in BayerPattern.allCases {
                let eight = RCDDebayer.image(m, pattern: pattern, lanes: SIMD8<Float>.self)
                let two = RCDDebayer.image(m, pattern: pattern, lanes: SIMD2<Float>.self)
                let sixteen = RCDDebayer.image(m, pattern: pattern, lanes: SIMD16<Float>.self)
                for c in 0..<3 {
                    let differing = (0..<(w * h)).filter {
                        eight.planes[c].pixels[$0] != two.planes[c].pixels[$0]
                            || eight.planes[c].pixels[$0] != sixteen.planes[c].pixels[$0] }.count
                    #expect(differing == 0, "\(w)×\(h) \(pattern) channel \(c): \(differing) pixels differ")
                }
            }
        }
    }
}
