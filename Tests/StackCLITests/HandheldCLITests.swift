import Foundation
import Testing

/// The CLI words of issue 26: `--align local` and its report fields,
/// `--robust` and where it is refused.
@Suite("Handheld options on the command line")
struct HandheldCLITests {
    @Test("--align local stacks and reports each frame's field; --robust outside the average is a usage error")
    func localAndRobust() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 3, width: 96, height: 64)
        let run = try CLIHarness.run(["--align", "local", "--mode", "average", "--robust", "-o", "\(folder)/out.png",
                                      "--report", "\(folder)/r.json"] + frames)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try String(contentsOfFile: "\(folder)/r.json", encoding: .utf8)
        #expect(report.contains("\"align\": \"local\""))
        // Every frame but the reference carries the summary.
        #expect(report.components(separatedBy: "\"localP95\"").count - 1 == frames.count - 1, "\(report)")
        for mode in ["median", "sigma-clip"] {
            let refused = try CLIHarness.run(["--mode", mode, "--robust"] + frames)
            #expect(refused.status == 2 && refused.stderr.contains("--robust goes with --mode average"), "\(refused.stderr)")
        }
        let unknown = try CLIHarness.run(["--align", "locally"] + frames)
        #expect(unknown.status == 2 && unknown.stderr.contains("local"))
    }

    @Test("--align local on frames too small for two tiles a side stacks with the homography alone, and each report says so")
    func localOnTinyFrames() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 3, width: 40, height: 24)
        let run = try CLIHarness.run(["--align", "local", "-o", "\(folder)/out.png", "--report", "\(folder)/r.json"] + frames)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try String(contentsOfFile: "\(folder)/r.json", encoding: .utf8)
        #expect(report.components(separatedBy: "no local alignment: the frame is 40×24").count - 1 == frames.count - 1, "\(report)")
        #expect(!report.contains("\"localP95\""))
        #expect(FileManager.default.fileExists(atPath: "\(folder)/out.png"))
    }
}
