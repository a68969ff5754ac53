import Foundation
import Glibc
import Registration
import SceneGen
import Stacker

/// A handheld burst with known homographies: one clean SceneGen street truth
/// (no objects, no noise), frame 0 = the truth, frames 1… = the truth seen
/// through a random perspective jitter, all with Gaussian noise, written as
/// 8-bit PNGs with the true matrices in `homographies.json`. Cached by
/// fingerprint like `Burst`.
///
/// Construction (all in the final `width` × `height` pixel coordinates, pixel
/// centres at integers): each corner of the frame is displaced by a uniform
/// ±`jitter` px in x and y; `H` = `Transform.fromCorrespondences` (frame
/// corner → displaced corner) maps frame → reference, and
/// `frame(x) = truth(H(x))`, by `Warper.warp` (Lanczos-3) of the truth.
/// The truth is rendered `crop` px larger on every side and both the
/// reference and the frames are cut from it, so no frame has an uncovered
/// (zero) border: both methods see the same fully textured data.
struct HomographyBurst: Sendable {
    var name: String
    var width: Int
    var height: Int
    /// Frames including the reference (frame 0, H = identity).
    var frames: Int = 6
    var jitter: Double = 12
    var noiseSigma: Double = 0.01
    var crop: Int = 16
    var seed: UInt64 = 7

    var megapixels: Double { Double(width * height) / 1e6 }

    var fingerprint: String {
        "v1 homography street \(width)x\(height) n\(frames) seed\(seed) jitter\(jitter) noise\(noiseSigma) crop\(crop) lanczos3 png8"
    }

    func folder(in work: String) -> String { work + "/" + name }

    func paths(in work: String) -> [String] {
        (0..<frames).map { folder(in: work) + "/" + String(format: "frame_%03d.png", $0) }
    }

    var truthPath: String { "homographies.json" }

    /// The true frame → reference matrices (row-major), frame 0 first.
    func truth(in work: String) throws -> [Transform] {
        let url = URL(fileURLWithPath: folder(in: work) + "/" + truthPath)
        guard let obj = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any],
              let fs = obj["frames"] as? [[String: Any]] else { throw BenchError("\(url.path): no frames") }
        return try fs.map {
            guard let m = $0["H"] as? [Double], m.count == 9 else { throw BenchError("\(url.path): bad H") }
            return Transform(matrix: m)
        }
    }

    /// Generates the burst unless a complete one with the same fingerprint is there.
    func ensure(in work: String, log: (String) -> Void) throws {
        let dir = folder(in: work)
        try ensureGenerated(dir, fingerprint: fingerprint, required: paths(in: work) + [dir + "/" + truthPath], log: log,
                            announce: "\(name): \(frames) × \(width)×\(height) (\(String(format: "%.1f", megapixels)) MP) homography burst, PNG 8-bit") {
            try generate(into: dir, work: work)
        }
    }

    /// Renders the frames and `homographies.json` into the (removed) folder `dir`.
    private func generate(into dir: String, work: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)

        var c = SceneConfig.street
        c.preset = "street"
        c.width = width + 2 * crop
        c.height = height + 2 * crop
        c.frameCount = 1
        c.seed = 1
        c.maxShift = 0
        c.noiseSigma = 0
        c.objectCount = 0
        c.hotPixelCount = 0
        c.trail = false
        let truth = SceneGenerator.render(c).groundTruth

        var rng = SplitMix64(seed: seed, stream: 0x484F_4D4F) // "HOMO"
        let corners: [(Double, Double)] = [(0, 0), (Double(width - 1), 0), (0, Double(height - 1)),
                                           (Double(width - 1), Double(height - 1))]
        var matrices: [[Double]] = []
        for i in 0..<frames {
            var h = Transform.identity
            if i > 0 {
                let pairs = corners.map { p in
                    (from: p, to: (p.0 + rng.uniform(-jitter, jitter), p.1 + rng.uniform(-jitter, jitter)))
                }
                guard let t = Transform.fromCorrespondences(pairs) else { throw BenchError("degenerate corner jitter") }
                h = t
            }
            matrices.append(h.matrix)
            // Sample the big truth at H(x) + crop: G⁻¹ = T(crop) · H.
            var g = h.matrix
            let s = Double(crop)
            for k in 0..<3 { g[k] += s * g[6 + k]; g[3 + k] += s * g[6 + k] }
            guard let forward = Transform(matrix: g).inverse else { throw BenchError("singular homography") }
            var planes = Warper.warp(truth.planes, by: forward, width: width, height: height).planes
            // Gaussian noise (Box–Muller), clipped to 0…1.
            var noise = SplitMix64(seed: seed, stream: 0x4E4F_4953, UInt64(i)) // "NOIS"
            let sigma = noiseSigma
            for p in planes.indices {
                planes[p].pixels.withUnsafeMutableBufferPointer { px in
                    var j = 0
                    while j < px.count {
                        let u1 = max(noise.unit(), 1e-300), u2 = noise.unit()
                        let r = (-2 * Foundation.log(u1)).squareRoot() * sigma
                        let a = 2 * Double.pi * u2
                        px[j] = Float(min(1, max(0, Double(px[j]) + r * cos(a))))
                        if j + 1 < px.count { px[j + 1] = Float(min(1, max(0, Double(px[j + 1]) + r * sin(a)))) }
                        j += 2
                    }
                }
            }
            try ImageFile.write(Image(width: width, height: height, planes: planes), to: paths(in: work)[i],
                                options: EncodeOptions(bitDepth: 8))
        }
        let obj: [String: Any] = [
            "convention": "H maps frame pixel coordinates to reference (frame 0) pixel coordinates, row-major 3x3; frame(x) = reference(H(x)) before noise",
            "width": width, "height": height, "jitter_px": jitter, "noise_sigma": noiseSigma,
            "frames": matrices.enumerated().map { ["index": $0.offset, "file": String(format: "frame_%03d.png", $0.offset), "H": $0.element] },
        ]
        try JSONSerialization.data(withJSONObject: obj, options: [.prettyPrinted, .sortedKeys])
            .write(to: URL(fileURLWithPath: dir + "/" + truthPath))
    }

    /// RMS over the 4 image corners of the distance between their images
    /// under `a` and `b`.
    func cornerRMS(_ a: Transform, _ b: Transform) -> Double {
        let cs: [(Double, Double)] = [(0, 0), (Double(width - 1), 0), (0, Double(height - 1)),
                                      (Double(width - 1), Double(height - 1))]
        let s = cs.map { c -> Double in
            let p = a.apply(x: c.0, y: c.1), q = b.apply(x: c.0, y: c.1)
            return (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)
        }.reduce(0, +)
        return (s / 4).squareRoot()
    }

    static let mp2 = HomographyBurst(name: "homography-2mp-6", width: 1600, height: 1200)
    static let mp12 = HomographyBurst(name: "homography-12mp-6", width: 4000, height: 3000)
}

