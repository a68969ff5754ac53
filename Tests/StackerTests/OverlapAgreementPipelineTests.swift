import Foundation
import Testing
import Registration
import SceneGen
@testable import Stacker

/// The overlap agreement (second registration confidence) as the pipeline
/// and the report carry it.
@Suite("Overlap agreement in the pipeline")
struct OverlapAgreementPipelineTests {
    @Test("a frame of an unrelated scene is skipped with both measures in the reason, and the report carries overlapAgreement")
    func unrelatedFrameIsReported() throws {
        let (_, paths, folder) = try StackPipelineTests.burst(frames: 4, seed: 21)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Replace the last frame by another scene of the same generator.
        var other = SceneConfig.street
        other.width = 320; other.height = 240; other.frameCount = 1; other.seed = 900
        let intruder = folder + "/intruder.jpg"
        var encode = EncodeOptions()
        encode.quality = 95
        try ImageFile.write(SceneGenerator.render(other).frames[0], to: intruder, options: encode)
        let run = Array(paths.dropLast()) + [intruder]

        for alignment in [Alignment.translation, .homography] {
            var options = StackOptions()
            options.threads = 2
            options.alignment = alignment
            let result = try StackPipeline.run(paths: run, options: options)
            let frames = result.frames
            print("\(alignment): scores \(frames.map { String(format: "%.3f", $0.score) }), agreement \(frames.map { $0.overlapAgreement.map { String(format: "%.3f", $0) } ?? "nil" }), reason \(frames.last?.reason ?? "-")")
            // The true frames score 0.3–0.7: the score alone accepts them and
            // the agreement is not measured.
            for f in frames.dropLast() {
                #expect(f.used && f.overlapAgreement == nil)
            }
            let bad = try #require(frames.last)
            #expect(!bad.used)
            // Unrelated generated street scenes: score 0.02–0.045, agreement
            // ≤ 0.022 (measured at 640×480 and 1600×1200; see OverlapAgreement).
            let agreement = try #require(bad.overlapAgreement)
            #expect(agreement < TranslationOptions.defaultMinimumAgreement / 2)
            let reason = bad.reason ?? ""
            #expect(reason.contains("registration score") && reason.contains("overlap agreement"), "\(reason)")
            let json = StackReport(result: result, options: options, outputPath: "out.jpg").json
            #expect(json.contains("\"overlapAgreement\": "))
        }
    }

    @Test("unrelated generated crowd scenes at 640×480 are rejected, their agreement measured and far under its bar")
    func unrelatedScenesJustAboveTheThreshold() throws {
        func luma(_ preset: SceneConfig, seed: UInt64) -> Plane {
            var c = preset
            c.width = 640; c.height = 480; c.frameCount = 1; c.seed = seed
            return SceneGenerator.render(c).frames[0].luma
        }
        var scores: [Double] = [], agreements: [Double] = []
        // (The street preset renders the same backgrounds for the same seeds.)
        for preset in [SceneConfig.crowd] {
            let registrar = try TranslationRegistrar(reference: luma(preset, seed: 1))
            for seed in UInt64(2)...4 {
                let e = try registrar.estimate(luma(preset, seed: seed))
                scores.append(e.score)
                agreements.append(e.overlapAgreement ?? -1)
                #expect(!e.isAccepted, "\(preset.preset) seed \(seed): score \(e.score), agreement \(e.overlapAgreement ?? -1)")
            }
        }
        print("unrelated 640×480: scores \(scores.map { String(format: "%.3f", $0) }), agreement \(agreements.map { String(format: "%.3f", $0) })")
        // Measured: scores 0.031–0.044, agreement 0–0.008. (One crowd scene
        // of another size peaked at 0.061, over the 0.06 threshold, which is
        // why scores up to 0.12 need the agreement too.) Every one is below
        // that ceiling, so the agreement was measured.
        #expect(agreements.allSatisfy { $0 >= 0 && $0 < TranslationOptions.defaultMinimumAgreement / 2 })
    }
}
