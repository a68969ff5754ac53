import Foundation
import SceneGen
import Stacker

/// The astro session of issue #7: a SceneGen `StarField` (mono, 16-bit FITS,
/// field rotation ±2°, drift ±30 px, sky gradient, vignetting, hot pixels, a
/// satellite trail) with bias, dark and flat frames, generated once into the
/// work folder and reused while its fingerprint is unchanged.
struct AstroSession: Sendable {
    /// Frame width and height in pixels (default 6000 × 4000, 24 MP).
    var width: Int
    var height: Int
    /// Light frames (default 50).
    var frames: Int
    /// Bias, dark and flat frames of each kind.
    var calibrationFrames = 10
    var seed: UInt64 = 1
    /// The files' format: 16-bit FITS, or 16-bit PNG (which Siril also reads).
    var format: ImageFormat = .fits

    /// The issue's size: 50 lights of 24 MP, 10 calibration frames each.
    static let full = AstroSession(width: 6000, height: 4000, frames: 50)

    var megapixels: Double { Double(width * height) / 1e6 }
    var name: String { "stars-\(width)x\(height)-\(frames)" + (format == .fits ? "" : "-" + ext) }
    /// The files' extension: `fits` or `png`.
    var ext: String { Scene.fileExtension(format) }
    /// The noise-free calibrated reference the stacks are scored against.
    func truth(in work: String) -> String { folder(in: work) + "/truth." + ext }
    func folder(in work: String) -> String { work + "/" + name }

    /// The StarField settings: the generator's defaults at this size.
    var config: StarFieldConfig {
        var c = StarFieldConfig()
        c.width = width
        c.height = height
        c.frameCount = frames
        c.calibrationFrames = calibrationFrames
        c.seed = seed
        c.channels = 1
        return c
    }

    /// Everything that shapes the files; a change regenerates the session.
    var fingerprint: String {
        let c = config
        return "v1 stars \(c.width)x\(c.height) n\(c.frameCount) cal\(c.calibrationFrames) seed\(c.seed) ch\(c.channels) "
            + "shift\(c.maxShift) rot\(c.maxRotation) scale\(c.maxScale) density\(c.starDensity) sky\(c.skyLevel) "
            + "hot\(c.hotPixelCount) trail\(c.trail) \(ext)16"
    }

    /// Light frame paths in frame order (frame 0 is the reference).
    func lights(in work: String) -> [String] {
        (0..<frames).map { folder(in: work) + String(format: "/lights/light_%03d.", $0) + ext }
    }

    /// Pixels left out on every side when scoring against the truth: the
    /// farthest any frame's corner can move (drift plus rotation about the
    /// centre) plus a margin for the interpolation kernels, so only pixels
    /// every frame covers count.
    var border: Int {
        let c = config
        let halfDiagonal = (Double(width * width + height * height)).squareRoot() / 2
        let reach = c.maxShift + halfDiagonal * (sin(c.maxRotation * Double.pi / 180) + c.maxScale)
        return Int(reach.rounded(.up)) + 8
    }

    /// Generates the session unless a complete one with the same fingerprint is there.
    func ensure(in work: String, log: (String) -> Void) throws {
        let dir = folder(in: work)
        try ensureGenerated(dir, fingerprint: fingerprint, required: lights(in: work) + [truth(in: work)], log: log,
                            announce: "\(name): \(frames) lights + \(calibrationFrames) bias/dark/flat each, \(width)×\(height) "
                                + "(\(String(format: "%.1f", megapixels)) MP) 16-bit \(ext.uppercased())") {
            try StarField(config).write(to: dir, format: format)
        }
    }
}

extension Bench {
    /// How our side aligns the astro frames: star-pattern similarity
    /// registration, which follows the sessions' field rotation.
    static let astroAlignment = "stars"

    /// The astro case: `stack` on the StarField session, `settings.repeats`
    /// times (wall, peak RSS, report stages), its PSNR against `truth.fits`;
    /// with `--peers` and `siril-cli` on PATH, Siril once on the same session
    /// (`Benchmarks/reference/siril_astro.sh`), the ratio and Siril's PSNR.
    func astroCases() throws {
        let s = settings.astro
        try s.ensure(in: settings.work, log: log)
        let dir = s.folder(in: settings.work)
        let label = "\(s.frames)×\(Int(s.megapixels.rounded()))MP"
        let out = outDir + "/astro-ours.fits", rep = outDir + "/astro-ours.json"
        let argv = [stackBin, "--align", Bench.astroAlignment, "--mode", "sigma-clip", "--normalize", "additive",
                    "--bias", dir + "/bias", "--dark", dir + "/darks", "--flat", dir + "/flats",
                    "--output", out, "--report", rep, "--quiet"] + s.lights(in: settings.work)
        let samples = try astroRuns(argv, label: "astro \(label)", report: rep)
        var ours = CaseResult(name: "astro \(label) ours", what: argv.prefix(11).joined(separator: " ") + " … lights/*",
                              frames: s.frames, megapixels: s.megapixels, samples: samples)
        let ourScore = score(out, session: s)
        ours.extra = ourScore.extra
        ours.note = "--align \(Bench.astroAlignment), calibrate \(Fmt.s(ours.stage("calibrate"))) s, " + ourScore.note
        report.cases.append(ours)
        if settings.peers { try astroSiril(s, label: label, ours: ours) }
    }