extension Bench {
    /// The process's CPU seconds so far (all threads: the score check's warp
    /// runs on worker threads).
    static func processCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// `HomographyRegistrar.estimate` per frame at 2 and 12 MP (estimate only,
    /// median of ≥ 3 repeats; init reported separately) and its mapped-corner
    /// RMS error against the true H; with `--peers`, OpenCV ECC on the same frames.
    /// Times are wall and the process's CPU seconds (the figure on a
    /// loaded machine), for the float luma and for the same luma as bytes
    /// (what a JPEG's Y gives the pipeline).
    func homographyCases() throws {
        let repeats = max(3, settings.repeats)
        for b in [HomographyBurst.mp2, .mp12] {
            try b.ensure(in: settings.work, log: log)
            let paths = b.paths(in: settings.work)
            let truth = try b.truth(in: settings.work)
            let mp = Int(b.megapixels.rounded())
            let load = loadAverage()
            let ref = try ImageFile.read(paths[0]).image.luma
            let t0 = now(), c0 = Self.processCPU()
            let registrar = try HomographyRegistrar(reference: ref)
            let initTime = now() - t0, initCPU = Self.processCPU() - c0
            var est: [Double] = [], cpu: [Double] = [], byteCPU: [Double] = []
            var errs: [Double] = [], byteErrs: [Double] = [], fallbacks = 0
            for i in 1..<b.frames {
                let plane = try ImageFile.read(paths[i]).image.luma
                let bytes = BytePlane(width: plane.width, height: plane.height,
                                      pixels: plane.pixels.map { UInt8(min(255, max(0, ($0 * 255).rounded()))) })
                var times: [Double] = [], cpus: [Double] = [], byteCPUs: [Double] = []
                var e: HomographyEstimate?, eb: HomographyEstimate?
                for _ in 0..<repeats {
                    let a = now(), ca = Self.processCPU()
                    e = try registrar.estimate(plane)
                    times.append(now() - a)
                    cpus.append(Self.processCPU() - ca)
                    let cb = Self.processCPU()
                    eb = try registrar.estimate(bytes)
                    byteCPUs.append(Self.processCPU() - cb)
                }
                guard let e, let eb else { continue }
                if e.fallbackReason != nil { fallbacks += 1 }
                est.append(Stats.median(times))
                cpu.append(Stats.median(cpus))
                byteCPU.append(Stats.median(byteCPUs))
                errs.append(b.cornerRMS(e.transform, truth[i]))
                byteErrs.append(b.cornerRMS(eb.transform, truth[i]))
                log("  [homography \(mp)MP] frame \(i): \(String(format: "%.1f", Stats.median(times) * 1000)) ms, "
                    + String(format: "CPU %.1f ms (bytes %.1f ms), corner rms %.4f px (bytes %.4f px)",
                             cpu.last! * 1000, byteCPU.last! * 1000, errs.last!, byteErrs.last!)
                    + (e.fallbackReason.map { " (fallback: \($0))" } ?? ""))
            }
            func rmsOf(_ v: [Double]) -> Double { (v.map { $0 * $0 }.reduce(0, +) / Double(max(1, v.count))).squareRoot() }
            let rms = rmsOf(errs), byteRMS = rmsOf(byteErrs)
            let name = "homography \(mp)MP per frame"
            var c = CaseResult(name: name, what: "HomographyRegistrar.estimate on a precomputed luma, median of \(repeats) per frame; init separate",
                               frames: est.count, megapixels: b.megapixels,
                               samples: zip(est, cpu).map { Sample(wall: $0, cpu: $1, load: load) })
            c.extra = ["estimate_s_median": Stats.median(est), "registrar_init_s": initTime,
                       "estimate_cpu_s_median": Stats.median(cpu), "estimate_bytes_cpu_s_median": Stats.median(byteCPU),
                       "registrar_init_cpu_s": initCPU,
                       "corner_error_px_rms": rms, "corner_error_px_max": errs.max() ?? .nan,
                       "bytes_corner_error_px_rms": byteRMS,
                       "fallbacks": Double(fallbacks), "repeats": Double(repeats)]
            c.note = String(format: "CPU %.1f ms (bytes %.1f), init %.3f s (CPU %.3f), corner err rms %.4f max %.4f px (bytes %.4f)",
                            Stats.median(cpu) * 1000, Stats.median(byteCPU) * 1000, initTime, initCPU,
                            rms, errs.max() ?? .nan, byteRMS)
                + (fallbacks > 0 ? ", \(fallbacks) fallback(s)" : "")
            report.cases.append(c)
            check("homography \(mp)MP: corner RMS error (px)", rms, "≤ 0.1 px") { $0 <= 0.1 }
            check("homography \(mp)MP, byte luma: corner RMS error (px)", byteRMS, "≤ 0.1 px") { $0 <= 0.1 }
            log("[homography \(mp)MP] estimate \(Fmt.s(Stats.median(est) * 1000)) ms, CPU \(Fmt.s(Stats.median(cpu) * 1000)) ms "
                + "(bytes \(Fmt.s(Stats.median(byteCPU) * 1000)) ms; init \(Fmt.s(initTime * 1000)) ms, CPU \(Fmt.s(initCPU * 1000)) ms), "
                + "corner rms \(String(format: "%.4f", rms)) px (bytes \(String(format: "%.4f", byteRMS)) px)")
            if settings.peers { try homographyPeers(b, ours: c) }
        }
    }

