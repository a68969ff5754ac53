import Foundation
import Registration
import SceneGen
@testable import Stacker
import Testing

/// `--match-exposure`: the robust exposure line (`ExposureFit`) and a
/// handheld burst whose auto-exposure drifted, stacked with and without the
/// correction and measured against the truth (the reference view); on by
/// default for the handheld alignments only.
@Suite("Exposure matching")
struct ExposureMatchTests {
    @Test("the robust line finds gain and offset through noise and a fifth of outliers, and refuses what it cannot fit")
    func line() throws {
        var rng = SplitMix64(seed: 7)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        var reference = [Float](), frame = [Float]()
        for i in 0..<2000 {
            let r = 0.05 + 0.9 * uniform()
            // Small uniform noise; every fifth pair a passer-by, far off the line.
            var f = 1.2 * r - 0.03 + 0.01 * (uniform() - 0.5)
            if i % 5 == 0 { f = uniform() }
            reference.append(Float(r)); frame.append(Float(f))
        }
        let fit = try #require(ExposureFit.line(reference: reference, frame: frame))
        #expect(abs(fit.gain - 1.2) < 0.01 && abs(fit.offset + 0.03) < 0.005, "\(fit)")
        // Too few pairs, all clipped, or no spread: no line.
        #expect(ExposureFit.line(reference: Array(reference.prefix(10)), frame: Array(frame.prefix(10))) == nil)
        #expect(ExposureFit.line(reference: reference.map { _ in 1 }, frame: frame) == nil)
        #expect(ExposureFit.line(reference: reference.map { _ in 0.5 }, frame: frame) == nil)
        // The correction undoes the line.
        let c = ExposureFit.correction(gain: 1.25, offset: 0.05)
        #expect(abs(c.gain * (1.25 * 0.4 + 0.05) + c.offset - 0.4) < 1e-6)
    }

    /// A handheld burst without parallax (the band moves with the far
    /// plane) or passers-by, so that the plain average measures the
    /// exposure alone (`line()` checks the fit against outliers).
    static let rendered: (frames: [Image], truth: Image) = {
        var b = ParallaxBurst(width: 192, height: 160, frames: 5, seed: 5)
        b.parallax = 0
        b.objects = 0
        return b.render()
    }()
    /// Per-frame exposure: frame 0 is the reference.
    static let drift: [(gain: Float, offset: Float)] = [(1, 0), (0.8, 0.03), (1.25, -0.04), (0.9, -0.02), (1.12, 0.02)]
    static let drifted: [Image] = zip(rendered.frames, drift).map { image, d in
        var out = image
        for c in out.planes.indices { out.planes[c].pixels = out.planes[c].pixels.map { d.gain * $0 + d.offset } }
        return out
    }
    /// 8 px from the edges, where every frame covers the reference.
    static let interior: Plane = {
        let w = rendered.truth.width, h = rendered.truth.height
        var mask = Plane(width: w, height: h, repeating: 0)
        for y in 8..<(h - 8) { for x in 8..<(w - 8) { mask.pixels[y * w + x] = 1 } }
        return mask
    }()

    /// The burst's frames move by translations, which that alignment finds
    /// fastest; `drift()` runs `--align local` once as well.
    static func psnr(_ frames: [Image], mode: StackMode, robust: Bool = false, align: Alignment = .translation,
                     match: Bool?, normalization: Normalization = .none) throws -> (psnr: Double, result: StackResult) {
        var options = StackOptions()
        options.alignment = align
        options.mode = mode
        options.robustAverage = robust
        options.matchExposure = match
        options.normalization = normalization
        let result = try stack(frames.enumerated().map { .image($1, name: "frame \($0)") }, options: options)
        return (ImageMetrics.psnr(result.image, rendered.truth, mask: interior), result)
    }

