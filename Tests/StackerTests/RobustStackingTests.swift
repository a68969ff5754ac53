import Foundation
import Testing
import Registration
import SceneGen
@testable import Stacker
import TestSupport

/// End-to-end quality of the kernels on generated scenes with known ground
/// truth: frames are written as JPEG q95 and go through the whole pipeline.
@Suite("Robust stacking on generated scenes")
struct RobustStackingTests {
    static func stack(_ b: SceneBurst, _ mode: StackMode, transforms: [Transform]? = nil,
                      weighting: FrameWeighting = .equal) throws -> Image {
        var o = StackOptions()
        o.mode = mode
        o.weighting = weighting
        o.givenTransforms = transforms
        o.threads = 2
        return try StackPipeline.run(paths: b.paths, options: o).image
    }

    static func streetConfig() -> SceneConfig {
        SceneBurst.street(width: 320, height: 240, frames: 10, seed: 21)
    }

    @Test("street (objects ≤ 30 % of frames): median and sigma-clip remove the objects, average does not")
    func streetObjectsRemoved() throws {
        let b = try SceneBurst(Self.streetConfig(), label: "robust")
        defer { b.remove() }
        let truth = b.scene.groundTruth
        let border = Int(b.scene.config.maxShift.rounded(.up)) + 3
        let footprint = b.objectFootprint
        let reference = try ImageFile.read(b.paths[0]).image
        let referencePSNR = ImageMetrics.psnr(reference, truth, border: border)
        let average = try Self.stack(b, .average)
        let averageObjectError = ImageMetrics.meanAbsoluteError(average, truth, mask: footprint, border: border)
        for mode in [StackMode.median, .sigmaClip] {
            let registered = try Self.stack(b, mode)
            let oracle = try Self.stack(b, mode, transforms: b.trueTransforms)
            let psnr = ImageMetrics.psnr(registered, truth, border: border)
            let oraclePSNR = ImageMetrics.psnr(oracle, truth, border: border)
            let objectError = ImageMetrics.meanAbsoluteError(registered, truth, mask: footprint, border: border)
            print("\(mode): \(psnr) dB (true shifts \(oraclePSNR) dB, reference frame \(referencePSNR) dB); object MAE \(objectError), average's \(averageObjectError)")
            // Issue #4's acceptance figures.
            #expect(psnr >= referencePSNR + 8, "\(mode): \(psnr) dB vs reference \(referencePSNR) dB")
            #expect(psnr >= oraclePSNR - 0.5, "\(mode): registered \(psnr) dB vs true shifts \(oraclePSNR) dB")
            // Where objects passed, the result should be within ~1.5 % of full scale
            // (noise 0.01 plus JPEG error), while the average keeps ghosts of several %.
            #expect(objectError < 0.015, "\(mode): object MAE \(objectError)")
        }
        #expect(averageObjectError > 0.02, "the average should keep visible ghosts: MAE \(averageObjectError)")
    }

