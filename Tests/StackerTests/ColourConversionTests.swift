import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// Colour conversion with Little CMS, measured against the colorimetry
/// computed here from the primaries (RGB → XYZ matrices, the sRGB curve),
/// and frames in another profile than the reference's converted in a run.
@Suite("Colour conversion into the reference's profile")
struct ColourConversionTests {
    // MARK: Reference colorimetry, written out independently of lcms2.

    /// The RGB → XYZ matrix of `c` (row-major), white at Y = 1.
    static func rgbToXYZ(_ c: Chromaticities) -> [[Double]] {
        func xyz(_ p: (x: Double, y: Double)) -> [Double] { [p.x / p.y, 1, (1 - p.x - p.y) / p.y] }
        let (r, g, b, w) = (xyz(c.red), xyz(c.green), xyz(c.blue), xyz(c.white))
        let p = [[r[0], g[0], b[0]], [r[1], g[1], b[1]], [r[2], g[2], b[2]]]
        let s = multiply(inverse(p), w)
        return p.map { row in (0..<3).map { row[$0] * s[$0] } }
    }

    static func inverse(_ m: [[Double]]) -> [[Double]] {
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        return (0..<3).map { i in (0..<3).map { j in
            let (a, b) = ((j + 1) % 3, (j + 2) % 3), (c, d) = ((i + 1) % 3, (i + 2) % 3)
            return (m[a][c] * m[b][d] - m[a][d] * m[b][c]) / det
        } }
    }

    static func multiply(_ m: [[Double]], _ v: [Double]) -> [Double] { m.map { zip($0, v).reduce(0) { $0 + $1.0 * $1.1 } } }
    static func product(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
    }

    static func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func encode(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    /// `rgb` (encoded with the sRGB curve) from primaries `from` to primaries `to`.
    static func convert(_ rgb: [Double], from: Chromaticities, to: Chromaticities) -> [Double] {
        let m = product(inverse(rgbToXYZ(to)), rgbToXYZ(from))
        return multiply(m, rgb.map(decode)).map(encode)
    }

    /// A 48 × 32 sRGB image of smooth colours (channels within 0.15…0.85).
    /// Its P3 values stay inside 0…1 (sRGB lies inside P3); the same
    /// numbers read as P3 leave sRGB's gamut (floats keep them, unclamped).
    static let scene: Image = {
        var image = Image(width: 48, height: 32, channels: 3)
        for y in 0..<32 {
            for x in 0..<48 {
                let k = y * 48 + x
                image.planes[0].pixels[k] = 0.15 + 0.7 * Float(x) / 47
                image.planes[1].pixels[k] = 0.15 + 0.7 * Float(y) / 31
                image.planes[2].pixels[k] = 0.15 + 0.7 * Float((x + 2 * y) % 40) / 39
            }
        }
        return image
    }()

    /// `image` converted pixel by pixel with `convert(_:from:to:)`.
    static func reference(_ image: Image, from: Chromaticities, to: Chromaticities) -> Image {
        var out = image
        for k in image.planes[0].pixels.indices {
            let rgb = convert((0..<3).map { Double(image.planes[$0].pixels[k]) }, from: from, to: to)
            for c in 0..<3 { out.planes[c].pixels[k] = Float(rgb[c]) }
        }
        return out
    }

    static func maxError(_ a: Image, _ b: Image) -> Float {
        zip(a.planes, b.planes).map { zip($0.pixels, $1.pixels).map { abs($0 - $1) }.max() ?? 0 }.max() ?? 0
    }

    // MARK: The conversion itself.

    @Test("Display P3 → sRGB and back, floats: within 0.001 of the matrix-and-curve reference")
    func floatAgainstReference() throws {
        for (from, to, fromProfile, toProfile) in [(Chromaticities.displayP3, Chromaticities.sRGB, ColourProfile.displayP3, nil),
                                                   (.sRGB, .displayP3, nil, ColourProfile.displayP3)] {
            let converted = try #require(ColourConversion.convert(Self.scene, from: fromProfile, to: toProfile))
            let expected = Self.reference(Self.scene, from: from, to: to)
            let error = Self.maxError(converted, expected)
            // Measured: 2.0e-4 and 4.3e-5 (the profiles' s15.16 numbers, D50 adaptation).
            #expect(error < 0.001, "max error \(error)")
            // The conversion is not a no-op: P3 and sRGB values differ by far more.
            #expect(Self.maxError(converted, Self.scene) > 0.05)
        }
    }

    @Test("8-bit planes through the 8-bit transform: within 1 level of the float reference")
    func bytesAgainstReference() throws {
        // The scene's P3 values (sRGB lies inside P3, so they stay in 0…1
        // and so do the sRGB values they convert back to), as bytes.
        let p3 = Self.reference(Self.scene, from: .sRGB, to: .displayP3)
        var bytes = ByteImage(width: 48, height: 32, channels: 3)
        for c in 0..<3 { bytes.planes[c].pixels = p3.planes[c].pixels.map { UInt8(($0 * 255).rounded()) } }
        let converted = try #require(ColourConversion.convert(bytes, from: .displayP3, to: nil))
        let expected = Self.reference(bytes.floats, from: .displayP3, to: .sRGB)
        let levels = Self.maxError(converted.floats, expected) * 255
        // Measured: 0.55 levels (rounding to bytes).
        #expect(levels <= 1, "max error \(levels) levels")
    }

    @Test("the BT.709 curve: a BT.709-primaries profile with it converts to sRGB as the two curves say, within 0.001")
    func rec709Curve() throws {
        let rec709 = try #require(ColourProfile(chromaticities: .sRGB, transfer: .rec709))
        let converted = try #require(ColourConversion.convert(Self.scene, from: rec709, to: nil))
        func decode709(_ v: Double) -> Double { v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45) }
        var expected = Self.scene
        for c in 0..<3 { expected.planes[c].pixels = Self.scene.planes[c].pixels.map { Float(Self.encode(decode709(Double($0)))) } }
        let error = Self.maxError(converted, expected)
        // Measured: 6.2e-5; the curves themselves differ by up to 0.062 here.
        #expect(error < 0.001, "max error \(error)")
        #expect(Self.maxError(converted, Self.scene) > 0.02)
    }

