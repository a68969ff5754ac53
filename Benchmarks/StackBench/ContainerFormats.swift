import Foundation
import Stacker

/// The `heic` and `ser` cases: stacking files of the phone and planetary
/// containers against the cost of decoding the same files in the same run.
///
/// Each case runs in rounds (floor, then each mode, then again), as the
/// JPEG floor does, so every ratio compares runs made in the same phase of
/// a shared machine; the ratio reported is the median over rounds of each
/// round's ratio.
///
/// The floors are `stack-bench decode-floor --float` in a child process:
/// `ImageFile.read` / `readFrame` on the bench's threads, which is the
/// decoder plus the conversion to planar Float32 (what the pipeline gets
/// from these formats), and nothing else.
extension Bench {
    /// 20 × 12 MP HEIC, `--mode median`, against libheif decoding the same
    /// 20 files (`ImageFile.read`; one image per worker, as the pipeline).
    func heicCases() throws {
        let burst = Burst.heic12
        try burst.ensure(in: settings.work, log: log)
        let paths = burst.paths(in: settings.work)
        let label = "\(paths.count)×\(Int(burst.megapixels.rounded()))MP HEIC"
        let floorName = "decode-floor \(label)", medianName = "median \(label)"
        var floor: [Sample] = [], median: [Sample] = []
        for r in 0..<settings.repeats {
            floor.append(try floorRun(name: floorName, paths: paths, raw: false, round: r))
            median.append(try stackRun(name: medianName, paths: paths, mode: "median", round: r))
        }
        let f = CaseResult(name: floorName, what: "ImageFile.read (libheif → planar Float32), \(StackOptions.defaultThreadCount) threads",
                           frames: paths.count, megapixels: burst.megapixels, samples: floor, note: "libheif + Float conversion")
        var m = CaseResult(name: medianName, what: "stack --mode median --align translation on HEIC q\(Burst.quality) 4:2:0 (heif-enc, x265 \(Burst.heicPreset))",
                           frames: paths.count, megapixels: burst.megapixels, samples: median)
        let ratio = pairedRatio(m, f)
        m.extra = ["ratio_to_floor_per_round": ratio, "ratio_of_medians": m.medianWall / f.medianWall]
        m.note = String(format: "%.2f× the HEIC floor", ratio)
        report.cases += [f, m]
        check("HEIC median / HEIC decode floor, per round", ratio, "(info)") { _ in true }
        check("HEIC median / HEIC decode floor, of medians", m.medianWall / f.medianWall, "(info)") { _ in true }
    }

    /// 20 × 24 MP RGGB DNG (`settings.dng`), stored uncompressed
    /// and as lossless JPEG (the same samples, as cameras write them),
    /// `--mode median` with the bilinear and the RCD debayer, each against
    /// LibRaw opening and unpacking the same files (the floor the issue
    /// names: little more than a copy for the uncompressed files, a
    /// lossless JPEG decode for the others) and against `ImageFile.read`
    /// (the unpack plus our black level, scaling and conversion to a float
    /// mosaic), all in the same rounds.
    func dngCases() throws {
        let bursts = [settings.dng.uncompressed, settings.dng.losslessJPEG]
        for burst in bursts { try burst.ensure(in: settings.work, log: log) }
        let debayers = ["bilinear", "rcd"]
        var unpack: [String: [Sample]] = [:], read: [String: [Sample]] = [:], runs: [String: [Sample]] = [:]
        for r in 0..<settings.repeats {
            for burst in bursts {
                let paths = burst.paths(in: settings.work)
                unpack[burst.name, default: []].append(try floorRun(name: "libraw-unpack \(burst.label)", paths: paths, raw: false, libraw: true, round: r))
                read[burst.name, default: []].append(try floorRun(name: "read-floor \(burst.label)", paths: paths, raw: false, round: r))
                for d in debayers {
                    runs[burst.name + d, default: []].append(try stackRun(name: "median \(burst.label) \(d)", paths: paths, mode: "median",
                                                                          round: r, extra: ["--debayer", d]))
                }
            }
        }
        let threads = StackOptions.defaultThreadCount
        for burst in bursts {
            let storage = burst.compression == .ljpeg ? "lossless JPEG, 256 × 256 tiles" : "uncompressed"
            var u = CaseResult(name: "libraw-unpack \(burst.label)", what: "libraw_open_buffer + libraw_unpack (\(storage)), \(threads) threads",
                               frames: burst.frames, megapixels: burst.megapixels, samples: unpack[burst.name] ?? [])
            u.extra = ["cpu_s_per_frame": u.medianCPU / Double(burst.frames)]
            u.note = String(format: "LibRaw unpack floor, %.3f CPU-s/frame", u.extra["cpu_s_per_frame"]!)
            var f = CaseResult(name: "read-floor \(burst.label)", what: "ImageFile.read (LibRaw unpack → float mosaic), \(threads) threads",
                               frames: burst.frames, megapixels: burst.megapixels, samples: read[burst.name] ?? [])
            f.note = String(format: "%.2f× the unpack floor", pairedRatio(f, u))
            report.cases += [u, f]
            check("\(burst.label) read floor / LibRaw unpack, per round", pairedRatio(f, u), "(info)") { _ in true }
            for d in debayers {
                var m = CaseResult(name: "median \(burst.label) \(d)", what: "stack --mode median --debayer \(d) on RGGB DNG (\(burst.noise.rawValue) noise, \(storage))",
                                   frames: burst.frames, megapixels: burst.megapixels, samples: runs[burst.name + d] ?? [])
                let ratio = pairedRatio(m, u), cpuRatio = m.medianCPU / u.medianCPU
                m.extra = ["ratio_to_unpack_per_round": ratio, "ratio_to_read_floor_per_round": pairedRatio(m, f),
                           "cpu_ratio_to_unpack": cpuRatio]
                m.note = String(format: "%.2f× the LibRaw unpack floor (CPU %.2f×)", ratio, cpuRatio)
                report.cases.append(m)
                check("\(burst.label) median (\(d)) / LibRaw unpack floor, per round", ratio, "(info)") { _ in true }
                check("\(burst.label) median (\(d)) / LibRaw unpack floor, CPU", cpuRatio, "(info)") { _ in true }
            }
        }
    }

