import Foundation
import Registration
import Stacker
import Testing
import TestSupport

/// `--reject`, its thresholds and `--rejection-map` through the built binary.
@Suite("stack: rejection options")
struct RejectionCLITests {
    /// Writes `frames` float FITS frames (w × h, grey) of a smooth scene with
    /// noise, hot pixels (+0.7) in random frames and a satellite trail
    /// (+0.5, one row) in frame 2; values span −0.2…1.3, past 0…1. Returns
    /// the frame names, the truth, and per pixel the samples and the number
    /// of outliers planted high.
    static func plantedSession(in folder: String, frames: Int = 16, w: Int = 64, h: Int = 40) throws
        -> (names: [String], truth: [Float], samples: [[Float]], plantedHigh: [Int]) {
        var rng = TestRandom(seed: 61)
        let truth = (0..<(w * h)).map { p in Float(-0.2 + 1.5 * Double(p % w) / Double(w - 1)) }
        var samples = [[Float]](repeating: [], count: w * h)
        var plantedHigh = [Int](repeating: 0, count: w * h)
        var names: [String] = []
        for f in 0..<frames {
            var pixels = truth.map { $0 + Float(0.01 * rng.gaussian()) }
            for _ in 0..<40 {
                let p = rng.int(in: 0...(w * h - 1))
                if pixels[p] - truth[p] < 0.3 { pixels[p] = truth[p] + 0.7; plantedHigh[p] += 1 }
            }
            if f == 2 {
                for x in 0..<w where pixels[17 * w + x] - truth[17 * w + x] < 0.3 {
                    pixels[17 * w + x] = truth[17 * w + x] + 0.5; plantedHigh[17 * w + x] += 1
                }
            }
            for p in 0..<(w * h) { samples[p].append(pixels[p]) }
            let name = "f\(f).fits"
            try ImageFile.write(Image(width: w, height: h, planes: [Plane(width: w, height: h, pixels: pixels)]),
                                to: folder + "/" + name, options: EncodeOptions(bitDepth: 32))
            names.append(name)
        }
        return (names, truth, samples, plantedHigh)
    }

    /// PSNR of `values` against `truth`, peak 1.
    static func psnr(_ values: [Float], _ truth: [Float]) -> Double {
        let se = zip(values, truth).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
        return 10 * log10(Double(truth.count) / se)
    }