    @Test("a profile lcms2 cannot read, or a gray one, gives no conversion")
    func unusableProfiles() {
        let garbage = ColourProfile(bytes: [UInt8](repeating: 7, count: 300))
        #expect(!garbage.isReadableRGB)
        #expect(ColourConversion.convert(Self.scene, from: garbage, to: nil) == nil)
        #expect(ColourProfile.displayP3.isReadableRGB && ColourProfile.sRGB.isReadableRGB)
        #expect(ColourProfile.displayP3 != ColourProfile.sRGB)
        // Built again a second later: the same bytes (no creation time in them).
        usleep(1_100_000)
        #expect(ColourProfile(chromaticities: .displayP3, transfer: .sRGB) == ColourProfile.displayP3)
    }

    // MARK: In a run.

    /// Writes `image` as a 16-bit PNG carrying `profile` in iCCP (none: nil).
    static func writePNG(_ image: Image, profile: ColourProfile?, to path: String) throws {
        var png = try ImageFile.encode(image, format: .png, options: EncodeOptions(bitDepth: 16))
        if let profile { png = HandMadePNG.inserting([("iCCP", HandMadeMetadata.iCCP(profile.bytes))], afterIHDROf: png) }
        try Data(png).write(to: URL(fileURLWithPath: path))
    }

    /// Writes `image` as a quality-100 JPEG carrying `profile` in APP2 (none: nil).
    static func writeJPEG(_ image: Image, profile: ColourProfile?, to path: String) throws {
        var jpeg = try ImageFile.encode(image, format: .jpeg, options: EncodeOptions(quality: 100))
        if let profile { jpeg = HandMadeMetadata.inserting(HandMadeMetadata.iccPieces(profile.bytes).map { (0xE2, $0) }, intoJPEG: jpeg) }
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
    }

    static func options(_ mode: StackMode = .average) -> StackOptions {
        var o = StackOptions()
        o.alignment = .none
        o.mode = mode
        o.threads = 2
        return o
    }

    @Test("a Display P3 frame in an sRGB burst (16-bit PNG) is converted to sRGB: the average matches the sRGB scene within 0.001, and the report says which frame")
    func mixedBurstPNG() throws {
        let dir = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(dir) }
        let p3 = Self.reference(Self.scene, from: .sRGB, to: .displayP3)
        try Self.writePNG(Self.scene, profile: nil, to: dir + "/a.png")
        try Self.writePNG(Self.scene, profile: nil, to: dir + "/b.png")
        try Self.writePNG(p3, profile: .displayP3, to: dir + "/p3.png")
        let result = try stack([.path(dir + "/a.png"), .path(dir + "/b.png"), .path(dir + "/p3.png")], options: Self.options())
        let error = Self.maxError(result.image, Self.scene)
        // Measured: 2.2e-5 (lcms2 against the reference, plus 16-bit steps).
        #expect(error < 0.001, "max error \(error)")
        #expect(result.frames.map(\.colourConverted) == [nil, nil, true])
        #expect(result.metadata.iccProfile == nil)
        // Unconverted, the P3 frame would have pulled the average this far off.
        #expect(Self.maxError(p3, Self.scene) / 3 > 0.015)

