import Foundation
import Testing
import Registration
import SceneGen
@testable import Stacker
import TestSupport

/// The overlap agreement (second registration confidence) as the pipeline
/// and the report carry it.
@Suite("Overlap agreement in the pipeline")
struct OverlapAgreementPipelineTests {
    @Test("a frame of an unrelated scene is skipped with both measures in the reason, and the report carries overlapAgreement")
    func unrelatedFrameIsReported() throws {
        let (_, paths, folder) = try StackPipelineTests.burst(frames: 4, seed: 21)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Replace the last frame by another scene of the same generator.
        let other = SceneBurst.street(width: 320, height: 240, frames: 1, seed: 900)
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
            let json = result.report(output: "out.jpg").json
            #expect(json.contains("\"overlapAgreement\": "))
        }
    }
}
