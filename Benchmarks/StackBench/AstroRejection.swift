import Foundation

/// One rejection algorithm that `stack --reject` and Siril 1.0's
/// `stack … rej LETTER LOW HIGH` both have, with the parameters that make
/// the two runs ask for the same thing.
///
/// Siril's algorithms are read from `src/stacking/rejection_float.c` at tag
/// 1.0.6; where its spread estimator has a known constant ratio to ours
/// on normal data, its κ is converted so the threshold lies at the same
/// distance; where no constant exists, each tool gets its own default.
struct SharedRejection: Sendable {
    /// Our `--reject` name.
    var name: String
    /// Our options after `--reject NAME`.
    var ours: [String]
    /// `siril_astro.sh --rejection` name.
    var siril: String
    /// Siril's LOW and HIGH parameters.
    var sirilLow: Double
    var sirilHigh: Double
    /// Why these parameters are equivalent (for the report).
    var equivalence: String

    /// 1.4826: σ / MAD for normal data.
    static let madToSigma = 1.4826

    /// Every algorithm both tools have, in `--reject`'s order. Siril's
    /// `rej m` (sigma-median: replace instead of reject) has no counterpart.
    static let all: [SharedRejection] = [
        SharedRejection(name: "percentile", ours: ["--reject-low", "0.2", "--reject-high", "0.1"],
                        siril: "percentile", sirilLow: 0.2, sirilHigh: 0.1,
                        equivalence: "same rule (median ± fraction × median, one pass), Siril's defaults 0.2 / 0.1"),
        SharedRejection(name: "sigma", ours: ["--reject-low", "3", "--reject-high", "3"],
                        siril: "sigma", sirilLow: 3, sirilHigh: 3,
                        equivalence: "κ 3 both; ours σ = 1.4826·MAD, Siril's σ = standard deviation, both iterated"),
        SharedRejection(name: "mad", ours: ["--reject-low", "3", "--reject-high", "3"],
                        siril: "mad", sirilLow: 3 * madToSigma, sirilHigh: 3 * madToSigma,
                        equivalence: "3 robust σ both: Siril's MAD is unscaled, so its κ is 3 × 1.4826; "
                            + "ours one pass, Siril iterated"),
        SharedRejection(name: "winsorized", ours: ["--reject-low", "3", "--reject-high", "3"],
                        siril: "winsorized", sirilLow: 3, sirilHigh: 3,
                        equivalence: "κ 3 both, σ from samples winsorized at median ± 1.5σ, × 1.134"),
        SharedRejection(name: "linear-fit", ours: ["--reject-low", "3", "--reject-high", "3"],
                        siril: "linear", sirilLow: 5, sirilHigh: 5,
                        equivalence: "each tool's default κ (ours 3, Siril 5): Siril's σ is the mean |residual| "
                            + "from the line, ours the samples' robust σ, with no constant ratio between them"),
        SharedRejection(name: "gesd", ours: ["--gesd-outliers", "0.3", "--gesd-alpha", "0.05"],
                        siril: "gesd", sirilLow: 0.3, sirilHigh: 0.05,
                        equivalence: "same test, at most 30 % outliers, significance 0.05"),
    ]
}

extension Bench {
    /// The `astro-rejection` case: for each algorithm in
    /// `SharedRejection.all`, `stack --reject` on the small StarField session
    /// (`settings.rejectionSession`) `settings.repeats` times, scored against
    /// its truth, then once with `--interpolation bilinear` (the resampling
    /// Siril's `register` does); with `--peers` and `siril-cli` on PATH, Siril once with
    /// the same algorithm on the same session. Both run the whole job
    /// (masters, calibration, star registration, additive normalisation,
    /// the rejection stack), so the walls compare like with like.
    func astroRejectionCases() throws {
        let s = settings.rejectionSession
        try s.ensure(in: settings.work, log: log)
        let label = "\(s.frames)×" + String(format: "%.1f", s.megapixels) + "MP"
        if settings.peers && ChildProcess.which("siril-cli") == nil {
            report.notes.append("astro-rejection: Siril (siril-cli) not installed, only our side ran: apt-get install -y siril")
        }
        for r in SharedRejection.all {
            do { try astroRejection(r, session: s, label: label) } catch {
                // One algorithm failing (a crash of `stack`, say) is noted and the rest still run.
                report.notes.append("reject \(r.name): skipped: \(error)")
            }
        }
    }