        var refuse = Self.options()
        refuse.convertColour = false
        #expect(throws: StackerError.self) {
            try stack([.path(dir + "/a.png"), .path(dir + "/p3.png")], options: refuse)
        }
        do {
            _ = try stack([.path(dir + "/a.png"), .path(dir + "/p3.png")], options: refuse)
        } catch let error as StackerError {
            #expect(error.path == dir + "/p3.png")
            #expect(error.reason.contains("colour profile"))
        }
    }

    @Test("an sRGB frame in a Display P3 burst is converted into P3, the reference's profile, which JPEG, PNG and TIFF outputs carry byte for byte")
    func mixedBurstIntoP3() throws {
        let dir = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(dir) }
        let p3 = Self.reference(Self.scene, from: .sRGB, to: .displayP3)
        try Self.writePNG(p3, profile: .displayP3, to: dir + "/a.png")
        try Self.writePNG(Self.scene, profile: nil, to: dir + "/srgb.png")
        let result = try stack([.path(dir + "/a.png"), .path(dir + "/srgb.png")], options: Self.options())
        let error = Self.maxError(result.image, p3)
        // Measured: 2.4e-5.
        #expect(error < 0.001, "max error \(error)")
        #expect(result.frames.map(\.colourConverted) == [nil, true])
        #expect(result.metadata.iccProfile == ColourProfile.displayP3.bytes)
        // Written and read back: the same profile bytes in each output that holds one.
        for ext in ["jpg", "png", "tif"] {
            try result.write(to: dir + "/out.\(ext)")
            #expect(try ImageFile.read(dir + "/out.\(ext)").iccProfile == ColourProfile.displayP3.bytes, "\(ext)")
        }
    }

    @Test("8-bit JPEG pairs: a P3 frame is converted on the Y, Cb, Cr path (average, median) and the RGB bytes path; the stack is within 1.5 levels of the all-sRGB pair's",
          arguments: [(StackMode.average, true), (.median, true), (.median, false)])
    func mixedBurstJPEG(mode: StackMode, ycbcr: Bool) throws {
        let dir = try TestFiles.temporaryFolder("jpeg\(mode)\(ycbcr)")
        defer { TestFiles.remove(dir) }
        let p3 = Self.reference(Self.scene, from: .sRGB, to: .displayP3)
        for name in ["a", "b"] { try Self.writeJPEG(Self.scene, profile: nil, to: dir + "/\(name).jpg") }
        try Self.writeJPEG(p3, profile: .displayP3, to: dir + "/p3.jpg")
        var options = Self.options(mode)
        options.stackInYCbCr = ycbcr
        // Two frames, so that the median too is half the converted frame.
        let allSRGB = try stack(["a", "b"].map { .path(dir + "/\($0).jpg") }, options: options)
        let mixed = try stack(["a", "p3"].map { .path(dir + "/\($0).jpg") }, options: options)
        #expect(mixed.frames.map(\.colourConverted) == [nil, true])
        let mean = zip(mixed.image.planes, allSRGB.image.planes).flatMap { zip($0.pixels, $1.pixels).map { abs($0 - $1) } }
            .reduce(0, +) / Float(3 * 48 * 32) * 255
        // Measured: 0.45 (average) and 0.47 (median) levels, PSNR 52.6 and 51.7 dB
        // (the P3 frame's JPEG rounding, converted, halved).
        #expect(mean < 1.5, "mean difference \(mean) levels")
        let psnr = ImageMetrics.psnr(mixed.image, allSRGB.image)
        #expect(psnr > 40, "PSNR \(psnr) dB")
    }

    @Test("a burst whose frames all carry the same profile is not converted: the same pixels as the untagged burst, bit for bit")
    func sameProfileUntouched() throws {
        let dir = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(dir) }
        var shifted = Self.scene
        for c in 0..<3 { shifted.planes[c].pixels = shifted.planes[c].pixels.map { min(1, $0 + 0.03) } }
        for (name, image) in [("a", Self.scene), ("b", shifted)] {
            try Self.writeJPEG(image, profile: .displayP3, to: dir + "/\(name)-p3.jpg")
            try Self.writeJPEG(image, profile: nil, to: dir + "/\(name).jpg")
        }
        for mode in [StackMode.average, .median] {
            let tagged = try stack([.path(dir + "/a-p3.jpg"), .path(dir + "/b-p3.jpg")], options: Self.options(mode))
            let plain = try stack([.path(dir + "/a.jpg"), .path(dir + "/b.jpg")], options: Self.options(mode))
            #expect(tagged.image == plain.image, "\(mode)")
            #expect(tagged.frames.allSatisfy { $0.colourConverted == nil })
        }
    }

    @Test("a frame whose profile lcms2 cannot read is taken as sRGB, with one warning naming it")
    func unreadableProfileWarns() throws {
        let dir = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(dir) }
        try Self.writePNG(Self.scene, profile: nil, to: dir + "/a.png")
        try Self.writePNG(Self.scene, profile: ColourProfile(bytes: [UInt8](repeating: 9, count: 200)), to: dir + "/bad.png")
        let result = try stack([.path(dir + "/a.png"), .path(dir + "/bad.png")], options: Self.options())
        #expect(result.warnings.filter { $0.contains("ICC profile") } == ["\(dir)/bad.png: its ICC profile cannot be read as an RGB profile; taken as sRGB"])
        #expect(result.frames.map(\.colourConverted) == [nil, nil])
        #expect(Self.maxError(result.image, Self.scene) < 1e-4)
    }
}