    /// OpenCV `findTransformECC` (MOTION_HOMOGRAPHY) on the same frames, once.
    func homographyPeers(_ b: HomographyBurst, ours: CaseResult) throws {
        let mp = Int(b.megapixels.rounded())
        log("[homography peers \(mp)MP] ECC (once per frame; slow) …")
        let load = loadAverage()
        let run = try ChildProcess.run(["python3", referenceDir + "/homography_peers.py",
                                        b.folder(in: settings.work) + "/" + b.truthPath] + b.paths(in: settings.work),
                                       environment: pythonEnvironment, workDir: outDir)
        guard run.status == 0,
              let obj = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [String: Double]] else {
            report.notes.append("homography peers \(mp)MP failed (pip install opencv-python-headless numpy pillow)"); return
        }
        let ourEst = ours.extra["estimate_s_median"] ?? .nan
        let ourErr = ours.extra["corner_error_px_rms"] ?? .nan
        for (tool, r) in obj.sorted(by: { $0.key < $1.key }) {
            guard let t = r["time_s_median"] else { continue }
            var c = CaseResult(name: "\(tool) \(mp)MP per frame",
                               what: "cv2.findTransformECC MOTION_HOMOGRAPHY, 100 it / 1e-6, gaussFiltSize 5, "
                                   + (tool == "ecc" ? "identity start (ECC time only)" : "phaseCorrelate start (time incl. phaseCorrelate)"),
                               frames: Int(r["frames"] ?? 0), megapixels: b.megapixels,
                               samples: [Sample(wall: t, load: load)])
            c.extra = r
            c.note = String(format: "corner err rms %.4f max %.4f px, %d/%d converged (< 1 px)",
                            r["corner_error_px_rms"] ?? .nan, r["corner_error_px_max"] ?? .nan,
                            Int(r["converged"] ?? 0), Int(r["frames"] ?? 0))
            report.cases.append(c)
            check("\(tool) \(mp)MP / our homography estimate (speed-up)", t / ourEst, "≥ 10×") { $0 >= 10 }
            log(String(format: "[homography \(mp)MP] ours %.1f ms vs %@ %.0f ms: %.1f× faster; corner rms ours %.4f px, %@ %.4f px",
                       ourEst * 1000, tool, t * 1000, t / ourEst, ourErr, tool, r["corner_error_px_rms"] ?? .nan))
        }
    }
}
