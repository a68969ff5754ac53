import Foundation
import Registration
import Stacker
import Testing
import TestSupport

/// `stack compare IMAGE --truth T [--mask M]`: the library's metrics from
/// the command line, with bounds that set the exit code.
@Suite("stack compare")
struct CompareCLITests {
    /// The offset added inside the mask, on the 16-bit grid so that the
    /// PNG files hold the pair exactly.
    static let offset = 2621.0 / 65535

    /// Writes a known pair and its mask into `dir`: a 64 × 48 RGB truth of
    /// random 16-bit values in 0.1…0.8, the image equal to it except for
    /// `offset` added to every sample of the left half, and a mask white
    /// over that half. Returns (image, truth, mask) paths.
    static func knownPair(in dir: String) throws -> (image: String, truth: String, mask: String) {
        let w = 64, h = 48
        var rng = TestRandom(seed: 30)
        var truth = Image(width: w, height: h, channels: 3)
        for c in 0..<3 {
            for k in 0..<(w * h) { truth.planes[c].pixels[k] = Float(Double(rng.int(in: 6554...52428)) / 65535) }
        }
        var image = truth
        var mask = Plane(width: w, height: h)
        for y in 0..<h {
            for x in 0..<(w / 2) {
                mask[x, y] = 1
                for c in 0..<3 { image.planes[c][x, y] = Float((Double(truth.planes[c][x, y]) * 65535 + 2621) / 65535) }
            }
        }
        let options = EncodeOptions(bitDepth: 16)
        try ImageFile.write(truth, to: dir + "/truth.png", options: options)
        try ImageFile.write(image, to: dir + "/image.png", options: options)
        try ImageFile.write(Image(width: w, height: h, planes: [mask]), to: dir + "/mask.png", options: EncodeOptions(bitDepth: 8))
        return (dir + "/image.png", dir + "/truth.png", dir + "/mask.png")
    }

    @Test("a known pair gives the expected PSNR to 0.01 dB, the ghost residual, and SSIM below 1")
    func knownPairScores() throws {
        let dir = try CLIHarness.temporaryFolder()
        let pair = try Self.knownPair(in: dir)
        let run = try CLIHarness.run(["compare", pair.image, "--truth", pair.truth, "--mask", pair.mask, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        // Half the samples are off by `offset`: MSE = offset² / 2, in every
        // channel and in the luma (whose weights sum to 1).
        let expected = -10 * log10(Self.offset * Self.offset / 2)
        let rgb = try #require(object["psnrRGB"] as? Double), luma = try #require(object["psnrLuma"] as? Double)
        #expect(abs(rgb - expected) < 0.01, "PSNR \(rgb) dB, expected \(expected)")
        #expect(abs(luma - expected) < 0.01, "luma PSNR \(luma) dB, expected \(expected)")
        let ghost = try #require(object["ghost"] as? Double)
        #expect(abs(ghost - Self.offset) < 1e-6, "ghost \(ghost), expected \(Self.offset)")
        let ssim = try #require(object["ssim"] as? Double)
        #expect(ssim > 0 && ssim < 0.999, "ssim \(ssim)")
        #expect(object["pass"] as? Bool == true)

        let text = try CLIHarness.run(["compare", pair.image, "--truth", pair.truth])
        #expect(text.stdout.contains("psnr-rgb: \(CompareCLITests.threeDecimals(expected)) dB"), "\(text.stdout)")
        let same = try CLIHarness.run(["compare", pair.truth, "--truth", pair.truth])
        #expect(same.stdout.contains("psnr-rgb: inf dB") && same.stdout.contains("ssim: 1.0"), "\(same.stdout)")
    }

    @Test("--require-psnr and --require-ghost exit 1 when a bound fails and 0 when it holds; mistakes exit 2")
    func exitCodes() throws {
        let dir = try CLIHarness.temporaryFolder()
        let pair = try Self.knownPair(in: dir)
        let expected = -10 * log10(Self.offset * Self.offset / 2)
        let base = ["compare", pair.image, "--truth", pair.truth, "--mask", pair.mask]
        #expect(try CLIHarness.run(base + ["--require-psnr", "\(expected - 0.1)"]).status == 0)
        let low = try CLIHarness.run(base + ["--require-psnr", "\(expected + 0.1)"])
        #expect(low.status == 1)
        #expect(low.stderr.contains("is below --require-psnr"), "\(low.stderr)")
        #expect(try CLIHarness.run(base + ["--require-ghost", "\(Self.offset * 1.01)"]).status == 0)
        #expect(try CLIHarness.run(base + ["--require-ghost", "\(Self.offset * 0.99)"]).status == 1)
        // A margin that leaves only the right half's columns out of the
        // mask's reach still measures; the ghost bound holds there.
        #expect(try CLIHarness.run(base + ["--margin", "4", "--require-ghost", "\(Self.offset * 1.01)"]).status == 0)

        #expect(try CLIHarness.run(["compare", pair.image]).status == 2)
        #expect(try CLIHarness.run(["compare", pair.image, "--truth", pair.truth, "--require-ghost", "0.1"]).status == 2)
        #expect(try CLIHarness.run(["compare", pair.image, "--truth", pair.truth, "--margin", "-1"]).status == 2)

        let frames = try CLIHarness.makeBurst(in: dir + "/other", frames: 1, width: 32, height: 32)
        let size = try CLIHarness.run(["compare", pair.image, "--truth", frames[0]])
        #expect(size.status == 1)
        #expect(size.stderr.contains("\(frames[0]): is 32×32, the image 64×48"), "\(size.stderr)")
        let missing = try CLIHarness.run(["compare", dir + "/nothing.png", "--truth", pair.truth])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nothing.png"), "\(missing.stderr)")
    }

    /// `x` with three decimals, as the text output writes it.
    static func threeDecimals(_ x: Double) -> String {
        let r = (x * 1000).rounded() / 1000
        var s = "\(r)"
        while s.split(separator: ".").last!.count < 3 { s += "0" }
        return s
    }
}
