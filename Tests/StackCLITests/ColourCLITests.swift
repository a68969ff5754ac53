import Foundation
import Testing
import Stacker
import TestSupport

/// `--no-colour-convert` and the report's `colourConverted`, through the binary.
@Suite("Colour profiles on the command line")
struct ColourCLITests {
    /// A street burst of 3 JPEGs whose last frame is tagged Display P3
    /// (its pixels left as they are: only the profile differs).
    static func burst(in dir: String) throws -> [String] {
        let frames = try CLIHarness.makeBurst(in: dir, frames: 3, width: 128, height: 96)
        let last = try Data(contentsOf: URL(fileURLWithPath: frames[2]))
        let tagged = HandMadeMetadata.inserting(HandMadeMetadata.iccPieces(ColourProfile.displayP3.bytes).map { (0xE2, $0) },
                                                intoJPEG: [UInt8](last))
        try Data(tagged).write(to: URL(fileURLWithPath: frames[2]))
        return frames
    }

    @Test("--no-colour-convert refuses a frame in another profile in one line naming it, exit 1, no output; without it the frame is converted and the report says so")
    func refusal() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { TestFiles.remove(dir) }
        let frames = try Self.burst(in: dir)
        let out = dir + "/out.jpg", report = dir + "/run.json"
        let refused = try CLIHarness.run(["--no-colour-convert", "-o", out] + frames)
        #expect(refused.status == 1, "status \(refused.status): \(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.hasPrefix("stack: error: \(frames[2]): its colour profile differs"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        let skipped = try CLIHarness.run(["--no-colour-convert", "--skip-bad", "-q", "-o", out] + frames)
        #expect(skipped.status == 0, "\(skipped.stderr)")

        let converted = try CLIHarness.run(["-q", "-o", out, "--report", report] + frames)
        #expect(converted.status == 0, "\(converted.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let records = try #require(json["frames"] as? [[String: Any]])
        #expect(records.map { $0["colourConverted"] as? Bool } == [nil, nil, true])
    }

    @Test("the help lists --no-colour-convert")
    func help() throws {
        let r = try CLIHarness.run(["--help"])
        #expect(r.status == 0 && r.stdout.contains("--no-colour-convert"))
    }
}