    @Test("JPEG bursts keep 8 bits per sample in the store: the 8-bit result is within 0.1 dB of a 16-bit store's")
    func eightBitStoreQuality() throws {
        let b = try SceneBurst(Self.streetConfig(), label: "robust")
        defer { b.remove() }
        let truth = b.scene.groundTruth
        let border = Int(b.scene.config.maxShift.rounded(.up)) + 3
        /// The image as an 8-bit file holds it.
        func rounded(_ i: Image) -> Image {
            var r = i
            for c in 0..<r.planes.count { r.planes[c].pixels = r.planes[c].pixels.map { ($0 * 255).rounded() / 255 } }
            return r
        }
        for mode in [StackMode.median, .sigmaClip, .mode] {
            var o = StackOptions()
            o.mode = mode
            o.threads = 2
            let automatic = try StackPipeline.run(paths: b.paths, options: o).image
            o.storeDepth = .eight
            let eight = try StackPipeline.run(paths: b.paths, options: o).image
            o.storeDepth = .sixteen
            let sixteen = try StackPipeline.run(paths: b.paths, options: o).image
            // 8-bit JPEGs choose the 8-bit store.
            #expect(automatic == eight, "\(mode)")
            let p8 = ImageMetrics.psnr(rounded(eight), truth, border: border)
            let p16 = ImageMetrics.psnr(rounded(sixteen), truth, border: border)
            print("\(mode): as an 8-bit file, 8-bit store \(p8) dB, 16-bit store \(p16) dB")
            // The price of half the memory, measured on this burst (noise σ
            // 0.01 ≈ 2.6 steps, JPEG q95, 10 frames): median 0.04 dB, mode
            // 0.03 dB, sigma-clip 0.09 dB (its MAD is counted in whole
            // steps). A bound of 0.1 dB keeps that price from growing unseen;
            // runs that write 16 bits keep a 16-bit store (`--depth 16`).
            #expect(p16 - p8 <= 0.1, "\(mode): \(p8) vs \(p16) dB")
        }
    }

    @Test("crowd (objects up to 60 % of frames, differing colours): mode removes them where median fails")
    func crowdModeBeatsMedian() throws {
        var c = SceneConfig.crowd
        c.width = 320; c.height = 240; c.seed = 4
        let b = try SceneBurst(c, label: "robust")
        defer { b.remove() }
        let truth = b.scene.groundTruth
        let border = Int(c.maxShift.rounded(.up)) + 3
        // Where objects cover more than half the frames the median must fail.
        let footprint = b.covered(inMoreThan: c.frameCount / 2)
        let share = Double(footprint.pixels.reduce(0, +)) / Double(footprint.count)
        #expect(share > 0.01, "the scene should have pixels covered in most frames (\(share))")
        let mode = try Self.stack(b, .mode)
        let median = try Self.stack(b, .median)
        let modeError = ImageMetrics.meanAbsoluteError(mode, truth, mask: footprint, border: border)
        let medianError = ImageMetrics.meanAbsoluteError(median, truth, mask: footprint, border: border)
        print("crowd: mode object MAE \(modeError), median \(medianError); PSNR mode \(ImageMetrics.psnr(mode, truth, border: border)) median \(ImageMetrics.psnr(median, truth, border: border))")
        // Mode must at least halve median's error there, and stay close to the noise level.
        #expect(modeError < medianError / 2, "mode \(modeError) vs median \(medianError)")
        #expect(modeError < 0.02, "mode object MAE \(modeError)")
    }

    @Test("trail scene: sigma-clip removes the satellite trail and hot pixels, with less noise than median")
    func sigmaClipRemovesTrailAndHotPixels() throws {
        var c = SceneConfig.trail
        c.width = 320; c.height = 240; c.seed = 8
        let b = try SceneBurst(c, label: "robust")
        defer { b.remove() }
        let truth = b.scene.groundTruth
        let border = Int(c.maxShift.rounded(.up)) + 3
        let footprint = b.objectFootprint   // the trail and hot pixels, on the reference grid
        var clean = Plane(width: truth.width, height: truth.height, repeating: 1)
        for i in 0..<clean.count where footprint.pixels[i] > 0 { clean.pixels[i] = 0 }
        let clipped = try Self.stack(b, .sigmaClip)
        let median = try Self.stack(b, .median)
        let average = try Self.stack(b, .average)
        let defectError = ImageMetrics.meanAbsoluteError(clipped, truth, mask: footprint, border: border)
        let averageDefectError = ImageMetrics.meanAbsoluteError(average, truth, mask: footprint, border: border)
        let clippedNoise = ImageMetrics.meanSquaredError(clipped, truth, mask: clean, border: border).squareRoot()
        let medianNoise = ImageMetrics.meanSquaredError(median, truth, mask: clean, border: border).squareRoot()
        print("trail: sigma-clip defect MAE \(defectError) (average \(averageDefectError)); residual rms sigma-clip \(clippedNoise), median \(medianNoise)")
        #expect(defectError < 0.015, "trail/hot pixels left: MAE \(defectError)")
        #expect(averageDefectError > 2 * defectError)
        // For Gaussian noise the median's variance is π/2 × the mean's (≈ 1.25× in rms);
        // ask sigma-clip to be at least 5 % below median.
        #expect(clippedNoise < 0.95 * medianNoise, "sigma-clip rms \(clippedNoise) vs median \(medianNoise)")
    }