    /// 200 × 1280×960 16-bit SER, `--mode median` and `--mode average`,
    /// against reading its 200 frames (one `pread` and the conversion each);
    /// then 200 and 2,000 small frames, whose time per frame shows whether
    /// the per-frame overhead grows with the frame count.
    func serCases() throws {
        let main = try serRounds(SERVideo.main, modes: ["median", "average"])
        for mode in ["median", "average"] {
            guard let c = main.modes[mode] else { continue }
            check("SER \(mode) / SER read floor, per round", pairedRatio(c, main.floor), "(info)") { _ in true }
        }
        let small = try serRounds(SERVideo.small200, modes: ["average", "median"])
        let many = try serRounds(SERVideo.small2000, modes: ["average", "median"])
        // The same frame size, 10× the frames: the time per frame must not
        // grow. ±25 % is the drift of this shared machine over minutes
        // (see Bench.run), so more than 1.25× would be a real growth.
        for mode in ["average", "median"] {
            guard let a = small.modes[mode], let b = many.modes[mode] else { continue }
            let perFrame = (b.medianWall / Double(b.frames)) / (a.medianWall / Double(a.frames))
            check("SER \(mode): time per frame, 2,000 / 200 small frames", perFrame, "≤ 1.25×") { $0 <= 1.25 }
        }
        let floorPerFrame = (many.floor.medianWall / 2000) / (small.floor.medianWall / 200)
        check("SER read floor: time per frame, 2,000 / 200 small frames", floorPerFrame, "≤ 1.25×") { $0 <= 1.25 }
    }

    /// The floor and each mode on `video`, in rounds; the cases are added to
    /// the report with their time per frame.
    func serRounds(_ video: SERVideo, modes: [String]) throws -> (floor: CaseResult, modes: [String: CaseResult]) {
        try video.ensure(in: settings.work, log: log)
        let path = video.path(in: settings.work)
        let floorName = "read-floor SER \(video.label)"
        var floor: [Sample] = [], runs: [String: [Sample]] = [:]
        for r in 0..<settings.repeats {
            floor.append(try floorRun(name: floorName, paths: [path], raw: false, frames: true, round: r))
            for mode in modes {
                runs[mode, default: []].append(try stackRun(name: "\(mode) SER \(video.label)", paths: [path], mode: mode, round: r))
            }
        }
        var f = CaseResult(name: floorName, what: "ImageFile.readFrame × \(video.frames) (pread → planar Float32), \(StackOptions.defaultThreadCount) threads",
                           frames: video.frames, megapixels: video.megapixels, samples: floor)
        f.extra = ["ms_per_frame": f.medianWall / Double(video.frames) * 1000]
        f.note = String(format: "%.2f ms/frame", f.extra["ms_per_frame"]!)
        report.cases.append(f)
        var out: [String: CaseResult] = [:]
        for mode in modes {
            var c = CaseResult(name: "\(mode) SER \(video.label)", what: "stack --mode \(mode) --align translation on one SER file",
                               frames: video.frames, megapixels: video.megapixels, samples: runs[mode]!)
            let ratio = pairedRatio(c, f)
            c.extra = ["ms_per_frame": c.medianWall / Double(video.frames) * 1000, "ratio_to_floor_per_round": ratio]
            c.note = String(format: "%.2f ms/frame, %.2f× the read floor", c.extra["ms_per_frame"]!, ratio)
            report.cases.append(c)
            out[mode] = c
        }
        return (f, out)
    }

    /// The median over rounds of `c`'s wall over `floor`'s in the same round.
    func pairedRatio(_ c: CaseResult, _ floor: CaseResult) -> Double {
        Stats.median(zip(c.walls, floor.walls).map { $0 / $1 })
    }
}
