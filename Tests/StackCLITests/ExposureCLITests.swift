import Foundation
import Testing

/// `--match-exposure` on the command line: a run reports each frame's
/// exposure line; with `--normalize` it is a usage error.
@Suite("Exposure matching on the command line")
struct ExposureCLITests {
    @Test("--match-exposure reports exposureGain and exposureOffset per aligned frame; with --normalize it is refused")
    func matchExposure() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 3, width: 96, height: 64)
        let run = try CLIHarness.run(["--match-exposure", "--mode", "median", "-o", "\(folder)/out.png",
                                      "--report", "\(folder)/r.json"] + frames)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try String(contentsOfFile: "\(folder)/r.json", encoding: .utf8)
        // The reference has none; the other frames, of one exposure, a gain near 1.
        #expect(report.components(separatedBy: "\"exposureGain\"").count - 1 == frames.count - 1, "\(report)")
        let gains = report.components(separatedBy: "\"exposureGain\": ").dropFirst()
            .compactMap { Double($0.prefix { "0123456789.e-".contains($0) }) }
        #expect(gains.count == frames.count - 1 && gains.allSatisfy { abs($0 - 1) < 0.05 }, "\(gains)")
        let refused = try CLIHarness.run(["--match-exposure", "--normalize", "additive"] + frames)
        #expect(refused.status == 2 && refused.stderr.contains("--match-exposure and --normalize"), "\(refused.stderr)")
    }
}
