import Foundation
import Stacker
import Testing

/// `--keep-by` and `--weights fwhm|stars` through the built binary.
@Suite("stack: star quality options")
struct StarQualityCLITests {
    @Test("--weights fwhm with --keep 5 --keep-by stars: exit 0, weights (FWHM_ref / FWHM)², the frame with the fewest stars dropped and named with its count and the cut-off")
    func weightsAndKeepBy() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lights = try AstroCLITests.session(in: folder)
        let run = try CLIHarness.run(["--align", "stars", "--mode", "sigma-clip", "--weights", "fwhm",
                                      "--keep", "5", "--keep-by", "stars", "-o", "deep.png",
                                      "--report", "run.json"] + lights, in: folder)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/run.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(report["frames"] as? [[String: Any]])
        let reference = try #require(frames[0]["fwhm"] as? Double)
        let stars = frames.map { $0["starsFound"] as? Int ?? -1 }
        // The worst by star count among frames 1…5 (ties: the later frame).
        let worst = (1..<6).min { stars[$0] != stars[$1] ? stars[$0] < stars[$1] : $0 > $1 }!
        let keep = try #require(report["keep"] as? [String: Any])
        #expect(keep["measure"] as? String == "stars" && keep["kept"] as? Int == 5)
        let dropped = try #require(keep["dropped"] as? [[String: Any]])
        #expect(dropped.count == 1 && dropped[0]["path"] as? String == lights[worst], "\(dropped), stars \(stars)")
        #expect(dropped[0]["stars"] as? Double == Double(stars[worst]))
        #expect((keep["cutoff"] as? Double ?? -1) >= Double(stars[worst]))
        #expect(run.stderr.contains("--keep: dropped 1 of 6 frames, stars below"), "stderr: \(run.stderr)")
        for (i, f) in frames.enumerated() where i != worst {
            let fwhm = try #require(f["fwhm"] as? Double)
            let weight = try #require(f["weight"] as? Double)
            #expect(abs(weight - (reference / fwhm) * (reference / fwhm)) < 1e-9, "\(f)")
            #expect((f["roundness"] as? Double ?? 0) > 0.7, "\(f)")
        }
    }

    @Test("star quality usage mistakes exit 2 with a one-line error, before any frame is read", arguments: [
        (["--weights", "sharp"], "unknown --weights 'sharp' (expected equal, auto, fwhm or stars)"),
        (["--weights", "fwhm"], "--weights fwhm needs star measures: use --align stars or stars-affine"),
        (["--weights", "stars", "--align", "homography"], "--weights stars needs star measures"),
        (["--keep-by", "fwhm", "--align", "stars"], "--keep-by fwhm needs --keep N or --keep P%"),
        (["--keep", "3", "--keep-by", "seeing"], "unknown --keep-by 'seeing' (expected score, fwhm, roundness, stars or background)"),
        (["--keep", "3", "--keep-by", "roundness"], "--keep-by roundness needs star measures"),
        (["--keep", "3", "--keep-by", "background"], "--keep-by background needs the frames' background measured"),
        (["--keep", "3", "--keep-by", "stars", "--align", "stars", "--transforms", "t.json"], "without --transforms"),
    ])
    func usageMistakes(extra: [String], message: String) throws {
        let run = try CLIHarness.run(extra + ["a.png", "b.png"])
        #expect(run.status == 2)
        // The error line, then the usage reminder.
        let first = run.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("stack: error: ") && first.contains(message), "stderr: \(run.stderr)")
    }
}
