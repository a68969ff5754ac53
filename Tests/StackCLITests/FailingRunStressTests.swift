import Foundation
import Testing
@testable import Stacker

/// Failing multi-frame runs, repeated: each must exit 1 with one
/// `stack: error:` line, never die on a signal (libdispatch's SIGILL when a
/// failed run tore down its worker pipeline unbalanced, issue 22). The
/// bursts are longer than the pipeline's window so that frames are produced
/// ahead of the failure.
///
/// `make test` runs each case `defaultRounds` times; `make stress` (which CI
/// runs after `make test`) sets `STACK_STRESS_ROUNDS=200`, the count that
/// caught the teardown race.
@Suite("failing runs, repeated", .serialized)
struct FailingRunStressTests {
    static let defaultRounds = 24
    static let rounds: Int = {
        guard let text = ProcessInfo.processInfo.environment["STACK_STRESS_ROUNDS"], let n = Int(text), n > 0 else {
            return defaultRounds
        }
        return n
    }()

    /// Runs `arguments` `rounds` times, cycling `--threads` through 1…4,
    /// and the `alternatives` (extra options) after each such cycle.
    func expectCleanFailures(_ arguments: [String], alternatives: [[String]] = [[]], mentioning: String,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        var signals: [Int32] = []
        for round in 0..<Self.rounds {
            let extra = alternatives[(round / 4) % alternatives.count]
            let r = try CLIHarness.run(["--quiet", "--threads", "\(1 + round % 4)"] + extra + arguments)
            if r.status > 128 || r.status < 0 { signals.append(r.status); continue }
            #expect(r.status == 1, "round \(round): status \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("stack: error: ") && lines[0].contains(mentioning),
                    "round \(round): \(r.stderr)", sourceLocation: sourceLocation)
        }
        #expect(signals.isEmpty, "\(signals.count) of \(Self.rounds) runs died on a signal: \(signals)",
                sourceLocation: sourceLocation)
    }

    @Test("star alignment on frames without stars")
    func starsWithoutStars() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 7, width: 128, height: 96)
        try expectCleanFailures(["--align", "stars", "--output", dir + "/out.jpg"] + frames,
                                mentioning: "stars")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.jpg"))
    }

    @Test("a truncated frame mid-burst")
    func truncatedFrame() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 12, width: 128, height: 96)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: frames[5]))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: frames[5]))
        // Every four rounds (threads 1…4) switch between average and median.
        try expectCleanFailures(["--output", dir + "/out.jpg"] + frames,
                                alternatives: [["--mode", "average"], ["--mode", "median"]],
                                mentioning: frames[5])
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.jpg"))
    }

    @Test("a frame that cannot be read mid-burst")
    func unreadableFrame() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var frames = try CLIHarness.makeBurst(in: dir, frames: 12, width: 128, height: 96)
        try FileManager.default.removeItem(atPath: frames[6])
        frames[6] = dir + "/missing.jpg"
        try expectCleanFailures(["--output", dir + "/out.jpg"] + frames, mentioning: frames[6])
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.jpg"))
    }
}
