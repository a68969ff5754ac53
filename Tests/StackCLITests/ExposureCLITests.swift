import Foundation
import Testing

/// `--match-exposure` on the command line: a run reports each frame's
/// exposure line; with `--normalize` it is a usage error. On by default
/// for `--align homography` and `local`, off with `--no-match-exposure`.
@Suite("Exposure matching on the command line")
struct ExposureCLITests {
    /// How many frames of the report at `path` carry an exposure line.
    static func exposureLines(_ path: String) throws -> Int {
        try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\"exposureGain\"").count - 1
    }

    @Test("homography matches exposure by default, and so does a run given its report as --transforms (same bytes); --no-match-exposure and --normalize turn it off; translation is untouched")
    func defaults() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 3, width: 96, height: 64)
        func run(_ name: String, _ options: [String]) throws -> [UInt8] {
            let r = try CLIHarness.run(options + ["--mode", "median", "-o", "\(folder)/\(name).png",
                                                  "--report", "\(folder)/\(name).json"] + frames)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            return Array(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name).png")))
        }
        let byDefault = try run("default", ["--align", "homography"])
        #expect(try Self.exposureLines("\(folder)/default.json") == frames.count - 1)
        let off = try run("off", ["--align", "homography", "--no-match-exposure"])
        #expect(try Self.exposureLines("\(folder)/off.json") == 0)
        // The report's "align" carries the default to a run given its transforms (no --align).
        let reused = try run("reused", ["--transforms", "\(folder)/default.json"])
        #expect(reused == byDefault, "a --transforms run matches the one-shot run byte for byte")
        #expect(try Self.exposureLines("\(folder)/reused.json") == frames.count - 1)
        let reusedOff = try run("reused-off", ["--transforms", "\(folder)/off.json", "--no-match-exposure"])
        #expect(reusedOff == off)
        // --normalize takes the place of the default matching, without an error.
        _ = try run("normalized", ["--align", "homography", "--normalize", "additive"])
        #expect(try Self.exposureLines("\(folder)/normalized.json") == 0)
        // Translation: off by default; --no-match-exposure leaves its bytes alone.
        let translation = try run("translation", [])
        #expect(try run("translation-off", ["--no-match-exposure"]) == translation)
        #expect(try Self.exposureLines("\(folder)/translation.json") == 0)
        let both = try CLIHarness.run(["--match-exposure", "--no-match-exposure"] + frames)
        #expect(both.status == 2 && both.stderr.contains("--no-match-exposure"), "\(both.stderr)")
    }

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
