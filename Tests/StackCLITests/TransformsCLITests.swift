import Foundation
import Testing

/// `--transforms`: a run's report fed back skips registration and gives the
/// same bytes; a file that does not fit the run is refused with its name.
@Suite("--transforms on the command line")
struct TransformsCLITests {
    @Test("every mode: the report fed back gives byte-identical output, a left-out frame stays out")
    func reportFedBack() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 5)
        for mode in ["average", "median", "sigma-clip", "mode"] {
            let first = try CLIHarness.run(["-q", "--mode", mode, "--reference", "2", "-o", "\(folder)/\(mode)-1.png",
                                            "--report", "\(folder)/\(mode).json"] + frames + [frames[0]])
            #expect(first.status == 0, "\(first.stderr)")
            let second = try CLIHarness.run(["-q", "--mode", mode, "--transforms", "\(folder)/\(mode).json",
                                             "-o", "\(folder)/\(mode)-2.png", "--report", "\(folder)/\(mode)-2.json"]
                                            + frames + [frames[0]])
            #expect(second.status == 0, "\(second.stderr)")
            let a = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(mode)-1.png"))
            let b = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(mode)-2.png"))
            #expect(a == b, "\(mode): the replayed stack differs")
            let replayed = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(mode)-2.json"))
            let report = try #require(try JSONSerialization.jsonObject(with: replayed) as? [String: Any])
            let records = try #require(report["frames"] as? [[String: Any]])
            #expect(report["reference"] as? Int == 2)
            // The repeated first frame was left out in the first run, and stays out.
            #expect(records.last?["used"] as? Bool == false)
        }
    }

    @Test("a file for another frame count, or not JSON, is refused with its name and exit 1")
    func refused() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 3)
        try "{\"frames\": [{\"dx\": 0, \"dy\": 0}]}".write(toFile: "\(folder)/one.json", atomically: true, encoding: .utf8)
        try "{\"frames\": [".write(toFile: "\(folder)/cut.json", atomically: true, encoding: .utf8)
        for name in ["one.json", "cut.json"] {
            let run = try CLIHarness.run(["--transforms", "\(folder)/\(name)", "-o", "\(folder)/out.png"] + frames)
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("stack: error: \(folder)/\(name): "), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/out.png"))
        }
        let both = try CLIHarness.run(["--transforms", "\(folder)/one.json", "--reference", "1"] + frames)
        #expect(both.status == 2, "\(both.stderr)")
    }
}
