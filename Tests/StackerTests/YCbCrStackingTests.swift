import Foundation
import Testing
import Registration
import SceneGen
@testable import Stacker
import TestSupport

/// Stacking in Y, Cb, Cr: JPEG planes as stored, chroma at its own
/// resolution, RGB once at the end (`StackOptions.stackInYCbCr`).
@Suite("Stacking in Y, Cb, Cr")
struct YCbCrStackingTests {
    /// A smooth, colourful `width × height` test image with some edges.
    static func colourful(width: Int, height: Int) -> Image {
        var planes = (0..<3).map { _ in Plane(width: width, height: height) }
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / Double(width), v = Double(y) / Double(height)
                let edge = (x / 7 + y / 5) % 2 == 0 ? 0.15 : 0
                planes[0][x, y] = Float(0.2 + 0.6 * u + edge)
                planes[1][x, y] = Float(0.5 + 0.4 * sin(6 * v + 2 * u))
                planes[2][x, y] = Float(0.8 - 0.6 * v * u + edge / 2)
            }
        }
        return Image(width: width, height: height, planes: planes)
    }

    @Test("rgb: the JFIF formulas at factor 1; a luma plane the caller still holds is left as it was", arguments: [1, 2])
    func rgbKeepsSharedLuma(_ factor: Int) {
        let (luma, chroma) = YCbCr.split(Self.colourful(width: 36, height: 20), factor: factor)
        let kept = luma
        let shared = YCbCr.rgb(luma: luma, cb: chroma[0], cr: chroma[1], factor: factor, threads: 2)
        #expect(luma == kept)
        var owned = [luma]
        let unique = YCbCr.rgb(luma: owned.removeFirst(), cb: chroma[0], cr: chroma[1], factor: factor, threads: 2)
        #expect(unique == shared)
        guard factor == 1 else { return }
        for i in 0..<luma.count {
            let y = luma.pixels[i], u = chroma[0].pixels[i] - YCbCr.neutral, v = chroma[1].pixels[i] - YCbCr.neutral
            #expect(shared.planes[0].pixels[i] == y + 1.402 * v)
            #expect(shared.planes[1].pixels[i] == y - 0.344136 * u - 0.714136 * v)
            #expect(shared.planes[2].pixels[i] == y + 1.772 * u)
        }
    }

    /// `config` rendered and written as JPEG frames at quality 85, which
    /// writes 4:2:0 chroma as cameras do, in a new temporary folder.
    static func burst420(_ config: SceneConfig) throws -> (scene: Scene, paths: [String], folder: String) {
        let burst = try SceneBurst(config, quality: 85, label: "ycbcr")
        return (burst.scene, burst.paths, burst.folder)
    }

    @Test("a 4:2:0 JPEG's own planes, upsampled and converted by us, match TurboJPEG's RGB decode")
    func planesMatchRGBDecode() throws {
        for (quality, factor) in [(85, 2), (95, 1)] {
            let jpeg = try ImageFile.encode(Self.colourful(width: 64, height: 48), format: .jpeg,
                                            options: EncodeOptions(quality: quality))
            let planes = try #require(try JPEGCodec.decodeYCbCr(jpeg, path: "t.jpg", maxPixels: 1 << 20, factor: nil))
            #expect(planes.chromaFactor == factor)
            #expect(planes.width == 64 && planes.height == 48)
            let rgb = try ImageFile.decode(bytes: jpeg).image
            // TurboJPEG rounds each stage to 8 bits; ours stays in floats.
            let mae = ImageMetrics.meanAbsoluteError(planes.rgb, rgb) * 255
            let worst = ImageMetrics.maxAbsoluteError(planes.rgb, rgb) * 255
            print("quality \(quality): mean \(mae), worst \(worst) steps from TurboJPEG's RGB")
            #expect(mae < 0.6, "quality \(quality): mean difference \(mae) steps")
            #expect(worst <= 2.5, "quality \(quality): worst difference \(worst) steps")
            // Asking for the other factor declines.
            #expect(try JPEGCodec.decodeYCbCr(jpeg, path: "t.jpg", maxPixels: 1 << 20, factor: 3 - factor) == nil)
        }
    }

    @Test("odd-sized 4:2:0 and grayscale JPEGs decline the Y, Cb, Cr form")
    func declines() throws {
        let odd = try ImageFile.encode(Self.colourful(width: 63, height: 48), format: .jpeg,
                                       options: EncodeOptions(quality: 85))
        #expect(try JPEGCodec.decodeYCbCr(odd, path: "o.jpg", maxPixels: 1 << 20, factor: nil) == nil)
        let gray = Image(width: 16, height: 16, planes: [Self.colourful(width: 16, height: 16).planes[1]])
        let grayJPEG = try ImageFile.encode(gray, format: .jpeg)
        #expect(try JPEGCodec.decodeYCbCr(grayJPEG, path: "g.jpg", maxPixels: 1 << 20, factor: nil) == nil)
    }

    @Test("the chroma transform moves chroma points where the luma transform moves their luma positions")
    func chromaTransform() throws {
        let shift = YCbCr.chromaTransform(.translation(dx: 3.5, dy: -1.25), factor: 2)
        #expect(shift.isTranslation)
        #expect(abs(shift.translation.dx - 1.75) < 1e-12 && abs(shift.translation.dy + 0.625) < 1e-12)
        let t = Transform(matrix: [0.99, -0.05, 4, 0.04, 1.01, -3, 1e-5, -2e-5, 1])
        let c = YCbCr.chromaTransform(t, factor: 2)
        for (x, y) in [(0.0, 0.0), (100.0, 7.0), (-3.0, 250.0)] {
            let luma = t.apply(x: 2 * x + 0.5, y: 2 * y + 0.5)
            let chroma = c.apply(x: x, y: y)
            #expect(abs(2 * chroma.x + 0.5 - luma.x) < 1e-9 && abs(2 * chroma.y + 0.5 - luma.y) < 1e-9)
        }
        #expect(YCbCr.chromaTransform(t, factor: 1) == t)
    }

    @Test("an upright EXIF orientation is applied to the Y, Cb, Cr planes as to the RGB decode")
    func orientation() throws {
        let path = TestFiles.packageRoot + "/Fuzz/corpus/jpeg/exif-ii-orient6.jpg"
        let rgb = try ImageFile.read(path)
        let frame = try DecodedFrame.read(FilePath(path), maxPixels: 1 << 20, form: .ycbcr(factor: nil))
        #expect(frame.width == rgb.image.width && frame.height == rgb.image.height)
        let mae = ImageMetrics.meanAbsoluteError(frame.image, rgb.image) * 255
        #expect(mae < 1, "mean difference \(mae) steps")
    }

    @Test("a 4:2:0 burst stacked in Y, Cb, Cr is as close to the truth as stacked in RGB, and thread-independent",
          arguments: [StackMode.average, .median, .sigmaClip])
    func quality(_ mode: StackMode) throws {
        let c = SceneBurst.street(width: 320, height: 240, frames: 8, seed: 5)
        let (scene, paths, folder) = try Self.burst420(c)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let truth = scene.groundTruth
        let border = Int(c.maxShift.rounded(.up)) + 3
        var o = StackOptions()
        o.mode = mode
        o.threads = 2
        let ycbcr = try StackPipeline.run(paths: paths, options: o).image
        o.threads = 1
        #expect(try StackPipeline.run(paths: paths, options: o).image == ycbcr)
        o.stackInYCbCr = false
        let rgb = try StackPipeline.run(paths: paths, options: o).image
        let reference = try ImageFile.read(paths[0]).image
        let pY = ImageMetrics.psnr(ycbcr, truth, border: border)
        let pRGB = ImageMetrics.psnr(rgb, truth, border: border)
        let pRef = ImageMetrics.psnr(reference, truth, border: border)
        print("4:2:0 burst, \(mode): Y, Cb, Cr \(pY) dB, RGB \(pRGB) dB, reference frame \(pRef) dB")
        #expect(pY >= pRGB, "\(mode): \(pY) vs \(pRGB) dB")
        guard mode != .average else { return }
        // The store keeps Y in 8 bits and chroma in 16 (see Combiner); all 16 bits must not do much better.
        o.stackInYCbCr = true
        o.storeDepth = .sixteen
        let p16 = ImageMetrics.psnr(try StackPipeline.run(paths: paths, options: o).image, truth, border: border)
        print("4:2:0 burst, \(mode): 8-bit Y store \(pY) dB, 16-bit Y store \(p16) dB")
        #expect(p16 - pY <= 0.1, "\(mode): \(pY) vs \(p16) dB")
    }
}

