import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// `--transfer`: camera raws are stacked in linear light; JPEG, PNG and HEIC
/// outputs of them get the sRGB curve unless told otherwise, and stacks of
/// display-encoded frames are written with the values they have.
@Suite("Transfer curve of outputs")
struct TransferCurveTests {
    @Test("the sRGB curve: its two segments meet, 0 and 1 are fixed, 18 % grey encodes to 0.461")
    func curve() {
        let srgb = TransferCurve.srgb
        #expect(srgb.encode(0) == 0 && abs(srgb.encode(1) - 1) < 1e-6)
        #expect(abs(srgb.encode(0.18) - 0.4613) < 1e-4)
        let knee: Float = 0.0031308
        #expect(abs(srgb.encode(knee) - srgb.encode(knee.nextUp)) < 1e-6)
        #expect(srgb.encode(-0.01) < 0)
        #expect(TransferCurve.linear.encode(0.3) == 0.3)
        for format in ImageFormat.allCases {
            #expect(TransferCurve.automatic(linearLight: false, format: format) == .linear)
        }
        #expect(TransferCurve.automatic(linearLight: true, format: .png) == .srgb)
        #expect(TransferCurve.automatic(linearLight: true, format: .jpeg) == .srgb)
        #expect(TransferCurve.automatic(linearLight: true, format: .tiff) == .linear)
        #expect(TransferCurve.automatic(linearLight: true, format: .fits) == .linear)
    }

    /// A small DNG burst (linear light) in `folder`.
    static func dngBurst(in folder: String) throws -> [String] {
        let scene = RAWCodecTests.Scene(seed: 71)
        let w = scene.width, h = scene.height
        var rng = TestRandom(seed: 72)
        return try [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)].enumerated().map { k, shift in
            let samples = (0..<(w * h)).map { i -> UInt16 in
                let x = i % w, y = i / w, c = BayerPattern.rggb.channel(x: x, y: y)
                let v = scene.value(c, Double(x) + shift.0, Double(y) + shift.1) + 0.003 * rng.gaussian()
                return UInt16(min(max(v * 65535, 0), 65535).rounded())
            }
            let path = folder + "/linear\(k).dng"
            try Data(HandMadeDNG(width: w, height: h).bytes(samples: samples)).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    @Test("a raw stack written as PNG is sRGB-encoded by default, linear with .linear; its TIFF stays linear")
    func rawOutputs() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        var options = StackOptions()
        options.mode = .median
        options.threads = 2
        let paths = try Self.dngBurst(in: folder)
        let result = try stack(paths.map { FrameSource.path($0) }, options: options)
        #expect(result.metadata.linearLight)
        #expect(result.transferCurve(for: "x.png") == .srgb && result.transferCurve(for: "x.tif") == .linear)
        try result.write(to: folder + "/srgb.png", depth: 16)
        try result.write(to: folder + "/linear.tif", depth: 32)
        let png = try ImageFile.read(folder + "/srgb.png").image, tiff = try ImageFile.read(folder + "/linear.tif").image
        let encoded = TransferCurve.srgb.encode(result.image)
        func worst(_ a: Image, _ b: Image) -> Float {
            zip(a.planes.flatMap(\.pixels), b.planes.flatMap(\.pixels)).map { abs(min(max($0, 0), 1) - min(max($1, 0), 1)) }.max() ?? .infinity
        }
        #expect(worst(png, encoded) <= 1 / 65535)
        #expect(worst(tiff, result.image) == 0)
        // The curve lifts the shadows: the mean of the encoded PNG is well above the linear one.
        let meanPNG = png.planes[1].pixels.reduce(0, +) / Float(png.planes[1].pixels.count)
        let meanLinear = tiff.planes[1].pixels.reduce(0, +) / Float(tiff.planes[1].pixels.count)
        #expect(meanPNG > meanLinear * 1.2, "PNG mean \(meanPNG), linear mean \(meanLinear)")

        var linear = result
        linear.options.transfer = .linear
        try linear.write(to: folder + "/linear.png", depth: 16)
        #expect(worst(try ImageFile.read(folder + "/linear.png").image, result.image) <= 1 / 65535)
    }

    @Test("a stack of display-encoded frames is written with its values; --transfer srgb forces the curve")
    func displayFrames() throws {
        let image = Image(width: 16, height: 8, planes: (0..<3).map { c in
            Plane(width: 16, height: 8, pixels: (0..<128).map { Float(($0 + 7 * c) % 50) / 50 })
        })
        var options = StackOptions()
        options.alignment = .none
        options.threads = 1
        let result = try stack([.image(image, name: "a"), .image(image, name: "b")], options: options)
        #expect(!result.metadata.linearLight)
        #expect(result.transferCurve(for: "x.png") == .linear && result.transferCurve(for: "x.jpg") == .linear)
        var forced = result
        forced.options.transfer = .srgb
        #expect(forced.transferCurve(for: "x.tif") == .srgb)
    }
}