    @Test("every --reject algorithm removes the planted hot pixels and trail from float frames: PSNR above the average's, values outside 0…1 kept",
          arguments: RejectionAlgorithm.Name.allCases)
    func rejectsPlantedOutliers(_ name: RejectionAlgorithm.Name) throws {
        let dir = try CLIHarness.temporaryFolder("reject-\(name.rawValue)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = try Self.plantedSession(in: dir)
        let common = ["--align", "none", "--depth", "32f", "-q"]
        let average = try CLIHarness.run(common + ["-o", "average.fits"] + session.names, in: dir)
        #expect(average.status == 0, "\(average.stderr)")
        // Percentile's bounds are fractions of the median: near 0 they are
        // too narrow for any noise, so it is given wide ones here.
        let bounds = name == .percentile ? ["--reject-low", "0.5", "--reject-high", "0.3"] : []
        let run = try CLIHarness.run(common + ["--reject", name.rawValue, "-o", "out.fits"] + bounds + session.names, in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try ImageFile.read(dir + "/out.fits").image.planes[0].pixels
        let mean = try ImageFile.read(dir + "/average.fits").image.planes[0].pixels
        let rejected = Self.psnr(out, session.truth), plain = Self.psnr(mean, session.truth)
        print("--reject \(name.rawValue): \(rejected) dB, average \(plain) dB")
        // 40 hot pixels a frame and a trail cost the average ~17 dB here.
        #expect(rejected > plain + 10, "\(name.rawValue): \(rejected) dB against the average's \(plain) dB")
        #expect(out.min()! < -0.15 && out.max()! > 1.25, "values outside 0…1 were clipped")
    }

    @Test("--rejection-map writes per pixel the fractions the kernel rejected low and high; the planted outliers are all in it")
    func rejectionMapMatchesCounts() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let session = try Self.plantedSession(in: dir)
        let run = try CLIHarness.run(["--align", "none", "--depth", "32f", "-q", "--reject", "gesd",
                                      "--rejection-map", "map.fits", "-o", "out.fits"] + session.names, in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let map = try ImageFile.read(dir + "/map.fits").image
        #expect(map.channels == 3 && map.width == 64 && map.height == 40)
        let n = Float(session.samples[0].count)
        var mismatch = 0, plantedMissing = 0
        for p in 0..<session.truth.count {
            let r = RejectionAlgorithm.named(.gesd).reject(session.samples[p])
            let low = Int((map.planes[0].pixels[p] * n).rounded()), high = Int((map.planes[1].pixels[p] * n).rounded())
            if low != r.rejectedLow || high != r.rejectedHigh { mismatch += 1 }
            if high < session.plantedHigh[p] { plantedMissing += 1 }
            #expect(map.planes[2].pixels[p] == 0)
        }
        #expect(mismatch == 0, "\(mismatch) pixels' map differs from the kernel's counts")
        #expect(plantedMissing == 0, "\(plantedMissing) pixels show fewer high rejections than were planted")
        // The trail row: every pixel shows one frame of 16 rejected high, or more.
        #expect((0..<64).allSatisfy { map.planes[1].pixels[17 * 64 + $0] >= 1 / n })

        // A 16-bit PNG map: R low, G high, B 0, the same fractions to 1/65535.
        let png = try CLIHarness.run(["--align", "none", "-q", "--reject", "gesd", "--rejection-map", "map.png",
                                      "-o", "out2.fits"] + session.names, in: dir)
        #expect(png.status == 0, "\(png.stderr)")
        let pngMap = try ImageFile.read(dir + "/map.png").image
        let worst = zip(pngMap.planes[1].pixels, map.planes[1].pixels).map { abs($0 - $1) }.max()!
        #expect(worst <= 0.5 / 65535 + 1e-6)
    }

    @Test("--reject sigma writes the bytes of --mode sigma-clip")
    func sigmaIsSigmaClip() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 5, width: 128, height: 96)
        let a = try CLIHarness.run(["-q", "--mode", "sigma-clip", "-o", dir + "/a.jpg"] + frames)
        let b = try CLIHarness.run(["-q", "--reject", "sigma", "-o", dir + "/b.jpg"] + frames)
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        let aBytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.jpg"))
        let bBytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/b.jpg"))
        #expect(aBytes == bBytes)
    }

    @Test("rejection usage mistakes exit 2 with a one-line error", arguments: [
        (["--reject", "kappa"], "unknown --reject 'kappa' (expected percentile, sigma, mad, winsorized, linear-fit, gesd)"),
        (["--reject", "mad", "--reject-low", "-1"], "--reject-low needs a positive κ such as 3, got '-1'"),
        (["--reject", "mad", "--reject-high", "abc"], "--reject-high needs a positive κ such as 3, got 'abc'"),
        (["--reject-low", "2"], "--reject-low needs --reject"),
        (["--reject", "gesd", "--gesd-outliers", "1.5"], "--gesd-outliers needs a fraction between 0 and 1"),
        (["--reject", "mad", "--gesd-alpha", "0.01"], "--gesd-outliers and --gesd-alpha need --reject gesd"),
        (["--reject", "mad", "--mode", "median"], "drop --mode median"),
        (["--rejection-map", "m.png"], "--rejection-map needs --reject or --mode sigma-clip"),
        (["--reject", "mad", "--rejection-map", "m.jpg"], "--rejection-map 'm.jpg': use .png"),
    ])
    func usageMistakes(extra: [String], message: String) throws {
        let run = try CLIHarness.run(extra + ["a.png", "b.png"])
        #expect(run.status == 2)
        let first = run.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("stack: error: ") && first.contains(message), "stderr: \(run.stderr)")
    }
}