    /// Measured (192 × 160, 5 frames, gains 0.8–1.25, translation):
    /// average 42.13 → 44.17 dB, robust average 42.61 → 43.85, median
    /// 39.68 → 44.09, sigma-clip 42.19 → 43.76; the drift-free burst gives
    /// 43.8–44.0 dB. The plain average gains least among the means because
    /// gains above and below 1 partly cancel in it; the median, which takes
    /// one frame's level per pixel, gains most.
    @Test("a drifting burst: matching the exposure gains ≥ 0.75 dB in every mode and reports each frame's line")
    func drift() throws {
        for (mode, robust) in [(StackMode.average, false), (.average, true), (.median, false), (.sigmaClip, false)] {
            let plain = try Self.psnr(Self.drifted, mode: mode, robust: robust, match: false)
            let matched = try Self.psnr(Self.drifted, mode: mode, robust: robust, match: true)
            print("exposure drift, \(mode)\(robust ? " robust" : ""): \(plain.psnr) dB plain, \(matched.psnr) dB matched")
            #expect(matched.psnr >= plain.psnr + 0.75, "\(mode): \(plain.psnr) → \(matched.psnr) dB")
            for (report, d) in zip(matched.result.frames.dropFirst(), Self.drift.dropFirst()) {
                let gain = try #require(report.exposureGain), offset = try #require(report.exposureOffset)
                print("  \(report.path): gain \(gain), offset \(offset); true \(d)")
                #expect(abs(gain - Double(d.gain)) < 0.01 && abs(offset - Double(d.offset)) < 0.005,
                        "\(report.path): gain \(gain), offset \(offset) against \(d)")
            }
            #expect(matched.result.frames.first?.exposureGain == nil, "the reference is not measured")
            #expect(plain.result.frames.allSatisfy { $0.exposureGain == nil })
        }
        // Through --align local (the homography and a field) the lines are the same within 0.01.
        let local = try Self.psnr(Self.drifted, mode: .median, align: .local, match: true)
        print("exposure drift, median, local: \(local.psnr) dB")
        #expect(local.psnr >= 43, "\(local.psnr) dB")
        for (report, d) in zip(local.result.frames.dropFirst(), Self.drift.dropFirst()) {
            #expect(abs((report.exposureGain ?? 0) - Double(d.gain)) < 0.01, "\(report.path): \(report.exposureGain ?? 0)")
        }
        let json = local.result.report(output: "o.png").json
        #expect(json.components(separatedBy: "\"exposureGain\"").count - 1 == Self.drift.count - 1, "\(json)")
        #expect(json.components(separatedBy: "\"exposureOffset\"").count - 1 == Self.drift.count - 1)
    }

    @Test("a burst without drift loses ≤ 0.05 dB to the matching, also where the homography turns it on by default")
    func noDrift() throws {
        for mode in [StackMode.median, .average] {
            let plain = try Self.psnr(Self.rendered.frames, mode: mode, match: false)
            let matched = try Self.psnr(Self.rendered.frames, mode: mode, match: true)
            print("no drift, \(mode): \(plain.psnr) dB plain, \(matched.psnr) dB matched")
            #expect(matched.psnr >= plain.psnr - 0.05, "\(mode): \(plain.psnr) → \(matched.psnr) dB")
        }
        let off = try Self.psnr(Self.rendered.frames, mode: .median, align: .homography, match: false)
        let byDefault = try Self.psnr(Self.rendered.frames, mode: .median, align: .homography, match: nil)
        print("no drift, median, homography: \(off.psnr) dB off, \(byDefault.psnr) dB by default")
        #expect(byDefault.result.frames.dropFirst().allSatisfy { $0.exposureGain != nil }, "on by default")
        #expect(byDefault.psnr >= off.psnr - 0.05, "\(off.psnr) → \(byDefault.psnr) dB")
    }

    @Test("without a displacement field the block means are the per-pixel path's, bit for bit (floats and bytes)")
    func projectedMeansMatchThePerPixelPath() throws {
        let w = 192, h = 160
        func texture(_ x: Int, _ y: Int, _ phase: Double) -> Double {
            0.5 + 0.2 * sin(Double(x) * 0.37 + phase) * cos(Double(y) * 0.23) + 0.15 * sin(Double(x + 2 * y) * 0.05)
        }
        let reference = Plane(width: w, height: h, pixels: (0..<(w * h)).map { Float(texture($0 % w, $0 / w, 0)) })
        let frame = Plane(width: w, height: h, pixels: (0..<(w * h)).map { Float(0.9 * texture($0 % w, $0 / w, 0.1) + 0.04) })
        let bytes = BytePlane(width: w, height: h, pixels: frame.pixels.map { UInt8(($0 * 255).rounded()) })
        let match = ExposureMatch(referenceLuma: reference)
        // Frame → reference: a small projective map, shifted so edge blocks leave the frame.
        let transform = Transform(matrix: [1.01, 0.02, -3.4, -0.015, 0.99, 2.7, 2e-5, -3e-5, 1])
        for luma in [DecodedFrame.Luma.floats(frame), .bytes(bytes)] {
            let fast = try #require(match.measure(luma: luma, transform: transform, field: nil))
            let perPixel = try #require(match.measure(luma: luma, transform: transform, field: .zero))
            print("exposure line without a field: \(fast), through the zero field: \(perPixel)")
            #expect(fast.gain == perPixel.gain && fast.offset == perPixel.offset)
            #expect(abs(fast.gain - 0.9) < 0.2, "a line through the texture, not a degenerate one")
        }
    }

    /// The pixels of a result, to compare two runs exactly.
    static func pixels(_ result: StackResult) -> [[Float]] { result.image.planes.map(\.pixels) }

    @Test("by default the homography matches exposure (≥ 0.75 dB on a drifting burst), translation does not (same pixels), and a normalization takes its place")
    func defaults() throws {
        let off = try Self.psnr(Self.drifted, mode: .median, align: .homography, match: false)
        let byDefault = try Self.psnr(Self.drifted, mode: .median, align: .homography, match: nil)
        print("exposure drift, median, homography: \(off.psnr) dB off, \(byDefault.psnr) dB by default")
        #expect(byDefault.psnr >= off.psnr + 0.75, "\(off.psnr) → \(byDefault.psnr) dB")
        #expect(off.result.frames.allSatisfy { $0.exposureGain == nil })
        for (report, d) in zip(byDefault.result.frames.dropFirst(), Self.drift.dropFirst()) {
            let gain = try #require(report.exposureGain)
            #expect(abs(gain - Double(d.gain)) < 0.01, "\(report.path): gain \(gain) against \(d.gain)")
        }
        // Translation: off by default, the very pixels of an explicit false.
        let translation = try Self.psnr(Self.drifted, mode: .median, match: nil)
        let translationOff = try Self.psnr(Self.drifted, mode: .median, match: false)
        #expect(Self.pixels(translation.result) == Self.pixels(translationOff.result))
        #expect(translation.result.frames.allSatisfy { $0.exposureGain == nil })
        // A normalization replaces the default matching: the pixels of an explicit false with it.
        let normalized = try Self.psnr(Self.drifted, mode: .median, align: .homography, match: nil,
                                       normalization: .multiplicative)
        let normalizedOff = try Self.psnr(Self.drifted, mode: .median, align: .homography, match: false,
                                          normalization: .multiplicative)
        #expect(Self.pixels(normalized.result) == Self.pixels(normalizedOff.result))
        #expect(normalized.result.frames.allSatisfy { $0.exposureGain == nil })
    }
}
