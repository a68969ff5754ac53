import Foundation
import Testing

/// `--progress json` (one object per frame on stderr), the terminal line's
/// rate and time left, and `--plot FILE.svg`.
@Suite("stack: progress and the frame plot")
struct ProgressAndPlotCLITests {
    @Test("--progress json writes one JSON object per frame aligned, with rate and time left, even with --quiet")
    func jsonProgress() throws {
        let dir = try CLIHarness.temporaryFolder()
        let frames = try CLIHarness.makeBurst(in: dir, frames: 4, width: 96, height: 64)
        let run = try CLIHarness.run(["-q", "--progress", "json", "-o", dir + "/out.jpg"] + frames)
        #expect(run.status == 0, "\(run.stderr)")
        let objects = try run.stderr.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not a JSON object: \($0)")
        }
        let aligning = objects.filter { $0["stage"] as? String == "aligning" }
        #expect(aligning.count == frames.count)
        #expect(aligning.compactMap { $0["completed"] as? Int } == Array(1...frames.count))
        #expect(Set(aligning.compactMap { $0["path"] as? String }) == Set(frames))
        for object in aligning {
            let rate = try #require(object["framesPerSecond"] as? Double)
            #expect(rate > 0)
            #expect((object["remaining"] as? Double).map { $0 >= 0 } == true)
        }
        #expect(aligning.last?["remaining"] as? Double == 0)
        let elapsed = aligning.compactMap { $0["elapsed"] as? Double }
        #expect(elapsed == elapsed.sorted())
    }

    @Test("on a terminal the progress line shows frames/s, elapsed time and time left")
    func terminalLine() throws {
        let dir = try CLIHarness.temporaryFolder()
        let frames = try CLIHarness.makeBurst(in: dir, frames: 3, width: 96, height: 64)
        // `script` gives the run a pseudo-terminal for stderr.
        let command = ([try CLIHarness.binary, "-o", dir + "/out.jpg"] + frames).map { "'\($0)'" }.joined(separator: " ")
        let run = try ToolRun.run(["script", "-qec", command, "/dev/null"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("stack: aligning 3/3 · "), "\(run.stdout)")
        #expect(run.stdout.contains(" frames/s · ") && run.stdout.contains(" elapsed · ") && run.stdout.contains("0:00 left"), "\(run.stdout)")
    }

    @Test("--plot draws valid SVG with one point per frame in each panel, the reference, the frames left out and the --keep cut-off")
    func plot() throws {
        let dir = try CLIHarness.temporaryFolder()
        let frames = try CLIHarness.makeBurst(in: dir, frames: 5, width: 96, height: 64)
        let svg = dir + "/frames.svg"
        let run = try CLIHarness.run(["-q", "--keep", "3", "--plot", svg, "-o", dir + "/out.jpg"] + frames)
        #expect(run.status == 0, "\(run.stderr)")
        let lint = try ToolRun.run(["xmllint", "--noout", svg])
        #expect(lint.status == 0 && lint.stderr.isEmpty, "\(lint.stderr)")
        func count(_ xpath: String) throws -> Int {
            let r = try ToolRun.run(["xmllint", "--xpath", xpath, svg])
            return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        let panels = try count("count(//*[local-name()='g'][@class='panel'])")
        #expect(panels == 2, "score and weight")
        for panel in 1...panels {
            let g = "(//*[local-name()='g'][@class='panel'])[\(panel)]"
            #expect(try count("count(\(g)/*[local-name()='circle'][@class='point'])") == frames.count)
            #expect(try count("count(\(g)/*[local-name()='circle'][@data-state='reference'])") == 1)
            #expect(try count("count(\(g)/*[local-name()='circle'][@data-state='unused'])") == 2)
        }
        #expect(try count("count(//*[local-name()='line'][@class='cutoff'])") == 1)
        #expect(try CLIHarness.run(["--plot", dir + "/p.png"] + frames).status == 2)
    }
}
