import Foundation
import Testing
import Registration
import SceneGen
@testable import Stacker
import TestSupport

/// Frame quality from stars (`--keep-by`, `--weights fwhm|stars`) on a
/// generated star session of 13 lights in which three frames are spoiled
/// after rendering: one blurred (large FWHM), one trailed (elongated
/// stars), one under thin cloud (few stars, bright sky).
@Suite("Frame quality from stars")
struct StarQualityTests {
    /// The spoiled frames of `session()`.
    static let blurred = 3, trailed = 6, clouded = 9

    /// The 13-light session of `AstroStackingTests.session` with frames
    /// `blurred`, `trailed` and `clouded` rewritten:
    /// - blurred: a Gaussian of σ = 1.6 px (FWHM 2.8 → ≈ 4.7 px);
    /// - trailed: the mean of the frame shifted by 0…3 px along x (a 4-px
    ///   trail: axis ratio ≈ 1.4, roundness ≈ 0.73; longer trails exceed
    ///   the detector's elongation limit and leave too few stars to align);
    /// - clouded: star and sky light × 0.7 plus a cloud glow of 0.03 (on
    ///   the 0…1 scale of the 16-bit file, 3.5 × the sky) with noise of
    ///   σ = 0.00005 (half the sky's ≈ 0.0001): the faint stars drown
    ///   (measured: 15 found against ≈ 68), and enough stay to align it.
    /// Only the frames in `spoiled` are rewritten.
    static func session(spoiled: Set<Int> = [blurred, trailed, clouded]) throws -> AstroStackingTests.Session {
        let s = try AstroStackingTests.session(seed: 31)
        var rng = TestRandom(seed: 313)
        for (index, spoil) in [(blurred, { (p: Plane) in gaussianBlur(p, sigma: 1.6) }),
                               (trailed, { (p: Plane) in trail(p, length: 4) }),
                               (clouded, { (p: Plane) in
                                   Plane(width: p.width, height: p.height, pixels: p.pixels.map {
                                       min(1, max(0, 0.7 * $0 + 0.03 + Float(0.00005 * rng.gaussian())))
                                   })
                               })] where spoiled.contains(index) {
            let path = s.lights[index]
            let image = try ImageFile.read(path).image
            let spoiled = Image(width: image.width, height: image.height, planes: image.planes.map(spoil))
            try ImageFile.write(spoiled, to: path, options: EncodeOptions(bitDepth: 16))
        }
        return s
    }

    /// `p` convolved with a Gaussian of `sigma` pixels (separable, edges clamped).
    static func gaussianBlur(_ p: Plane, sigma: Double) -> Plane {
        let r = Int((3 * sigma).rounded(.up))
        let taps = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = taps.reduce(0, +)
        let k = taps.map { Float($0 / total) }
        func pass(_ src: Plane, horizontal: Bool) -> Plane {
            var out = src
            for y in 0..<src.height {
                for x in 0..<src.width {
                    var s: Float = 0
                    for (i, w) in k.enumerated() {
                        let d = i - r
                        s += w * (horizontal ? src[min(src.width - 1, max(0, x + d)), y]
                                             : src[x, min(src.height - 1, max(0, y + d))])
                    }
                    out[x, y] = s
                }
            }
            return out
        }
        return pass(pass(p, horizontal: true), horizontal: false)
    }

    /// The mean of `p` shifted by 0…length−1 pixels along x (edges clamped):
    /// a star trailed by a mount that slipped during the exposure.
    static func trail(_ p: Plane, length: Int) -> Plane {
        var out = p
        for y in 0..<p.height {
            for x in 0..<p.width {
                var s: Float = 0
                for d in 0..<length { s += p[min(p.width - 1, x + d), y] }
                out[x, y] = s / Float(length)
            }
        }
        return out
    }

