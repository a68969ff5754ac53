import Foundation
import Stacker

/// The external references (`--peers`): ImageMagick, numpy + Pillow,
/// scikit-image and OpenCV. Each runs once (they are slow); ratios are to our
/// median of `settings.repeats` runs.
extension Bench {
    var referenceDir: String { settings.referenceDir }

    /// The environment for Python: OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE removed.
    var pythonEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["OPENBLAS_CORETYPE"] = nil
        env["OPENBLAS_L2_SIZE"] = nil
        return env
    }

    func peerCases(main20: [String], ours: [String: CaseResult]) throws {
        report.notes.append("Peers ran once each (not \(settings.repeats)×): they take minutes; ratios are peer wall / our median wall.")
        // ImageMagick.
        if let im = ChildProcess.which("convert-im6.q16") {
            let limits = ["-limit", "memory", "16GiB", "-limit", "map", "16GiB", "-limit", "disk", "16GiB"]
            for (op, ourMode) in [("median", "median"), ("mean", "average")] {
                let name = "ImageMagick \(op) 20×12MP"
                log("[\(name)] (once) …")
                var env = ProcessInfo.processInfo.environment
                env["MAGICK_TEMPORARY_PATH"] = outDir
                env["MAGICK_CONFIGURE_PATH"] = referenceDir + "/imagemagick"
                let run = try ChildProcess.run([im] + limits + main20 + ["-evaluate-sequence", op, "\(outDir)/im-\(op).jpg"],
                                               environment: env, workDir: outDir)
                guard run.status == 0 else {
                    report.notes.append("\(name) failed with status \(run.status)"); continue
                }
                let c = CaseResult(name: name, what: "convert-im6.q16 -evaluate-sequence \(op) (no alignment)",
                                   frames: 20, megapixels: 12, samples: [Sample(wall: run.wall, peakRSS: run.peakRSS, cpu: run.cpu, load: loadAverage())],
                                   note: "once")
                report.cases.append(c)
                log("  \(Fmt.s(run.wall)) s, peak \(Fmt.mb(run.peakRSS))")
                if let o = ours[ourMode] {
                    check("ImageMagick \(op) / our \(ourMode) (speed-up)", run.wall / o.medianWall, op == "median" ? "≥ 40×" : "(info)") {
                        op == "median" ? $0 >= 40 : true
                    }
                }
            }
        } else {
            report.notes.append("ImageMagick (convert-im6.q16) not installed: apt-get install -y imagemagick")
        }

        // numpy + Pillow.
        let script = referenceDir + "/numpy_stack.py"
        for (op, ourMode) in [("median", "median"), ("mean", "average")] {
            let name = "numpy+Pillow \(op) 20×12MP"
            log("[\(name)] (once) …")
            let run = try ChildProcess.run(["python3", script, "--mode", op, "--output", "\(outDir)/numpy-\(op).jpg"] + main20,
                                           environment: pythonEnvironment, workDir: outDir)
            guard run.status == 0 else {
                report.notes.append("\(name) failed with status \(run.status) (pip install numpy pillow)"); continue
            }
            let c = CaseResult(name: name, what: "load all frames, np.\(op)(axis=0), save JPEG (no alignment)",
                               frames: 20, megapixels: 12, samples: [Sample(wall: run.wall, peakRSS: run.peakRSS, cpu: run.cpu, load: loadAverage())],
                               note: "once")
            report.cases.append(c)
            log("  \(Fmt.s(run.wall)) s, peak \(Fmt.mb(run.peakRSS))")
            if let o = ours[ourMode] {
                check("numpy \(op) / our \(ourMode) (speed-up)", run.wall / o.medianWall, op == "median" ? "≥ 15×" : "(info)") {
                    op == "median" ? $0 >= 15 : true
                }
            }
        }

        // scikit-image and OpenCV registration, per frame, against truth.json.
        if wants("register") {
            var bursts: [Burst] = [.mp4, .mp12]
            if !settings.quick { bursts.insert(.mp1, at: 0) }
            for b in bursts {
                let mp = Int(b.megapixels.rounded())
                log("[register peers \(mp)MP] (once) …")
                let paths = b.paths(in: settings.work, count: 6)
                let run = try ChildProcess.run(["python3", referenceDir + "/register_peers.py",
                                                b.folder(in: settings.work) + "/truth.json"] + paths,
                                               environment: pythonEnvironment, workDir: outDir)
                guard run.status == 0,
                      let obj = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [String: Double]] else {
                    report.notes.append("register peers \(mp)MP failed (pip install scikit-image opencv-python-headless)"); continue
                }
                let ourEst = report.cases.first { $0.name == "register \(mp)MP (per frame)" }?.extra["estimate_s_median"]
                for (tool, r) in obj.sorted(by: { $0.key < $1.key }) {
                    guard let t = r["time_s_median"] else { continue }
                    var c = CaseResult(name: "\(tool) \(mp)MP (per frame)", what: r["what"].map { _ in "" } ?? "",
                                       frames: 5, megapixels: b.megapixels, samples: [Sample(wall: t)])
                    c.extra = r
                    c.note = String(format: "err rms %.4f max %.4f px", r["error_px_rms"] ?? .nan, r["error_px_max"] ?? .nan)
                    report.cases.append(c)
                    if let ourEst { check("\(tool) \(mp)MP / our estimate (speed-up)", t / ourEst, "(info)") { _ in true } }
                }
            }
        }
    }
}
