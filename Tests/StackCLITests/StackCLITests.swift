import Foundation
import Testing

@Suite("stack command line")
struct StackCLITests {
    @Test("--help prints OVERVIEW, USAGE and OPTIONS on stdout and exits 0")
    func help() throws {
        let r = try CLIHarness.run(["--help"])
        #expect(r.status == 0)
        for section in ["OVERVIEW:", "USAGE:", "OPTIONS:", "--mode", "--output", "--report"] {
            #expect(r.stdout.contains(section), "help lacks \(section)")
        }
        #expect(r.stderr.isEmpty)
    }

    @Test("--version prints the version and exits 0")
    func version() throws {
        let r = try CLIHarness.run(["--version"])
        #expect(r.status == 0 && r.stdout.hasPrefix("stack "))
    }

    @Test("usage mistakes exit 2 with a one-line error on stderr", arguments: [
        ["--bogus", "a.jpg", "b.jpg"], [], ["--mode", "loud", "a.jpg", "b.jpg"],
        ["--quality", "0", "a.jpg", "b.jpg"], ["--quality=101", "a.jpg", "b.jpg"],
        ["--reference", "5", "a.jpg", "b.jpg"], ["--output", "x.gif", "a.jpg", "b.jpg"], ["--output"],
    ])
    func usageErrors(arguments: [String]) throws {
        let r = try CLIHarness.run(arguments)
        #expect(r.status == 2, "\(arguments): status \(r.status)")
        #expect(r.stderr.hasPrefix("stack: error: "), "\(arguments): \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test("the report's dx, dy follow the sign convention of the generator's truth")
    func reportSignConvention() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 5, seed: 11)
        let r = try CLIHarness.run(["--output", "\(dir)/out.jpg", "--report", "\(dir)/run.json"] + frames)
        #expect(r.status == 0, "\(r.stderr)")
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/truth.json"))) as! [String: Any]
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/run.json"))) as! [String: Any]
        let tf = truth["frames"] as! [[String: Any]]
        let rf = report["frames"] as! [[String: Any]]
        #expect(rf.count == 5 && report["version"] as? Int == 1 && report["reference"] as? Int == 0)
        #expect(report["width"] as? Int == 256 && report["height"] as? Int == 192)
        var sawShift = false
        for (t, f) in zip(tf, rf) {
            let tdx = t["dx"] as! Double, tdy = t["dy"] as! Double
            let dx = f["dx"] as! Double, dy = f["dy"] as! Double
            // 0.1 px is the issue's subpixel bound for phase correlation on noisy frames.
            #expect(abs(dx - tdx) < 0.1 && abs(dy - tdy) < 0.1, "\(f["path"]!): (\(dx), \(dy)) vs truth (\(tdx), \(tdy))")
            let m = f["transform"] as! [[Double]]
            #expect(m[0][2] == dx && m[1][2] == dy && m[0][0] == 1 && m[2][2] == 1)
            #expect(f["used"] as? Bool == true)
            if abs(tdx) > 1 || abs(tdy) > 1 { sawShift = true }
        }
        #expect(sawShift, "the burst should contain real shifts for this test to mean anything")
        #expect(FileManager.default.fileExists(atPath: "\(dir)/out.jpg"))
    }

    @Test("an output that is one of the inputs is refused, however it is spelled")
    func refusesOverwritingAnInput() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 3)
        let before = try Data(contentsOf: URL(fileURLWithPath: frames[1]))
        try FileManager.default.createSymbolicLink(atPath: "\(dir)/link.jpg", withDestinationPath: frames[1])
        let spellings = [frames[1], "\(dir)/./frame_001.jpg", "\(dir)/link.jpg"]
        for output in spellings {
            let r = try CLIHarness.run(["--output", output] + frames)
            #expect(r.status == 1, "\(output): status \(r.status)")
            #expect(r.stderr.contains("stack: error: ") && r.stderr.contains(output) && r.stderr.contains("input"), "\(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: frames[1])) == before)
    }

    @Test("without --output the result is stacked.<ext>, and an existing one is never replaced")
    func implicitOutputName() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 3)
        let r1 = try CLIHarness.run(frames, in: dir)
        #expect(r1.status == 0, "\(r1.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(dir)/stacked.jpg"))
        let first = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/stacked.jpg"))
        let r2 = try CLIHarness.run(frames, in: dir)
        #expect(r2.status == 0)
        #expect(r2.stderr.contains("stacked-2.jpg"), "the run should say which name it took: \(r2.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/stacked.jpg")) == first)
        #expect(FileManager.default.fileExists(atPath: "\(dir)/stacked-2.jpg"))
    }

    @Test("an explicit --output is replaced atomically and leaves no temporary file")
    func explicitOutputReplaced() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 3)
        let out = "\(dir)/result.png"
        try Data("old".utf8).write(to: URL(fileURLWithPath: out))
        let r = try CLIHarness.run(["-q", "--output", out] + frames)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "--quiet prints nothing on success: \(r.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the output should now be a PNG")
        #expect(!CLIHarness.listing(dir).contains { $0.hasPrefix(".") }, "temporary files left: \(CLIHarness.listing(dir))")
    }

    @Test("a missing input fails with exit 1 naming the file, and writes nothing")
    func missingInput() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 2)
        let before = CLIHarness.listing(dir)
        let r = try CLIHarness.run(["--output", "\(dir)/out.jpg", frames[0], "\(dir)/nope.jpg", frames[1]])
        #expect(r.status == 1)
        #expect(r.stderr.contains("stack: error: \(dir)/nope.jpg: "), "\(r.stderr)")
        #expect(CLIHarness.listing(dir) == before)
    }
}