    /// The median of `values`.
    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    @Test("every star-aligned frame records FWHM, roundness, star count and background, and each spoiled frame stands out by its own measure")
    func measuresRecorded() throws {
        let s = try Self.session()
        defer { s.remove() }
        let r = try AstroStackingTests.run(s, mode: .average, align: .stars)
        let frames = r.frames
        for (i, f) in frames.enumerated() {
            #expect(f.used, "frame \(i): \(f.reason ?? "")")
            print(String(format: "frame %2d: fwhm %.3f roundness %.3f stars %d background %.5f", i,
                         f.fwhm ?? -1, f.roundness ?? -1, f.starsFound ?? -1, f.background ?? -1))
        }
        let good = frames.indices.filter { ![Self.blurred, Self.trailed, Self.clouded].contains($0) }
        let fwhm = Self.median(good.map { frames[$0].fwhm ?? 0 })
        let roundness = Self.median(good.map { frames[$0].roundness ?? 0 })
        let stars = Self.median(good.map { Double(frames[$0].starsFound ?? 0) })
        let background = good.map { frames[$0].background ?? 1 }.max()!
        // Blur of σ 1.6 px on FWHM 2.8 px gives ≈ 4.7 px: far above 1.3 × the good frames'.
        #expect((frames[Self.blurred].fwhm ?? 0) > 1.3 * fwhm)
        // A 4-px trail on a 2.8-px star: axis ratio ≈ 1.4, so roundness ≈ 0.73 against ≈ 0.9.
        #expect((frames[Self.trailed].roundness ?? 1) < roundness - 0.1)
        #expect(Double(frames[Self.clouded].starsFound ?? .max) < stars / 2)
        #expect((frames[Self.clouded].background ?? 0) > 2 * background)
        // The good frames' own measures: round stars of the rendered width.
        #expect(abs(fwhm - 2.8) < 0.3 && roundness > 0.8)

        // Each measure, keeping 12 of 13, drops the frame it is meant to catch.
        for (measure, spoiled) in [(FrameSelection.Measure.fwhm, Self.blurred), (.roundness, Self.trailed),
                                   (.stars, Self.clouded), (.background, Self.clouded)] {
            let outcome = try #require(FrameSelection.count(12).select(frames, referenceIndex: 0, usesStars: true, by: measure))
            #expect(outcome.dropped.map(\.index) == [spoiled], "\(measure): dropped \(outcome.dropped)")
            let value = try #require(measure.value(of: frames[spoiled]))
            #expect(outcome.dropped.first?.value == value)
            #expect(measure.lowerIsBetter ? value > outcome.cutoff : value < outcome.cutoff, "\(measure): \(value) against \(outcome.cutoff)")
        }
        // FWHM alone keeps the clouded frame: its few stars are as sharp as any.
        let byWidth = try #require(FrameSelection.count(10).select(frames, referenceIndex: 0, usesStars: true))
        #expect(byWidth.measure == .fwhm && !byWidth.dropped.map(\.index).contains(Self.clouded))
    }

