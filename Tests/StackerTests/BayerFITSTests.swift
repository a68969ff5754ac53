import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// Bayer (CFA) mosaics: the pattern bookkeeping, the bilinear debayer, and
/// a generated one-shot-colour session as NINA writes it (16-bit FITS,
/// `BAYERPAT = 'RGGB'`, `ROWORDER = 'TOP-DOWN'`) stacked end to end.
@Suite("Bayer mosaics")
struct BayerFITSTests {
    @Test("pattern shifts: an odd column swaps within rows, an odd row swaps the rows")
    func shifts() {
        #expect(BayerPattern.rggb.shifted(dx: 1, dy: 0) == .grbg)
        #expect(BayerPattern.rggb.shifted(dx: 0, dy: 1) == .gbrg)
        #expect(BayerPattern.rggb.shifted(dx: 1, dy: 1) == .bggr)
        #expect(BayerPattern.gbrg.shifted(dx: 2, dy: 2) == .gbrg)
        for p in BayerPattern.allCases {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let s = p.shifted(dx: dx, dy: dy)
                for y in 0..<4 { for x in 0..<4 { #expect(s.channel(x: x, y: y) == p.channel(x: x + dx, y: y + dy)) } }
            }
        }
        #expect(BayerPattern(name: "rggb ") == .rggb && BayerPattern(name: "RGBG") == nil)
    }

    @Test("BAYERPAT is read in stored order: TOP-DOWN as is, bottom-up by the height's parity, offsets shift it")
    func uprightPattern() {
        #expect(FITSCodec.uprightPattern(.rggb, xOffset: 0, yOffset: 0, height: 10, topDown: true) == .rggb)
        #expect(FITSCodec.uprightPattern(.rggb, xOffset: 0, yOffset: 0, height: 11, topDown: false) == .rggb)
        #expect(FITSCodec.uprightPattern(.rggb, xOffset: 0, yOffset: 0, height: 10, topDown: false) == .gbrg)
        #expect(FITSCodec.uprightPattern(.rggb, xOffset: 1, yOffset: 1, height: 10, topDown: true) == .bggr)
    }

    @Test("bilinear debayer: flat colour comes back exactly everywhere; a linear ramp exactly inside")
    func bilinear() {
        let w = 9, h = 7
        for pattern in BayerPattern.allCases {
            let colour: [Float] = [0.7, 0.4, 0.2]
            let flat = Plane(width: w, height: h, pixels: (0..<(w * h)).map { colour[pattern.channel(x: $0 % w, y: $0 / w)] })
            let rgb = Debayer.image(flat, pattern: pattern, method: .bilinear)
            for c in 0..<3 { #expect(rgb.planes[c].pixels.allSatisfy { $0 == colour[c] }, "\(pattern) channel \(c)") }
            // Each channel c is the ramp x + 2y + c; bilinear reproduces a ramp.
            let ramp = Plane(width: w, height: h, pixels: (0..<(w * h)).map { i in
                Float(i % w + 2 * (i / w) + pattern.channel(x: i % w, y: i / w)) })
            let out = Debayer.image(ramp, pattern: pattern, method: .bilinear)
            for c in 0..<3 {
                for y in 1..<(h - 1) { for x in 1..<(w - 1) {
                    #expect(abs(out.planes[c].pixels[y * w + x] - Float(x + 2 * y + c)) < 1e-5)
                } }
            }
        }
    }

    /// A colour star field: background plus Gaussian stars of random
    /// colours, seen from a frame displaced by `(dx, dy)` (its pixel (x, y)
    /// shows the reference at (x + dx, y + dy)).
    struct Field {
        let width = 200, height = 150
        let stars: [(x: Double, y: Double, rgb: [Double])]
        let background: [Double] = [0.04, 0.05, 0.06]
        let sigma = 1.5

        init(seed: UInt64) {
            var rng = TestRandom(seed: seed)
            stars = (0..<70).map { _ in
                let peak = 0.15 + 0.6 * rng.uniform()
                // Reddish, white and bluish stars.
                let tint = [0.4 + 0.6 * rng.uniform(), 0.5 + 0.5 * rng.uniform(), 0.4 + 0.6 * rng.uniform()]
                return (8 + 184 * rng.uniform(), 8 + 134 * rng.uniform(), tint.map { $0 * peak })
            }
        }

        func value(_ c: Int, x: Int, y: Int, dx: Double, dy: Double) -> Double {
            var v = background[c]
            for s in stars {
                let ux = Double(x) + dx - s.x, uy = Double(y) + dy - s.y
                let r2 = ux * ux + uy * uy
                if r2 < 100 { v += s.rgb[c] * exp(-r2 / (2 * sigma * sigma)) }
            }
            return v
        }

        func truth() -> Image {
            Image(width: width, height: height, planes: (0..<3).map { c in
                Plane(width: width, height: height, pixels: (0..<(width * height)).map {
                    Float(value(c, x: $0 % width, y: $0 / width, dx: 0, dy: 0)) })
            })
        }

        /// The RGGB mosaic of a frame displaced by (dx, dy), with noise,
        /// as 16-bit samples (row 0 the top).
        func mosaic(dx: Double, dy: Double, rng: inout TestRandom) -> [UInt16] {
            (0..<(width * height)).map { i in
                let x = i % width, y = i / width
                let v = value(BayerPattern.rggb.channel(x: x, y: y), x: x, y: y, dx: dx, dy: dy) + 0.004 * rng.gaussian()
                return UInt16((min(max(v, 0), 1) * 65535).rounded())
            }
        }
    }

    @Test("mosaic masters calibrate mosaic lights before the debayer: a dark and a vignetted flat, both gray FITS")
    func calibrationOnTheMosaic() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let field = Field(seed: 2503)
        let w = field.width, h = field.height
        // Per-colour amp glow and vignetting, in mosaic pixels.
        let dark = (0..<(w * h)).map { i in [0.06, 0.01, 0.03][BayerPattern.rggb.channel(x: i % w, y: i / w)] + 0.02 * Double(i % w) / Double(w) }
        let gain = (0..<(w * h)).map { i -> Double in
            let x = Double(i % w) / Double(w) - 0.5, y = Double(i / w) / Double(h) - 0.5
            return (1 - 0.8 * (x * x + y * y)) * [0.8, 1, 0.9][BayerPattern.rggb.channel(x: i % w, y: i / w)]
        }
        func write(_ name: String, _ values: [Double], bayer: Bool) throws -> String {
            try HandMadeFITS.writeCapture(values, width: w, to: folder + "/" + name, bayer: bayer)
        }
        var rng = TestRandom(seed: 2504)
        var lights: [String] = []
        for (k, (dx, dy)) in [(0.0, 0.0), (1.0, 2.0), (-2.0, 1.0), (1.5, -1.5), (3.0, 0.5)].enumerated() {
            let clean = field.mosaic(dx: dx, dy: dy, rng: &rng).map { Double($0) / 65535 }
            lights.append(try write("light\(k).fits", (0..<(w * h)).map { clean[$0] * gain[$0] + dark[$0] }, bayer: true))
        }
        var options = StackOptions()
        options.alignment = .stars
        options.threads = 2
        let plain = try stack(lights.map { FrameSource.path($0) }, options: options)
        options.calibration.dark = [FilePath(try write("dark.fits", dark, bayer: false))]
        options.calibration.flat = [FilePath(try write("flat.fits", gain.map { $0 * 0.5 }, bayer: false))]
        let calibrated = try stack(lights.map { FrameSource.path($0) }, options: options)
        #expect(calibrated.image.channels == 3)
        let truth = field.truth()
        // The mosaic flat is divided by the mean of each CFA colour (gain /
        // that colour's mean gain), so the calibrated stack is the truth
        // times each colour's mean gain: the sensor's own colour is kept.
        let meanGain = (0..<3).map { c -> Float in
            let own = gain.indices.filter { BayerPattern.rggb.channel(x: $0 % w, y: $0 / w) == c }
            return Float(own.map { gain[$0] }.reduce(0, +) / Double(own.count))
        }
        let scaled = Image(width: w, height: h, planes: truth.planes.indices.map { c in
            Plane(width: w, height: h, pixels: truth.planes[c].pixels.map { $0 * meanGain[c] }) })
        let with = ImageMetrics.psnr(calibrated.image, scaled, border: 8)
        let without = ImageMetrics.psnr(plain.image, truth, border: 8)
        print("Bayer calibration on the mosaic: \(with) dB calibrated, \(without) dB without")
        #expect(with > 36 && with > without + 6, "calibrated \(with) dB, uncalibrated \(without) dB")
    }

    @Test("an OSC session as Bayer FITS (RGGB, TOP-DOWN) stacks in colour: shifts recovered, colour PSNR beats the gray mosaic stack, star colours kept")
    func oscSession() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let field = Field(seed: 2501)
        // Even, odd and subpixel shifts.
        let shifts: [(Double, Double)] = [(0, 0), (2, 0), (0, 2), (3, 1), (-1, 3), (1.5, -0.5), (-2.25, 1.75), (0.5, 2.5)]
        var rng = TestRandom(seed: 2502)
        var paths: [String] = []
        for (k, (dx, dy)) in shifts.enumerated() {
            let samples = field.mosaic(dx: dx, dy: dy, rng: &rng)
            let bytes = HandMadeFITS.file(
                cards: HandMadeFITS.cards(bitpix: 16, axes: [field.width, field.height])
                    + ["BZERO   =                32768", "ROWORDER= 'TOP-DOWN'", "BAYERPAT= 'RGGB'",
                       "XBAYROFF=                    0", "YBAYROFF=                    0"],
                data: FITSCaptureTests.data16(samples, width: field.width, bottomUp: false))
            let path = folder + "/light\(k).fits"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        #expect(try ImageFile.read(paths[0]).cfa == .rggb)
        var options = StackOptions()
        options.alignment = .stars
        options.mode = .sigmaClip
        options.threads = 2
        let colour = try stack(paths.map { FrameSource.path($0) }, options: options)
        options.cfa = .none
        let gray = try stack(paths.map { FrameSource.path($0) }, options: options)
        #expect(colour.image.channels == 3 && gray.image.channels == 1)
        #expect(colour.frames.allSatisfy { $0.used })

        // Registration: every frame's shift within 0.15 px (a wrong row
        // order would flip the sign of dy).
        let errors = zip(colour.frames, shifts).map { f, s in max(abs(f.dx - s.0), abs(f.dy - s.1)) }
        let worst = errors.max() ?? 0
        #expect(worst < 0.15, "registration errors \(errors)")

        let truth = field.truth()
        let border = 8
        let colourPSNR = ImageMetrics.psnr(colour.image, truth, border: border)
        let grayAsRGB = Image(width: truth.width, height: truth.height, planes: Array(repeating: gray.image.planes[0], count: 3))
        let grayPSNR = ImageMetrics.psnr(grayAsRGB, truth, border: border)
        print("Bayer OSC session: colour PSNR \(colourPSNR) dB, gray mosaic \(grayPSNR) dB, worst shift error \(worst) px")
        #expect(colourPSNR > grayPSNR + 6, "colour \(colourPSNR) dB, gray mosaic \(grayPSNR) dB")
        #expect(colourPSNR > 38, "colour PSNR \(colourPSNR) dB")

        // Star colours: R/G and B/G of each star's background-subtracted
        // flux in a 7 × 7 box, against the truth's.
        var ratioErrors: [Double] = []
        for s in field.stars where s.x > 12 && s.x < Double(field.width - 12) && s.y > 12 && s.y < Double(field.height - 12) {
            func flux(_ image: Image, _ c: Int) -> Double {
                let cx = Int(s.x.rounded()), cy = Int(s.y.rounded())
                var sum = 0.0
                for y in (cy - 3)...(cy + 3) { for x in (cx - 3)...(cx + 3) {
                    sum += Double(image.planes[c].pixels[y * field.width + x]) - field.background[c]
                } }
                return sum
            }
            let g = flux(colour.image, 1), gt = flux(truth, 1)
            guard gt > 0.5 else { continue }  // faint or crowded: ratios are noise
            ratioErrors.append(abs(flux(colour.image, 0) / g - flux(truth, 0) / gt) / (flux(truth, 0) / gt))
            ratioErrors.append(abs(flux(colour.image, 2) / g - flux(truth, 2) / gt) / (flux(truth, 2) / gt))
        }
        let sorted = ratioErrors.sorted()
        let median = sorted.isEmpty ? 1 : sorted[sorted.count / 2]
        print("Bayer OSC session: \(ratioErrors.count / 2) stars, median R/G, B/G error \(median), worst \(sorted.last ?? 0)")
        #expect(ratioErrors.count >= 40)
        #expect(median < 0.03, "median star colour ratio error \(median)")
    }
}
