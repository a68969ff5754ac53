#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Registration
import Stacker

/// The benchmark run: generates bursts, runs the cases, collects the report.
final class Bench {
    let settings: Settings
    let stackBin: String
    let selfBin: String
    let outDir: String
    var report = BenchReport()

    init(settings: Settings) throws {
        self.settings = settings
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        selfBin = exe
        stackBin = (exe as NSString).deletingLastPathComponent + "/stack"
        // The in-process cases need no stack binary.
        let inProcess: Set = ["debayer", "kernels", "effect"]
        guard settings.cases.allSatisfy(inProcess.contains) || access(stackBin, X_OK) == 0 else {
            throw BenchError("no stack binary next to stack-bench (\(stackBin)); run `swift build -c release` first")
        }
        outDir = settings.work + "/out"
        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
    }

    func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

    func wants(_ name: String) -> Bool { settings.cases.contains(name) }

    /// Runs every selected case; returns the finished report.
    func run() throws -> BenchReport {
        let w = settings.work
        // Bursts first (cached).
        // The 12 MP JPEG burst is for everything but the homography and astro
        // cases (they have their own PNG sessions) and the kernels (in memory).
        let needs12 = settings.cases.contains { !["homography", "astro", "astro-rejection", "kernels", "heic", "ser", "dng", "shards", "effect", "debayer", "robust-scaling", "mode-candidates"].contains($0) }
        var needed: [Burst] = needs12 ? [.mp12] : []
        if wants("register") || wants("pixels") || wants("4mp") { needed.append(.mp4) }
        if (wants("register") && !settings.quick) || wants("pixels") { needed.append(.mp1) }
        if wants("pixels") { needed.append(.mp24) }
        if wants("robust-scaling"), let b = settings.scalingSource.burst { needed.append(b) }
        for b in needed { try b.ensure(in: w, log: log) }
        if needs12, let ss = try? RawTurboJPEG().subsampling(path: Burst.mp12.paths(in: w, count: 1)[0]) {
            report.notes.append("Bench frames: JPEG q\(Burst.quality), chroma " + (ss == 2 ? "4:2:0" : ss == 0 ? "4:4:4" : "code \(ss)")
                + " (ImageFile's encoder has no subsampling option: it uses 4:4:4 at q ≥ 90, 4:2:0 below, so q89 stands in for the issue's q95 4:2:0).")
        }

        if ChildProcess.gnuTime == nil {
            report.notes.append("GNU time (/usr/bin/time, apt-get install time) is missing: peak RSS of child processes is at least the harness's own peak at the time (see ChildProcess).")
        }
        let main20 = Burst.mp12.paths(in: w, count: 20)
        var floorRaw: CaseResult?, floorFloat: CaseResult?
        var ours: [String: CaseResult] = [:]

        // The floor and the 20 × 12 MP modes run in rounds (floor, float
        // floor, each mode, then again), so every ratio compares runs made
        // in the same phase of a shared machine, whose speed drifts by
        // ±25 % over minutes.
        let modes = ["average", "median", "sigma-clip"].filter(wants)
        var rounds: [String: [Sample]] = [:]
        let floorNames = (raw: "decode-floor raw 20×12MP", float: "decode-floor float 20×12MP")
        // The handheld case is measured against the floor of its own rounds.
        let floorRounds = wants("floor") || wants("handheld")
        for r in 0..<settings.repeats {
            if floorRounds {
                rounds[floorNames.raw, default: []].append(try floorRun(name: floorNames.raw, paths: main20, raw: true, round: r))
                rounds[floorNames.float, default: []].append(try floorRun(name: floorNames.float, paths: main20, raw: false, round: r))
            }
            for mode in modes {
                rounds[mode, default: []].append(try stackRun(name: "\(mode) 20×12MP", paths: main20, mode: mode, round: r))
            }
            // Handheld: the median aligned by homography and locally, in the same rounds.
            for align in Self.handheldAlignments where wants("handheld") {
                rounds["median \(align)", default: []].append(
                    try stackRun(name: "median \(align) 20×12MP", paths: main20, mode: "median", round: r,
                                 extra: ["--align", align]))
            }
        }
        if floorRounds {
            floorRaw = floorResult(name: floorNames.raw, samples: rounds[floorNames.raw]!, raw: true, paths: main20)
            floorFloat = floorResult(name: floorNames.float, samples: rounds[floorNames.float]!, raw: false, paths: main20)
        }
        for mode in modes {
            let c = CaseResult(name: "\(mode) 20×12MP", what: "stack --mode \(mode) --align translation",
                               frames: main20.count, megapixels: Burst.mp12.megapixels, samples: rounds[mode]!)
            report.cases.append(c)
            ours[mode] = c
        }
        if wants("4mp") {
            let n = settings.quick ? 10 : 50
            let p = Burst.mp4.paths(in: w, count: n)
            _ = try stackCase(name: "average \(n)×4MP", what: "stack --mode average", paths: p, mode: "average", mp: Burst.mp4.megapixels)
            if !settings.quick {
                _ = try stackCase(name: "median \(n)×4MP", what: "stack --mode median", paths: p, mode: "median", mp: Burst.mp4.megapixels)
            }
        }
        if wants("register") { try registrationCases() }
        if wants("homography") { try homographyCases() }
        if wants("kernels") { try kernelCases() }
        if wants("debayer") { try debayerCases() }
        if wants("frames") { try frameScaling(reuse20: ours["average"]) }
        if wants("pixels") { try pixelScaling(reuse12: nil) }
        if wants("astro") { try astroCases() }
        if wants("astro-rejection") { try astroRejectionCases() }
        if wants("heic") { try heicCases() }
        if wants("ser") { try serCases() }
        if wants("dng") { try dngCases() }
        if wants("shards") { try shardCases() }
        if wants("drizzle") { try drizzleCases(paths: main20, megapixels: Burst.mp12.megapixels) }
        if wants("effect") { try effectCases() }
        if wants("robust-scaling") { try robustScaling() }
        if wants("mode-candidates") { try modeCandidates() }

        // Checks against the decode floor: the median over rounds of each
        // round's ratio (the floor run just before), and for comparison the
        // ratio of the two medians.
        if let f = floorRaw {
            func paired(_ c: CaseResult) -> Double { Stats.median(zip(c.walls, f.walls).map { $0 / $1 }) }
            if let a = ours["average"] {
                check("average / decode floor (raw TurboJPEG), per round", paired(a), "≤ 2.0×") { $0 <= 2.0 }
                check("average / decode floor (raw TurboJPEG), of medians", a.medianWall / f.medianWall, "(info)") { _ in true }
            }
            if let m = ours["median"] {
                check("median / decode floor (raw TurboJPEG), per round", paired(m), "≤ 2.4×") { $0 <= 2.4 }
                check("median / decode floor (raw TurboJPEG), of medians", m.medianWall / f.medianWall, "(info)") { _ in true }
            }
            if let s = ours["sigma-clip"] { check("sigma-clip / decode floor (raw TurboJPEG), per round", paired(s), "(none)") { _ in true } }
        }
        if wants("handheld") { handheldChecks(rounds: rounds, floor: floorRaw, translation: ours["median"]) }
        if let f = floorFloat {
            if let a = ours["average"] { check("average / decode floor (ImageFile.read → Float)", a.medianWall / f.medianWall, "(info)") { _ in true } }
            if let m = ours["median"] { check("median / decode floor (ImageFile.read → Float)", m.medianWall / f.medianWall, "(info)") { _ in true } }
        }
        if settings.peers && needs12 { try peerCases(main20: main20, ours: ours) }
        return report
    }

