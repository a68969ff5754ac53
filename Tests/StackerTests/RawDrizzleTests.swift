import Foundation
import Registration
import Stacker
import TestSupport
import Testing

/// Bayer drizzle of camera raws: the mosaic drops in camera colour, after
/// the white balance, and the raw's colour matrix comes last, so the
/// drizzle's colour is the 1× stack's.
@Suite("Raw drizzle")
struct RawDrizzleTests {
    @Test("a flat raw scene drizzles to the 1× stack's colour, average and sigma-clip")
    func colourMatchesOneX() throws {
        let w = 48, h = 40, levels: [Double] = [14000, 20000, 16000]
        let folder = try TestFiles.temporaryFolder("raw-drizzle")
        var rng = TestRandom(seed: 21)
        // A camera whose channels mix (XYZ → sRGB, then a cross-talk), so
        // that its colour matrix is far from the identity.
        let srgb = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]
        let mix = [0.7, 0.3, 0, 0.15, 0.7, 0.15, 0, 0.35, 0.65]
        var camera = [Double](repeating: 0, count: 9)
        for row in 0..<3 { for column in 0..<3 { for k in 0..<3 {
            camera[row * 3 + column] += mix[row * 3 + k] * srgb[k * 3 + column]
        } } }
        var paths: [String] = []
        for f in 0..<4 {
            var samples = [UInt16](repeating: 0, count: w * h)
            for y in 0..<h { for x in 0..<w {
                let colour = BayerPattern.rggb.channel(x: x, y: y)
                samples[y * w + x] = UInt16(levels[colour] + 60 * rng.gaussian())
            } }
            let path = folder + "/f\(f).dng"
            try Data(HandMadeDNG(width: w, height: h, colorMatrix: camera).bytes(samples: samples)).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        for mode in [StackMode.average, .sigmaClip] {
            var options = StackOptions()
            options.threads = 2
            options.mode = mode
            options.givenTransforms = [.identity, .translation(dx: 0.5, dy: 0.25), .translation(dx: -0.4, dy: 0.6),
                                       .translation(dx: 0.2, dy: -0.5)]
            let oneX = try stack(paths.map { .path($0) }, options: options).image
            options.drizzle = DrizzleOptions(scale: 2, pixfrac: 1)
            let drizzled = try stack(paths.map { .path($0) }, options: options).image
            for c in 0..<3 {
                let a = Self.interiorMean(oneX.planes[c], border: 3), b = Self.interiorMean(drizzled.planes[c], border: 6)
                #expect(abs(a - b) <= 0.01 * max(a, 0.05), "\(mode.rawValue), channel \(c): 1× \(a), drizzle \(b)")
            }
        }
    }

    static func interiorMean(_ plane: Plane, border: Int) -> Double {
        var sum = 0.0, n = 0
        for y in border..<(plane.height - border) { for x in border..<(plane.width - border) { sum += Double(plane[x, y]); n += 1 } }
        return sum / Double(n)
    }
}
