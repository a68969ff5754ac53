import Foundation
import Testing
import TestSupport

/// `stack` on a real pair with a zero-filled fan (scikit-image's
/// `OriginalX130Y130.png` / `TransformedX130Y130.png`, see
/// Tests/Fixtures/real/README-registration.md): the frame shows the
/// reference at `(x − 130, y + 130)`. The shared black surround used to pull
/// the phase correlation to (0, 0), score 0.07, accepted: stacked 184 px off.
@Suite("Masked pair on the command line")
struct MaskedPairCLITests {
    static let fixtures = TestFiles.realFixtures

    @Test("the fan pair is aligned within 2 px of (−130, 130) or the frame is refused; never stacked far off")
    func fanPairAlignsOrIsRefused() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reference = Self.fixtures + "/skimage-OriginalX130Y130.png"
        let frame = Self.fixtures + "/skimage-TransformedX130Y130.png"
        let run = try CLIHarness.run(["--report", folder + "/run.json", "-o", folder + "/out.png", reference, frame])
        if run.status != 0 {
            // Refused: the only other frame was not used, so nothing was stacked.
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stderr.contains("TransformedX130Y130"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
            return
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/run.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(report["frames"] as? [[String: Any]])
        let f = try #require(frames.last)
        let dx = try #require(f["dx"] as? Double), dy = try #require(f["dy"] as? Double)
        if f["used"] as? Bool == true {
            #expect(abs(dx + 130) <= 2 && abs(dy - 130) <= 2, "stacked at (\(dx), \(dy)), truth (−130, 130)")
        }
    }
}