    /// The `handheld` case's alignments.
    static let handheldAlignments = ["homography", "local"]

    /// The `handheld` cases from their rounds, and their checks: wall time
    /// against the decode floor of the same round (issue 26: ≤ 3× for the
    /// homography), peak RSS against the translation median's (≤ 1.3×).
    func handheldChecks(rounds: [String: [Sample]], floor: CaseResult?, translation: CaseResult?) {
        for align in Self.handheldAlignments {
            guard let samples = rounds["median \(align)"] else { continue }
            let c = CaseResult(name: "median \(align) 20×12MP", what: "stack --mode median --align \(align)",
                               frames: 20, megapixels: Burst.mp12.megapixels, samples: samples)
            report.cases.append(c)
            if let f = floor {
                let paired = Stats.median(zip(c.walls, f.walls).map { $0 / $1 })
                check("median \(align) / decode floor (raw TurboJPEG), per round", paired,
                      align == "homography" ? "≤ 3×" : "(info)") { align == "homography" ? $0 <= 3 : true }
                // CPU seconds: the steadier figure on a shared machine.
                let cpu = Stats.median(zip(c.samples, f.samples).map { $0.cpu / max($1.cpu, 1e-9) })
                check("median \(align) / decode floor (raw TurboJPEG), CPU seconds per round", cpu, "(info)") { _ in true }
            }
            if let t = translation, t.maxRSS > 0 {
                check("median \(align) peak RSS / translation median's", Double(c.maxRSS) / Double(t.maxRSS),
                      align == "homography" ? "≤ 1.3×" : "(info)") { align == "homography" ? $0 <= 1.3 : true }
            }
        }
    }

