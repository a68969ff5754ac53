import Registration
import SceneGen
import Stacker
import TestSupport
import Testing

/// The library as a client test suite uses it (no @testable): a SceneGen
/// scene stacked from memory, written, and scored against its truth.
@Suite("Library face")
struct LibraryFaceTests {
    static func scene() -> Scene {
        var config = SceneConfig.street
        config.width = 320
        config.height = 240
        config.frameCount = 9
        config.seed = 11
        return SceneGenerator.render(config)
    }

    @Test("a scene stacked from memory: the median removes the objects, the average keeps ghosts")
    func sceneFromMemory() throws {
        let scene = Self.scene()
        let border = Int(scene.config.maxShift.rounded(.up)) + 3
        var options = StackOptions()
        options.mode = .median
        options.threads = 2
        let median = try stack(scene.frames.map { .image($0) }, options: options)
        options.mode = .average
        let average = try stack(scene.frames.map { .image($0) }, options: options)
        let mask = scene.transientMask
        let medianGhost = ImageMetrics.ghostResidual(median.image, truth: scene.groundTruth, transientMask: mask, border: border)
        let averageGhost = ImageMetrics.ghostResidual(average.image, truth: scene.groundTruth, transientMask: mask, border: border)
        #expect(medianGhost < 0.015, "median ghost residual \(medianGhost)")
        #expect(averageGhost > 2 * medianGhost, "average \(averageGhost) vs median \(medianGhost)")
        let framePSNR = ImageMetrics.psnr(scene.frames[0], scene.groundTruth, border: border)
        #expect(ImageMetrics.psnr(median.image, scene.groundTruth, border: border) > framePSNR + 6)
        #expect(ImageMetrics.ssim(median.image, scene.groundTruth, border: border)
                > ImageMetrics.ssim(scene.frames[0], scene.groundTruth, border: border))
        // Frames from memory are named for messages and reports; their shifts match the truth.
        #expect(median.frames.map(\.path) == (0..<9).map { "image \($0)" })
        for (record, truth) in zip(median.frames, scene.shifts) {
            #expect(abs(record.dx - truth.dx) < 0.1 && abs(record.dy - truth.dy) < 0.1)
        }
        #expect(median.metadata.bitDepth == 32)
        #expect(median.encodeOptions(for: "x.png").bitDepth == 16)
        #expect(median.encodeOptions(for: "x.tif").bitDepth == 32)
        #expect(median.encodeOptions(for: "x.jpg", depth: 16).bitDepth == 8)
    }

    @Test("frames from files and memory mix; a frame of another size is refused by its name")
    func mixedSources() throws {
        let scene = Self.scene()
        let small = Image(width: 32, height: 24, channels: 3)
        var options = StackOptions()
        options.threads = 1
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let file = folder + "/frame.png"
        try ImageFile.write(scene.frames[1], to: file, options: EncodeOptions(bitDepth: 16))
        let mixed = try stack([.image(scene.frames[0]), .path(file), .image(scene.frames[2])], options: options)
        #expect(mixed.frames.map(\.path) == ["image 0", file, "image 2"])
        #expect(mixed.frames.allSatisfy { $0.used })
        #expect(throws: StackerError.self) {
            try stack([.image(scene.frames[0]), .image(small, name: "tiny")], options: options)
        }
        do {
            _ = try stack([.image(scene.frames[0]), .image(small, name: "tiny")], options: options)
        } catch let e as StackerError {
            #expect(e.description.hasPrefix("tiny: "), "\(e)")
        }
    }

    @Test("SSIM: 1 for identical images, falling as noise grows")
    func ssimOrder() {
        let truth = Self.scene().groundTruth
        #expect(abs(ImageMetrics.ssim(truth, truth) - 1) < 1e-12)
        var last = 1.0
        for sigma: Float in [0.01, 0.03, 0.1] {
            var noisy = truth
            var random = TestRandom(seed: 99)
            for c in 0..<noisy.channels {
                for k in 0..<noisy.planes[c].count { noisy.planes[c].pixels[k] += sigma * Float(random.symmetric(1.73)) }
            }
            let s = ImageMetrics.ssim(noisy, truth, border: 4)
            #expect(s < last, "σ \(sigma): SSIM \(s), previous \(last)")
            last = s
        }
    }
}