    @Test("--weights auto beats equal weights when one frame is much noisier")
    func autoWeightsHelp() throws {
        var c = Self.streetConfig()
        c.objectCount = 0
        c.frameCount = 6
        c.seed = 31
        // Integer shifts (exact warps) and lossless frames, so that noise, not
        // resampling of the rendered edges or JPEG error, limits the result.
        c.explicitShifts = [(0, 0), (2, -1), (-3, 1), (1, 2), (-2, -2), (3, 0)].map { FrameShift(dx: $0.0, dy: $0.1) }
        let b = try SceneBurst(c, format: .png, label: "robust")
        defer { b.remove() }
        // Replace frame 3 with a much noisier copy (σ = 0.05 added, 5× the others'):
        // noisy enough to dominate the equal-weight mean, close enough that
        // sigma-clip keeps most of its samples, so weighting is what helps.
        var noisy = try ImageFile.read(b.paths[3]).image
        var rng = TestRandom(seed: 99)
        for ch in 0..<noisy.channels {
            for i in 0..<noisy.pixelCount {
                let g = rng.gaussian()
                noisy.planes[ch].pixels[i] = min(1, max(0, noisy.planes[ch].pixels[i] + Float(0.05 * g)))
            }
        }
        try ImageFile.write(noisy, to: b.paths[3])
        let truth = b.scene.groundTruth
        let border = Int(c.maxShift.rounded(.up)) + 3
        for mode in [StackMode.average, .sigmaClip] {
            let equal = ImageMetrics.psnr(try Self.stack(b, mode, transforms: b.trueTransforms), truth, border: border)
            let auto = ImageMetrics.psnr(try Self.stack(b, mode, transforms: b.trueTransforms, weighting: .auto), truth, border: border)
            print("\(mode): equal \(equal) dB, auto \(auto) dB")
            // Equal weights: rms ≈ √(5·0.01² + 0.05²)/6 ≈ 0.009; inverse-variance ≈ 0.0045, about +6 dB.
            #expect(auto > equal + 1, "\(mode): auto \(auto) dB vs equal \(equal) dB")
        }
    }
}

extension SceneBurst {
    /// The ground-truth transforms (true shifts) of every frame.
    var trueTransforms: [Transform] { scene.shifts.map { .translation(dx: $0.dx, dy: $0.dy) } }

    /// Per reference pixel, in how many frames an object (or defect) covers it.
    var objectCoverageCount: Plane {
        let w = scene.groundTruth.width, h = scene.groundTruth.height
        var out = Plane(width: w, height: h)
        for (i, mask) in scene.objectMasks.enumerated() {
            let s = scene.shifts[i]
            let onRef = Warper.warp([mask], by: .translation(dx: s.dx, dy: s.dy), width: w, height: h,
                                    interpolation: .bicubic).planes[0]
            for k in 0..<out.count where onRef.pixels[k] > 0.05 { out.pixels[k] += 1 }
        }
        return out
    }

    /// 1 where any frame's object (mapped to the reference grid) covers the pixel.
    var objectFootprint: Plane { covered(inMoreThan: 0) }

    /// 1 where objects cover the pixel in more than `n` frames.
    func covered(inMoreThan n: Int) -> Plane {
        var p = objectCoverageCount
        for k in 0..<p.count { p.pixels[k] = p.pixels[k] > Float(n) ? 1 : 0 }
        return p
    }
}