    @Test("--keep 12 --keep-by roundness through the pipeline drops the trailed frame and the report names it with its roundness and the cut-off")
    func keepByRoundnessReported() throws {
        let s = try Self.session()
        defer { s.remove() }
        let r = try AstroStackingTests.run(s, mode: .median, align: .stars) { o in
            o.keep = .count(12)
            o.keepBy = .roundness
        }
        let selection = try #require(r.selection)
        #expect(selection.measure == .roundness && selection.kept == 12)
        #expect(selection.dropped.map(\.index) == [Self.trailed])
        let trailed = r.frames[Self.trailed]
        #expect(!trailed.used && trailed.weight == 0)
        #expect(trailed.reason?.contains("roundness") == true && trailed.reason?.contains("below the cut-off") == true,
                "\(trailed.reason ?? "")")
        #expect(r.warnings.contains { $0.contains("--keep: dropped 1 of 13") && $0.contains("light_006") })
        let json = try JSONSerialization.jsonObject(with: Data(StackReport(result: r, outputPath: "out.png").json.utf8)) as! [String: Any]
        let keep = try #require(json["keep"] as? [String: Any])
        #expect(keep["measure"] as? String == "roundness" && keep["cutoff"] as? Double == selection.cutoff)
        let dropped = try #require(keep["dropped"] as? [[String: Any]])
        #expect(dropped.count == 1 && dropped[0]["roundness"] as? Double == trailed.roundness)
        let records = try #require(json["frames"] as? [[String: Any]])
        #expect(records.allSatisfy { $0["roundness"] is Double && $0["fwhm"] is Double && $0["starsFound"] is Int && $0["background"] is Double })
    }

    @Test("--weights fwhm weights the blurred and trailed frames down: 3.7 dB over equal weights in the average; in the sigma-clip mean, which already clips their star cores, it costs the noise of the lost weight",
          arguments: [StackMode.average, .sigmaClip])
    func fwhmWeightsImproveStack(_ mode: StackMode) throws {
        // Without the clouded frame: its few stars read narrower than the
        // others' (2.5 against 2.8 px), so FWHM weights raise it (≈ 1.24)
        // although its stars are fainter; --keep-by stars removes it first.
        let s = try Self.session(spoiled: [Self.blurred, Self.trailed])
        defer { s.remove() }
        let truth = s.field.truth()
        let equal = try AstroStackingTests.run(s, mode: mode, align: .stars)
        let weighted = try AstroStackingTests.run(s, mode: mode, align: .stars) { $0.weighting = .fwhm }
        let w = weighted.frames.map(\.weight)
        print("\(mode) fwhm weights: \(w.map { String(format: "%.3f", $0) }.joined(separator: " "))")
        #expect(w[0] == 1)
        // (2.8 / 4.56)² ≈ 0.38 and (2.8 / 3.36)² ≈ 0.69.
        #expect(w[Self.blurred] < 0.45 && w[Self.trailed] < 0.8)
        for i in weighted.frames.indices where ![Self.blurred, Self.trailed].contains(i) {
            #expect(abs(w[i] - 1) < 0.1, "frame \(i) weight \(w[i])")
        }
        #expect(equal.frames.allSatisfy { $0.weight == 1 })
        let border = s.border
        let psnrEqual = ImageMetrics.psnr(equal.image, truth, border: border)
        let psnrWeighted = ImageMetrics.psnr(weighted.image, truth, border: border)
        print("\(mode): equal \(psnrEqual) dB, fwhm-weighted \(psnrWeighted) dB")
        if mode == .average {
            // Measured: 65.60 → 69.30 dB. The blurred frame's wide stars are
            // the largest error of the equal-weight average.
            #expect(psnrWeighted > psnrEqual + 2, "equal \(psnrEqual) dB, fwhm-weighted \(psnrWeighted) dB")
        } else {
            // Measured: 80.31 → 79.84 dB. The clip removes the blurred
            // frame's deviating star cores already, so what the weights
            // change is the noise: 13 equal frames against an effective
            // (Σw)² / Σw² of about 12.2, 0.27 dB of noise, with the
            // trailed and blurred frames' remaining wings on top. The
            // weights must reach the kernel (the image changes), and the
            // cost stays below 1 dB.
            #expect(weighted.image != equal.image)
            let effective = pow(w.reduce(0, +), 2) / w.map { $0 * $0 }.reduce(0, +)
            #expect(effective > 11.5 && effective < 13, "effective frames \(effective)")
            #expect(psnrWeighted > psnrEqual - 1, "equal \(psnrEqual) dB, fwhm-weighted \(psnrWeighted) dB")
        }
    }

    @Test("--weights stars weights the clouded frame by its star count over the reference's")
    func starCountWeights() throws {
        let s = try Self.session()
        defer { s.remove() }
        let r = try AstroStackingTests.run(s, mode: .average, align: .stars) { $0.weighting = .stars }
        let reference = try #require(r.frames[0].starsFound)
        for f in r.frames where f.used {
            let expected = Double(try #require(f.starsFound)) / Double(reference)
            #expect(abs(f.weight - expected) < 1e-12, "\(f.path): weight \(f.weight), stars \(f.starsFound ?? -1)")
        }
        #expect(r.frames[Self.clouded].weight < 0.5)
    }

    @Test("star weights and star --keep-by measures without star alignment are refused before any frame is read")
    func refusedWithoutStars() throws {
        var o = StackOptions()
        o.weighting = .fwhm
        #expect(o.starMeasureConflict(transformsGiven: false)?.contains("--weights fwhm needs star measures") == true)
        o.alignment = .stars
        #expect(o.starMeasureConflict(transformsGiven: false) == nil)
        #expect(o.starMeasureConflict(transformsGiven: true)?.contains("without --transforms") == true)
        o.weighting = .equal
        o.keepBy = .roundness
        #expect(o.starMeasureConflict(transformsGiven: false)?.contains("needs --keep") == true)
        o.keep = .percent(80)
        #expect(o.starMeasureConflict(transformsGiven: false) == nil)
        o.alignment = .translation
        #expect(o.starMeasureConflict(transformsGiven: false)?.contains("--keep-by roundness needs star measures") == true)
        o.keepBy = .background
        #expect(o.starMeasureConflict(transformsGiven: false)?.contains("--keep-by background needs") == true)
        o.normalization = .additive
        #expect(o.starMeasureConflict(transformsGiven: false) == nil)
        o.keepBy = .score
        o.normalization = .none
        #expect(o.starMeasureConflict(transformsGiven: false) == nil)
        // The pipeline refuses them too, naming no frame.
        o.weighting = .stars
        let error = #expect(throws: StackerError.self) {
            try StackPipeline.run(paths: ["/nonexistent/a.png", "/nonexistent/b.png"], options: o)
        }
        #expect(error?.reason.contains("--weights stars needs star measures") == true, "\(String(describing: error))")
    }
}