    func check(_ label: String, _ value: Double, _ target: String, _ ok: (Double) -> Bool) {
        report.checks.append(Check(label: label, value: value, target: target, pass: ok(value)))
    }

    // MARK: cases

    /// `stack` in a child process, `settings.repeat` times.
    @discardableResult
    func stackCase(name: String, what: String, paths: [String], mode: String, mp: Double,
                   repeats: Int? = nil) throws -> CaseResult {
        if let done = report.cases.first(where: { $0.name == name }) { return done }
        var samples: [Sample] = []
        for r in 0..<(repeats ?? settings.repeats) {
            samples.append(try stackRun(name: name, paths: paths, mode: mode, round: r, of: repeats))
        }
        let c = CaseResult(name: name, what: what, frames: paths.count, megapixels: mp, samples: samples)
        report.cases.append(c)
        return c
    }

    /// One run of `stack --mode mode` on `paths` in a child process.
    func stackRun(name: String, paths: [String], mode: String, round r: Int, of repeats: Int? = nil,
                  extra: [String] = []) throws -> Sample {
        let slug = name.replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "×", with: "x")
        let out = "\(outDir)/\(slug).jpg", rep = "\(outDir)/\(slug).json"
        log("[\(name)] run \(r + 1)/\(repeats ?? settings.repeats) …")
        let load = loadAverage()
        let run = try ChildProcess.run([stackBin, "--mode", mode, "--output", out, "--report", rep, "--quiet"]
                                       + extra + paths,
                                       workDir: outDir)
        guard run.status == 0 else { throw BenchError("\(name): stack exited with \(run.status)") }
        log("  \(Fmt.s(run.wall)) s, peak \(Fmt.mb(run.peakRSS))")
        return Sample(wall: run.wall, peakRSS: run.peakRSS, cpu: run.cpu, stages: try timings(rep), load: load)
    }

    /// One run of the decode floor: `stack-bench decode-floor` in a child process.
    /// `frames`: every frame of each file (SER videos, HEIF bursts).
    func floorRun(name: String, paths: [String], raw: Bool, frames: Bool = false, libraw: Bool = false,
                  round r: Int) throws -> Sample {
        log("[\(name)] run \(r + 1)/\(settings.repeats) …")
        let load = loadAverage()
        let run = try ChildProcess.run([selfBin, "decode-floor", libraw ? "--libraw" : raw ? "--raw" : "--float"] + (frames ? ["--frames"] : [])
                                       + ["--threads", "\(StackOptions.defaultThreadCount)"] + paths, workDir: outDir)
        guard run.status == 0 else { throw BenchError("\(name): decode-floor exited with \(run.status)") }
        let inner = Double(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
        log("  \(Fmt.s(run.wall)) s (decode loop \(Fmt.s(inner)) s)")
        return Sample(wall: run.wall, peakRSS: run.peakRSS, cpu: run.cpu, stages: ["decode": inner], load: load)
    }

    /// The decode floor's case from its runs.
    func floorResult(name: String, samples: [Sample], raw: Bool, paths: [String]) -> CaseResult {
        let c = CaseResult(name: name, what: raw ? "tjDecompress2 → RGB8, \(StackOptions.defaultThreadCount) threads"
                                                 : "ImageFile.read → planar Float32, \(StackOptions.defaultThreadCount) threads",
                           frames: paths.count, megapixels: Burst.mp12.megapixels, samples: samples,
                           note: raw ? "raw TurboJPEG" : "incl. Float conversion")
        report.cases.append(c)
        return c
    }

    func timings(_ path: String) throws -> [String: Double] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let obj = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let t = obj["timings"] as? [String: Any] else { throw BenchError("\(path): no timings") }
        var out: [String: Double] = [:]
        for (k, v) in t { if let d = v as? Double { out[k] = d } else if let i = v as? Int { out[k] = Double(i) } }
        return out
    }

    /// `TranslationRegistrar.estimate` per frame at 1, 4, 12 MP against the
    /// single-threaded decode of the same frame, and its error against truth.json.
    func registrationCases() throws {
        var bursts: [Burst] = [.mp4, .mp12]
        if !settings.quick { bursts.insert(.mp1, at: 0) }
        let framesUsed = 5
        for b in bursts {
            let w = settings.work
            let paths = b.paths(in: w, count: framesUsed + 1)
            let truth = try b.truth(in: w)
            let ref = try ImageFile.read(paths[0]).image
            let t0 = now()
            let registrar = try TranslationRegistrar(reference: ref.luma)
            let initTime = now() - t0
            // The same registrar with a threshold no score reaches: every
            // estimate then also measures the overlap agreement (which the
            // default threshold runs only for low-scoring frames), so the
            // difference of the medians is its cost.
            let checking = try TranslationRegistrar(reference: ref.luma, options: TranslationOptions(minimumScore: 2))
            var decode: [Double] = [], luma: [Double] = [], est: [Double] = [], errs: [Double] = [], checked: [Double] = []
            var fusedLuma: [Double] = [], fusedEst: [Double] = []
            for i in 1...framesUsed {
                var d = [Double](), e = [Double](), l = [Double](), k = [Double](), fl = [Double](), fe = [Double]()
                var plane = Plane(width: 1, height: 1)
                var estimate = TranslationEstimate(dx: 0, dy: 0, score: 0, isAccepted: false)
                for _ in 0..<settings.repeats {
                    let a = now()
                    let img = try ImageFile.read(paths[i]).image
                    let bT = now()
                    plane = img.luma
                    let cT = now()
                    estimate = try registrar.estimate(plane)
                    let dT = now()
                    _ = try checking.estimate(plane)
                    let eT = now()
                    // As the pipeline does it: a JPEG's Y plane stays 8-bit; the
                    // search plane is shrunk from the bytes and the estimate
                    // reads them (here the luma on 8-bit steps stands in for Y).
                    let bytes = BytePlane(width: plane.width, height: plane.height,
                                          pixels: plane.pixels.map { UInt8((min(1, max(0, $0)) * 255).rounded()) })
                    let eT2 = now()
                    let small = bytes.downsampled(by: registrar.searchFactor)
                    let fT = now()
                    let again = try registrar.estimate(bytes, downsampled: small)
                    let gT = now()
                    if abs(again.dx - estimate.dx) > 0.01 || abs(again.dy - estimate.dy) > 0.01 {
                        throw BenchError("register \(b): the estimate on the 8-bit luma differs by more than 0.01 px")
                    }
                    d.append(bT - a); l.append(cT - bT); e.append(dT - cT); k.append(eT - dT)
                    fl.append(fT - eT2); fe.append(gT - fT)
                }
                fusedLuma.append(Stats.median(fl)); fusedEst.append(Stats.median(fe))
                decode.append(Stats.median(d)); luma.append(Stats.median(l)); est.append(Stats.median(e))
                checked.append(Stats.median(k))
                errs.append(hypot(estimate.dx - truth[i].dx, estimate.dy - truth[i].dy))
            }
            let rms = (errs.map { $0 * $0 }.reduce(0, +) / Double(errs.count)).squareRoot()
            let mp = Int(b.megapixels.rounded())
            var c = CaseResult(name: "register \(mp)MP (per frame)", what: "TranslationRegistrar.estimate on a precomputed luma, vs ImageFile.read of the frame (1 thread)",
                               frames: framesUsed, megapixels: b.megapixels,
                               samples: est.map { Sample(wall: $0) })
            c.extra = ["estimate_s_median": Stats.median(est), "decode_s_median": Stats.median(decode),
                       "luma_s_median": Stats.median(luma), "registrar_init_s": initTime,
                       "error_px_rms": rms, "error_px_max": errs.max() ?? .nan,
                       "estimate_with_agreement_s_median": Stats.median(checked),
                       "bytes_search_plane_s_median": Stats.median(fusedLuma),
                       "bytes_estimate_s_median": Stats.median(fusedEst)]
            c.note = String(format: "decode %.3f s, luma %.3f s; 8-bit: search plane %.3f s, estimate %.3f s; init %.3f s, err rms %.4f max %.4f px",
                            Stats.median(decode), Stats.median(luma), Stats.median(fusedLuma), Stats.median(fusedEst),
                            initTime, rms, errs.max() ?? .nan)
            report.cases.append(c)
            // The issue's target (≤ 0.25× the decode) is for 12 MP frames;
            // smaller frames are dominated by the search's fixed costs and
            // are shown for information.
            let (target, meets): (String, (Double) -> Bool) = mp == 12 ? ("≤ 0.25×", { $0 <= 0.25 }) : ("(info)", { _ in true })
            check("register \(mp)MP: estimate / decode", Stats.median(est) / Stats.median(decode), target, meets)
            // The pipeline's path on 8-bit Y: the search plane from the bytes
            // plus the estimate, against the same float decode (the pipeline's
            // own Y, Cb, Cr decode costs less, so against it the ratio is higher).
            let pipelineCost = Stats.median(fusedEst) + Stats.median(fusedLuma)
            check("register \(mp)MP: pipeline (8-bit Y: search plane + estimate) / decode", pipelineCost / Stats.median(decode), target, meets)
            log("[register \(mp)MP] estimate \(Fmt.s(Stats.median(est) * 1000)) ms (with the overlap agreement \(Fmt.s(Stats.median(checked) * 1000)) ms), decode \(Fmt.s(Stats.median(decode) * 1000)) ms, rms err \(String(format: "%.4f", rms)) px")
        }
    }

    func frameScaling(reuse20: CaseResult?) throws {
        var xs: [Double] = [], ts: [Double] = [], rss: [Double] = []
        for n in [10, 20, 40] {
            let c: CaseResult
            if n == 20, let r = reuse20 { c = r } else {
                c = try stackCase(name: "average \(n)×12MP", what: "frame-count scaling", paths: Burst.mp12.paths(in: settings.work, count: n),
                                  mode: "average", mp: Burst.mp12.megapixels)
            }
            xs.append(Double(n)); ts.append(c.medianWall); rss.append(Double(c.maxRSS))
        }
        report.fits["time vs frame count (average, 12 MP)"] = Stats.logLogSlope(xs, ts)
        report.fits["peak RSS vs frame count (average, 12 MP; flat = 0)"] = Stats.logLogSlope(xs, rss)
    }

    func pixelScaling(reuse12: CaseResult?) throws {
        var xs: [Double] = [], ts: [Double] = [], rss: [Double] = []
        for b in [Burst.mp1, .mp4, .mp12, .mp24] {
            let mp = Int(b.megapixels.rounded())
            let c = try stackCase(name: "average 10×\(mp)MP", what: "pixel-count scaling", paths: b.paths(in: settings.work, count: 10),
                                  mode: "average", mp: b.megapixels)
            xs.append(b.megapixels); ts.append(c.medianWall); rss.append(Double(c.maxRSS))
        }
        report.fits["time vs megapixels (average, 10 frames)"] = Stats.logLogSlope(xs, ts)
        report.fits["peak RSS vs megapixels (average, 10 frames)"] = Stats.logLogSlope(xs, rss)
    }
}