    /// One algorithm of the case: ours, ours with bilinear resampling, and
    /// (with `--peers`) Siril.
    func astroRejection(_ r: SharedRejection, session s: AstroSession, label: String) throws {
        let dir = s.folder(in: settings.work)
        let out = outDir + "/rejection-\(r.name)-ours." + s.ext, rep = outDir + "/rejection-\(r.name)-ours.json"
        let options = ["--reject", r.name] + r.ours
        let argv = [stackBin, "--align", Bench.astroAlignment, "--normalize", "additive"] + options
            + ["--bias", dir + "/bias", "--dark", dir + "/darks", "--flat", dir + "/flats",
               "--output", out, "--report", rep, "--quiet"] + s.lights(in: settings.work)
        let name = "reject \(r.name) \(label)"
        var ours = CaseResult(name: name + " ours", what: "stack --align stars --normalize additive "
                                  + options.joined(separator: " ") + " + masters",
                              frames: s.frames, megapixels: s.megapixels,
                              samples: try astroRuns(argv, label: name, report: rep))
        let ourScore = score(out, session: s)
        ours.extra = ourScore.extra
        ours.note = "stack stage \(Fmt.s(ours.stage("stack"))) s, " + ourScore.note
        report.cases.append(ours)
        // Once more with Siril's resampling: its `register` command warps
        // with OpenCV's INTER_AREA, which warpPerspective runs as bilinear.
        let bilinearOut = outDir + "/rejection-\(r.name)-ours-bilinear." + s.ext
        let bilinearArgv = argv.map { $0 == out ? bilinearOut : $0 }
        var bilinear = CaseResult(name: name + " ours bilinear", what: "the same with --interpolation bilinear (once)",
                                  frames: s.frames, megapixels: s.megapixels,
                                  samples: try astroRuns([bilinearArgv[0], "--interpolation", "bilinear"]
                                                             + bilinearArgv.dropFirst(), label: name + " bilinear",
                                                         report: rep, repeats: 1))
        let bilinearScore = score(bilinearOut, session: s)
        bilinear.extra = bilinearScore.extra
        bilinear.note = "once; " + bilinearScore.note
        report.cases.append(bilinear)
        if settings.peers && ChildProcess.which("siril-cli") != nil {
            try sirilRejection(r, session: s, name: name, ours: ours, bilinear: bilinear)
        }
    }

    /// Siril once with `r`'s algorithm; its case, the Siril / ours wall
    /// ratio as a check, and a one-line comparison in the notes.
    func sirilRejection(_ r: SharedRejection, session s: AstroSession, name: String, ours: CaseResult,
                        bilinear: CaseResult) throws {
        let out = outDir + "/rejection-\(r.name)-siril.png"
        let low = String(format: "%g", r.sirilLow), high = String(format: "%g", r.sirilHigh)
        guard let (run, info, load) = try sirilRun(s, output: out, options: ["--rejection", r.siril, "--low", low, "--high", high],
                                                   label: name) else { return }
        let stackTime = (info["stack_s"] as? Double) ?? .nan
        let stacked = (info["stacked"] as? Int) ?? -1
        let siril = score(out, session: s)
        var c = CaseResult(name: name + " Siril", what: "siril_astro.sh --rejection \(r.siril): "
                               + "stack r_pp_light rej \(info["rejection"] as? String ?? "?") -norm=add",
                           frames: s.frames, megapixels: s.megapixels,
                           samples: [Sample(wall: run.wall, peakRSS: run.peakRSS, cpu: run.cpu,
                                            stages: stackTime.isFinite ? ["stack": stackTime] : [:], load: load)])
        let ratio = run.wall / ours.medianWall
        c.extra = siril.extra.merging(["siril_s": (info["siril_s"] as? Double) ?? .nan, "stack_s": stackTime,
                                       "stacked": Double(stacked), "wall_over_ours": ratio,
                                       "ours_psnr_db": ours.extra["psnr_db"] ?? .nan,
                                       "ours_psnr_fit_db": ours.extra["psnr_fit_db"] ?? .nan,
                                       "ours_bilinear_psnr_fit_db": bilinear.extra["psnr_fit_db"] ?? .nan]) { $1 }
        c.note = "once; \(stacked)/\(s.frames) stacked, stack stage \(Fmt.s(stackTime)) s, " + siril.note
        report.cases.append(c)
        log("  \(Fmt.s(run.wall)) s, peak \(Fmt.mb(run.peakRSS)); \(siril.note)")
        check("reject \(r.name): Siril / ours (speed-up)", ratio, "(info)") { _ in true }
        report.notes.append(String(format: "reject %@ (%@): PSNR vs truth ours %.2f dB, Siril %.2f dB; "
            + "level-matched ours %.2f dB (bilinear %.2f dB), Siril %.2f dB; "
            + "wall ours %.2f s (median of %d), Siril %.2f s, Siril / ours %.2f×",
            r.name, r.equivalence, ours.extra["psnr_db"] ?? .nan, c.extra["psnr_db"] ?? .nan,
            ours.extra["psnr_fit_db"] ?? .nan, bilinear.extra["psnr_fit_db"] ?? .nan, c.extra["psnr_fit_db"] ?? .nan,
            ours.medianWall, ours.samples.count, run.wall, ratio))
    }
}