extension YCbCrStackingTests {
    @Test("a burst mixing 4:2:0, 4:4:4 and odd subsampling frames stacks, each frame converted to the reference's form",
          arguments: [StackMode.average, .median])
    func mixedBurst(_ mode: StackMode) throws {
        var c = SceneBurst.street(width: 160, height: 120, frames: 5, seed: 9)
        c.objectCount = 0
        let (scene, paths, folder) = try Self.burst420(c)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var o = StackOptions()
        o.mode = mode
        let uniform = try StackPipeline.run(paths: paths, options: o)
        // Frame 2 again at quality 95 (4:4:4), frame 3 as PNG: neither has 4:2:0 planes to give.
        let frame2 = try ImageFile.read(paths[2]).image
        try ImageFile.write(frame2, to: paths[2], options: EncodeOptions(quality: 95))
        let png = folder + "/frame-3.png"
        try ImageFile.write(try ImageFile.read(paths[3]).image, to: png)
        var mixedPaths = paths
        mixedPaths[3] = png
        let mixed = try StackPipeline.run(paths: mixedPaths, options: o)
        #expect(mixed.frames.allSatisfy { $0.used })
        let truth = scene.groundTruth
        let border = Int(c.maxShift.rounded(.up)) + 3
        let pUniform = ImageMetrics.psnr(uniform.image, truth, border: border)
        let pMixed = ImageMetrics.psnr(mixed.image, truth, border: border)
        print("\(mode): uniform 4:2:0 burst \(pUniform) dB, mixed \(pMixed) dB")
        // Re-encoding frame 2 adds a second JPEG loss; the stacks must stay close.
        #expect(abs(pUniform - pMixed) < 0.5, "\(mode): \(pUniform) vs \(pMixed) dB")
        for (u, m) in zip(uniform.frames, mixed.frames) {
            #expect(abs(u.transform.translation.dx - m.transform.translation.dx) < 0.05)
            #expect(abs(u.transform.translation.dy - m.transform.translation.dy) < 0.05)
        }
    }
}
