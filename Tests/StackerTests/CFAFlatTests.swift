import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

extension HandMadeFITS {
    /// Writes `values` (0…1, row 0 the top) at `path` as capture software
    /// does: 16-bit unsigned (BZERO 32768), `ROWORDER = 'TOP-DOWN'`, and
    /// `BAYERPAT = 'RGGB'` when `bayer`; returns `path`.
    static func writeCapture(_ values: [Double], width: Int, to path: String, bayer: Bool) throws -> String {
        let samples = values.map { UInt16((min(max($0, 0), 1) * 65535).rounded()) }
        let cards = cards(bitpix: 16, axes: [width, values.count / width]) + ["BZERO   =                32768", "ROWORDER= 'TOP-DOWN'"]
            + (bayer ? ["BAYERPAT= 'RGGB'"] : [])
        try Data(file(cards: cards, data: FITSCaptureTests.data16(samples, width: width, bottomUp: false)))
            .write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// A master flat on a CFA mosaic is normalised per position of the 2 × 2
/// pattern, so the colour of the flat-field lamp does not tint the lights.
@Suite("Flat normalisation per CFA colour")
struct CFAFlatTests {
    static let width = 128, height = 96
    /// The flat-field lamp's colour as the sensor sees it (R, G, B).
    static let lamp: [Double] = [1.0, 0.6, 0.3]

    /// The optics' shading: 35 % darker in the corners.
    static func vignetting(_ x: Int, _ y: Int) -> Double {
        let u = Double(x) / Double(width) - 0.5, v = Double(y) / Double(height) - 0.5
        return 1 - 0.7 * (u * u + v * v)
    }

    /// The scene in linear RGB: a smooth colour gradient, (x, y) read from
    /// a frame displaced by (dx, dy).
    static func scene(_ c: Int, _ x: Double, _ y: Double) -> Double {
        let fx = x / Double(width), fy = y / Double(height)
        return [0.20 + 0.10 * fx, 0.30 + 0.05 * fy, 0.15 + 0.08 * (1 - fx)][c]
    }

    /// `values(c, x, y)` sampled on the RGGB mosaic.
    static func mosaic(_ values: (Int, Int, Int) -> Double) -> Plane {
        Plane(width: width, height: height, pixels: (0..<(width * height)).map { i in
            let x = i % width, y = i / width
            return Float(values(BayerPattern.rggb.channel(x: x, y: y), x, y))
        })
    }

    /// Per channel, the mean over the inner region of `image` over the
    /// truth's, divided by green's: 1, 1, 1 when the colour balance is kept.
    static func balance(_ image: Image, _ truth: Image, border: Int = 8) -> [Double] {
        let means = (0..<3).map { c -> Double in
            var a = 0.0, b = 0.0
            for y in border..<(image.height - border) {
                for x in border..<(image.width - border) {
                    a += Double(image.planes[c].pixels[y * image.width + x])
                    b += Double(truth.planes[c].pixels[y * image.width + x])
                }
            }
            return a / b
        }
        return means.map { $0 / means[1] }
    }

    static var truth: Image {
        Image(width: width, height: height, planes: (0..<3).map { c in
            Plane(width: width, height: height, pixels: (0..<(width * height)).map {
                Float(scene(c, Double($0 % width), Double($0 / width))) })
        })
    }

    @Test("a flat lit by a 1.0/0.6/0.3 lamp keeps the lights' colour balance; one normalisation for the whole mosaic tints them")
    func lampColourDoesNotTint() {
        let flat = Image(width: Self.width, height: Self.height, planes: [Self.mosaic { c, x, y in 0.5 * Self.lamp[c] * Self.vignetting(x, y) }])
        let light = Image(width: Self.width, height: Self.height, planes: [Self.mosaic { c, x, y in
            Self.scene(c, Double(x), Double(y)) * Self.vignetting(x, y) }])
        func calibrated(mosaic: Bool) -> Image {
            var image = light
            Calibration(bias: nil, dark: nil, flat: flat, cosmeticSigma: nil, mosaic: mosaic).apply(to: &image)
            return Debayer.image(image.planes[0], pattern: .rggb, method: .bilinear)
        }
        let perColour = Self.balance(calibrated(mosaic: true), Self.truth)
        let single = Self.balance(calibrated(mosaic: false), Self.truth)
        let perColourError = perColour.map { abs($0 - 1) }.max()!
        let singleError = single.map { abs($0 - 1) }.max()!
        print("CFA flat: R/G, B/G balance per CFA colour \(perColour) (worst error \(perColourError)), single normalisation \(single) (worst error \(singleError))")
        // Per colour: only the bilinear debayer's interpolation of the smooth
        // gradient and vignetting is left, well under 0.5 %.
        #expect(perColourError < 0.005, "per-colour balance \(perColour)")
        // One mean for the mosaic divides the lamp colour into the lights:
        // R/G off by 0.6 / 1.0, B/G by 0.6 / 0.3.
        #expect(singleError > 0.5, "single-normalisation balance \(single)")
    }

    @Test("a mono flat is normalised by one mean, as before: per-position normalisation only for mosaics")
    func monoFlatUnchanged() {
        // A fine 2 × 2 structure in a mono flat (a real pattern in the
        // optics) is kept by the mono normalisation.
        let flat = Image(width: 8, height: 8, planes: [Plane(width: 8, height: 8, pixels: (0..<64).map { Float(1 + ($0 & 1)) })])
        let normalised = Calibration.normalisedFlat(flat, bias: nil)
        #expect(normalised.planes[0].pixels[0] == Float(1.0 / 1.5) && normalised.planes[0].pixels[1] == Float(2.0 / 1.5))
        let perPosition = Calibration.normalisedFlat(flat, bias: nil, mosaic: true)
        #expect(perPosition.planes[0].pixels.allSatisfy { $0 == 1 })
    }

    @Test("the pipeline normalises the flat per CFA colour for Bayer FITS lights: the stack's colour balance is the scene's")
    func bayerSessionKeepsBalance() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        func write(_ name: String, _ plane: Plane, bayer: Bool) throws -> String {
            try HandMadeFITS.writeCapture(plane.pixels.map(Double.init), width: plane.width, to: folder + "/" + name, bayer: bayer)
        }
        var rng = TestRandom(seed: 2551)
        var lights: [String] = []
        for k in 0..<3 {
            lights.append(try write("light\(k).fits", Self.mosaic { c, x, y in
                Self.scene(c, Double(x), Double(y)) * Self.vignetting(x, y) + 0.002 * rng.gaussian() }, bayer: true))
        }
        var options = StackOptions()
        options.alignment = .none
        options.threads = 2
        options.calibration.flat = [FilePath(try write("flat.fits", Self.mosaic { c, x, y in
            0.5 * Self.lamp[c] * Self.vignetting(x, y) }, bayer: false))]
        let result = try stack(lights.map { FrameSource.path($0) }, options: options)
        #expect(result.image.channels == 3)
        let balance = Self.balance(result.image, Self.truth)
        let error = balance.map { abs($0 - 1) }.max()!
        print("CFA flat through the pipeline: balance \(balance), worst R/G or B/G error \(error)")
        // Noise 0.002 per sample averages out over ~10⁴ samples; the 16-bit
        // quantisation and bilinear debayer stay under 0.5 %.
        #expect(error < 0.005, "balance \(balance)")
    }
}
