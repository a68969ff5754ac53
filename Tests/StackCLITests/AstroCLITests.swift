import Foundation
import SceneGen
import Stacker
import Testing

/// The astro options through the built binary: calibration folders, star
/// alignment, normalisation, the per-frame report, and their mistakes.
@Suite("stack: astro options")
struct AstroCLITests {
    /// A small generated session (6 lights 320×240, 3 calibration frames each).
    static func session(in folder: String) throws -> [String] {
        var c = StarFieldConfig()
        c.width = 320
        c.height = 240
        c.frameCount = 6
        c.calibrationFrames = 3
        c.starDensity = 6e-4
        c.maxShift = 12
        c.seed = 5
        try StarField(c).write(to: folder)
        return (0..<6).map { String(format: "lights/light_%03d.png", $0) }
    }

    @Test("calibrated, star-aligned, normalised sigma-clip: exit 0 and a report with stars, FWHM, background and noise per frame")
    func fullAstroRun() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lights = try Self.session(in: folder)
        let run = try CLIHarness.run(["--align", "stars", "--mode", "sigma-clip", "--normalize", "additive",
                                      "--bias", "bias", "--dark", "darks", "--flat", "flats", "--cosmetic",
                                      "--weights", "auto", "-o", "deep.png", "--depth", "16",
                                      "--report", "run.json", "--quiet"] + lights, in: folder)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/run.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(report["align"] as? String == "stars")
        let frames = try #require(report["frames"] as? [[String: Any]])
        #expect(frames.count == 6)
        for f in frames {
            #expect(f["used"] as? Bool == true, "\(f)")
            #expect((f["starsFound"] as? Int ?? 0) >= 20, "\(f)")
            #expect((f["starsMatched"] as? Int ?? 0) >= 15, "\(f)")
            // The generator's PSF is 2.8 px FWHM.
            #expect(abs((f["fwhm"] as? Double ?? 0) - 2.8) < 0.4, "\(f)")
            #expect(f["background"] is Double && f["noise"] is Double && f["weight"] is Double, "\(f)")
        }
        let timings = try #require(report["timings"] as? [String: Any])
        #expect((timings["calibrate"] as? Double ?? 0) > 0)
        let output = try ImageFile.read(folder + "/deep.png")
        #expect(output.bitDepth == 16 && output.image.width == 320 && output.image.height == 240)
    }

    @Test("--align stars-affine fits six parameters: the frames align and the report carries a non-similarity matrix")
    func affineStars() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lights = try Self.session(in: folder)
        let run = try CLIHarness.run(["--align", "stars-affine", "--mode", "median", "-o", "out.fits",
                                      "--report", "run.json", "--quiet"] + lights, in: folder)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/run.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(report["align"] as? String == "stars-affine")
        let frames = try #require(report["frames"] as? [[String: Any]])
        var asymmetric = 0
        for f in frames.dropFirst() {
            #expect(f["used"] as? Bool == true, "\(f)")
            // Star alignment alone makes it an astro run: background and noise are reported.
            #expect(f["background"] is Double && f["noise"] is Double, "\(f)")
            let t = try #require(f["transform"] as? [[Double]])
            // A similarity has m00 = m11 and m01 = −m10 exactly; a free
            // affine fit to noisy centroids never does.
            if t[0][0] != t[1][1] || t[0][1] != -t[1][0] { asymmetric += 1 }
        }
        #expect(asymmetric == frames.count - 1)
    }

    @Test("astro usage mistakes exit 2 with a one-line error", arguments: [
        (["--cosmetic"], "--cosmetic needs dark frames"),
        (["--normalize", "median"], "unknown --normalize 'median'"),
        (["--master-mode", "mean"], "unknown --master-mode 'mean'"),
        (["--align", "galaxies"], "unknown --align 'galaxies'"),
        (["--cfa", "RGBG"], "unknown --cfa 'RGBG' (expected auto, RGGB, BGGR, GRBG, GBRG or none)"),
        (["--debayer", "vng"], "unknown --debayer 'vng' (expected bilinear, rcd or ahd)"),
        (["--wb", "grey"], "unknown --wb 'grey' (expected none, camera or auto)"),
    ])
    func usageMistakes(extra: [String], message: String) throws {
        let run = try CLIHarness.run(extra + ["a.png", "b.png"])
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "stderr: \(run.stderr)")
    }

    @Test("bad calibration input exits 1 naming the folder or file, and writes nothing")
    func badCalibrationInput() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lights = try Self.session(in: folder)
        try FileManager.default.createDirectory(atPath: folder + "/empty", withIntermediateDirectories: true)
        let empty = try CLIHarness.run(["--bias", "empty", "-o", "out.png"] + lights, in: folder)
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("stack: error: empty") && empty.stderr.contains("no image file"), "stderr: \(empty.stderr)")

        // A dark of another size.
        var small = StarFieldConfig()
        small.width = 64; small.height = 48; small.frameCount = 1; small.calibrationFrames = 1; small.maxShift = 0
        try StarField(small).write(to: folder + "/small")
        let wrong = try CLIHarness.run(["--dark", "small/darks/dark_000.png", "-o", "out.png"] + lights, in: folder)
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("small/darks/dark_000.png") && wrong.stderr.contains("64×48"), "stderr: \(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
    }
}