    /// Siril once, via the reference script; wall and peak RSS of the whole
    /// script (conversions included), Siril's own time in the note.
    func astroSiril(_ s: AstroSession, label: String, ours: CaseResult) throws {
        let out = outDir + "/astro-siril.png"
        guard let (run, info, load) = try sirilRun(s, output: out, label: "astro \(label)") else { return }
        var c = CaseResult(name: "astro \(label) Siril", what: "siril-cli -s (siril_astro.sh): masters, preprocess, "
                               + "register -transf=similarity, stack rej a 3 3 -norm=add",
                           frames: s.frames, megapixels: s.megapixels,
                           samples: [Sample(wall: run.wall, peakRSS: run.peakRSS, cpu: run.cpu, load: load)])
        let sirilTime = (info["siril_s"] as? Double) ?? .nan
        let stacked = (info["stacked"] as? Int).map(String.init) ?? "?"
        let siril = score(out, session: s)
        c.extra = siril.extra.merging(["siril_s": sirilTime, "stacked": Double(stacked) ?? .nan]) { $1 }
        c.note = "once; siril-cli \(Fmt.s(sirilTime)) s, \(stacked)/\(s.frames) stacked, " + siril.note
        report.cases.append(c)
        log("  \(Fmt.s(run.wall)) s, peak \(Fmt.mb(run.peakRSS)); \(siril.note)")
        check("astro: Siril / ours (speed-up)", run.wall / ours.medianWall, "(info)") { _ in true }
        check("astro: Siril / ours (peak RSS)", Double(run.peakRSS) / Double(max(1, ours.maxRSS)), "(info)") { _ in true }
        if let a = ours.extra["psnr_db"], let b = c.extra["psnr_db"] {
            report.notes.append(String(format: "astro PSNR vs truth (border %d px): ours %.2f dB, Siril %.2f dB; "
                + "level-matched: ours %.2f dB, Siril %.2f dB", s.border, a, b,
                ours.extra["psnr_fit_db"] ?? .nan, c.extra["psnr_fit_db"] ?? .nan))
        }
    }

    /// `stack` with `argv`, `repeats` (default `settings.repeats`) times: wall, peak RSS, CPU
    /// and the stage timings of the report it writes to `rep`.
    func astroRuns(_ argv: [String], label: String, report rep: String, repeats: Int? = nil) throws -> [Sample] {
        var samples: [Sample] = []
        let n = repeats ?? settings.repeats
        for r in 0..<n {
            log("[\(label)] run \(r + 1)/\(n) …")
            let load = loadAverage()
            let run = try ChildProcess.run(argv, workDir: outDir)
            guard run.status == 0 else { throw BenchError("\(label): stack exited with \(run.status)") }
            let stages = try timings(rep)
            samples.append(Sample(wall: run.wall, peakRSS: run.peakRSS, cpu: run.cpu, stages: stages, load: load))
            log("  \(Fmt.s(run.wall)) s, peak \(Fmt.mb(run.peakRSS)), calibrate \(Fmt.s(stages["calibrate"])) s, "
                + "stack \(Fmt.s(stages["stack"])) s")
        }
        return samples
    }

    /// `siril_astro.sh` once on the session `s`, writing `output`, with the
    /// script's extra `options` (`--rejection …`); the run, the script's JSON
    /// line and the load before it, or nil (with a note in the report) when
    /// Siril is not installed or failed.
    func sirilRun(_ s: AstroSession, output: String, options: [String] = [],
                  label: String) throws -> (run: ChildRun, info: [String: Any], load: Double)? {
        guard ChildProcess.which("siril-cli") != nil else {
            report.notes.append("\(label): Siril (siril-cli) not installed: apt-get install -y siril"); return nil
        }
        log("[\(label) Siril] (once) …")
        let load = loadAverage()
        let slug = label.replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "×", with: "x")
        let run = try ChildProcess.run([referenceDir + "/siril_astro.sh", s.folder(in: settings.work), output,
                                        "--work", outDir + "/siril-work-" + slug] + options, workDir: outDir)
        let info = run.stdout.split(separator: "\n").last.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        guard run.status == 0, let info else {
            report.notes.append("\(label): Siril failed with status \(run.status) (see the log named on stderr)"); return nil
        }
        return (run, info, load)
    }

    /// `psnr_truth.py` on `image` against the session's truth: the numbers
    /// for `extra` and a short note ("PSNR … dB (level-matched … dB)").
    func score(_ image: String, session s: AstroSession) -> (extra: [String: Double], note: String) {
        let truth = s.truth(in: settings.work)
        guard let run = try? ChildProcess.run(["python3", referenceDir + "/psnr_truth.py", truth, image,
                                               "--border", "\(s.border)"],
                                              environment: pythonEnvironment, workDir: outDir),
              run.status == 0,
              let obj = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] else {
            return ([:], "PSNR failed (pip install numpy pillow)")
        }
        var extra: [String: Double] = [:]
        for k in ["psnr_db", "psnr_fit_db", "rmse", "mean_diff", "gain", "offset",
                  "psnr_fit_structure_db", "psnr_fit_smooth_db", "structure_fraction"] { extra[k] = obj[k] as? Double }
        return (extra, String(format: "PSNR %.2f dB (level-matched %.2f dB)", extra["psnr_db"] ?? .nan, extra["psnr_fit_db"] ?? .nan))
    }
}
