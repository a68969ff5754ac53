#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Registration
import Stacker

/// `stack-bench`: the benchmark harness behind `make bench`.
let usage = """
OVERVIEW: Benchmarks the stack pipeline on synthetic bursts and prints a table
(medians, min–max, stages, peak RSS, ratios vs the decode floor and peers),
and writes the same as JSON (every sample, the machine, the commit) to one file,
replacing it.

USAGE: stack-bench [options]
       stack-bench decode-floor [--raw|--float|--libraw] [--frames] [--threads N] FILE...
       stack-bench warp-kernel   (the two-pass warp alone, one thread, ns per sample)

OPTIONS:
  --quick            short run: 20 × 12 MP average/median/sigma-clip, decode floor,
                     registration at 4 and 12 MP, homography at 2 and 12 MP,
                     10 × 4 MP average; no scaling
  --peers            also run ImageMagick, numpy + Pillow, scikit-image, OpenCV
                     (phase correlation, ECC homography), Siril (astro, astro-rejection) (once each)
  --cases a,b        run only these cases: \(Settings.allCases.joined(separator: ","))
                     (mode-candidates only when named: the mode's CPU per sample
                     at 3…1,000 frames, and its candidate centres against the exact
                     mode on crowd and street scenes of 100–300 frames;
                     robust-scaling only when named: 20/100/200 × 12 MP median,
                     sigma-clip and mode, with and without --memory-limit 1G;
                     about an hour on 2 cores, most of it the mode)
                     debayer: each --debayer method on a 24 MP RGGB mosaic,
                     CPU seconds per call on one thread;
                     handheld: the 20 × 12 MP median with --align homography
                     and --align local against the decode floor (run in the
                     same rounds; wall and CPU seconds), peak RSS against the
                     translation median's (with the median case);
                     heic: 20 × 12 MP HEIC median against the HEIC decode floor;
                     ser: 200 × 1280×960 16-bit SER median and average against
                     the SER read floor, and 200 / 2,000 × 320×240 8-bit frames;
                     shards: 100 × 2 MP average and median one-shot against 4 shards
                     (--partial) plus stack merge, and the merge's share
                     drizzle: 20 × 12 MP --scale 2 --pixfrac 0.6 against the 1×
                     median and average of the same frames (time, peak RSS)
                     effect: stack effect's blur on a generated 12 MP portrait
                     in process, one thread (blur stage, whole PortraitEffect.apply,
                     the same JPEG's decode floor; wall and CPU)
                     dng: 20 × 24 MP RGGB DNG median (bilinear and rcd),
                     uncompressed and lossless JPEG, each against LibRaw's
                     unpack of the same files and ImageFile.read
  --kernel NAME      the kernels case runs only this kernel: \(KernelBench.kernels.map(\.name).joined(separator: ","))
  --repeat N         runs per case (default 3, at least 1)
  --astro-size WxH   frame size of the astro case's session (default 6000x4000)
  --astro-frames N   light frames of the astro case (default 50; 10 bias/dark/flat each)
  --dng-size WxH, --dng-frames N
                     the dng case's burst (default 6000x4000, 20 frames)
  --dng-noise camera|scene
                     the dng case's samples: camera (default; 14-bit, shot and read
                     noise of a 24 MP sensor at base ISO, SceneGen's CameraSensor) or
                     scene (16-bit, the frames' σ 1 % noise, the first version)
  --rejection-size WxH, --rejection-frames N
                     the astro-rejection case's session (default 1600x1200, 20 lights):
                     each --reject algorithm Siril shares (percentile, sigma, mad,
                     winsorized, linear-fit, gesd) on it; with --peers Siril once each
  --scaling-frames 20,200, --scaling-modes median,sigma-clip, --scaling-limits none,1G
                     the robust-scaling case's frame counts (default 20,100,200), modes
                     (default median,sigma-clip,mode) and --memory-limit values
                     ("none" = the default limit; default none,1G)
  --scaling-source jpeg420|jpeg444|fits24
                     the robust-scaling case's 200 frames: the 12 MP street burst as
                     JPEG q89 4:2:0 (default) or q90 4:4:4 (~0.9 GB), or a 24 MP
                     16-bit FITS StarField session (~9.6 GB, --align stars)
  --work DIR         where bursts and outputs go (default Benchmarks/work)
  --json FILE        where the JSON goes (default Benchmarks/results/latest.json)
  --reference DIR    the Python reference scripts (default Benchmarks/reference)
  --help             this text

The bursts (SceneGen street, JPEG q89 4:2:0) are generated once and cached by a
config fingerprint: 40 × 12 MP, 50 × 4 MP, 10 × 1 MP, 10 × 24 MP (~0.7 GB), plus
6 × 2 MP and 6 × 12 MP PNG homography bursts (known perspective jitter, ~0.2 GB),
200 × 12 MP (~0.45 GB) for robust-scaling, and for `astro` a StarField session (16-bit FITS: 50 lights + 30 calibration frames
at 24 MP, ~3 GB; not in --quick), for `astro-rejection` a small one (16-bit PNG: 20 lights +
30 calibration frames at 1600 × 1200, ~0.1 GB; not in --quick);
for `heic` the same street scene as 20 × 12 MP
HEIC q89 4:2:0 (PNG frames through heif-enc, x265 preset ultrafast; ~0.2 GB); for
`ser` SER videos of its luma (mono, little-endian, timestamps): 200 × 1280×960
16-bit (~0.5 GB), 200 and 2,000 × 320×240 8-bit (~0.17 GB); for `dng` its
frames as uncompressed RGGB DNGs (SceneGen's DNGFile, 14-bit camera-like
samples in 16-bit words; ~0.96 GB) and the same samples as lossless JPEG
DNGs in 256 × 256 tiles.
"""

/// Parsed command line.
struct Settings: Sendable {
    static let allCases = ["floor", "average", "median", "sigma-clip", "register", "homography", "kernels", "4mp", "frames",
                           "pixels", "astro", "astro-rejection", "heic", "ser", "dng", "shards", "drizzle", "handheld", "effect", "debayer", "robust-scaling", "mode-candidates"]
    /// What runs without --cases: all but the hour-long robust-scaling.
    static let defaultCases = allCases.filter { $0 != "robust-scaling" && $0 != "mode-candidates" }
    static let quickCases = ["floor", "average", "median", "sigma-clip", "register", "homography", "4mp"]
    var quick = false
    var peers = false
    /// The one kernel the `kernels` case runs; nil runs them all.
    var kernel: String?
    var cases: [String] = Settings.allCases
    var repeats = 3
    var work = "Benchmarks/work"
    var json = "Benchmarks/results/latest.json"
    var referenceDir = "Benchmarks/reference"
    var astro = AstroSession.full
    /// The astro-rejection case's session: small, since it stacks once per
    /// algorithm; 16-bit PNG, which both `stack` and Siril read, so the
    /// figures in docs/performance.md stay comparable run to run.
    var rejectionSession = AstroSession(width: 1600, height: 1200, frames: 20, format: .png)
    /// The dng case's burst.
    var dng = DNGBurst.main
    /// The robust-scaling case's frame counts (of its 200-frame burst), modes and memory limits ("none": no option).
    var scalingFrames = [20, 100, 200]
    var scalingModes = ["median", "sigma-clip", "mode"]
    var scalingLimits = ["none", "1G"]
    /// The robust-scaling case's frames.
    var scalingSource = ScalingSource.jpeg420

    /// "WxH", each at least 256.
    static func size(_ v: String, _ option: String) throws -> (Int, Int) {
        let wh = v.lowercased().split(separator: "x").compactMap { Int($0) }
        guard wh.count == 2, wh[0] >= 256, wh[1] >= 256 else { throw BenchError("\(option) needs WxH, each ≥ 256 (got '\(v)')") }
        return (wh[0], wh[1])
    }

    /// A light-frame count, at least 3.
    static func frames(_ v: String, _ option: String) throws -> Int {
        guard let n = Int(v), n >= 3 else { throw BenchError("\(option) needs a whole number ≥ 3") }
        return n
    }

    static func parse(_ args: [String]) throws -> Settings? {
        var s = Settings()
        var explicitCases: [String]?
        var i = 0
        func value(_ name: String) throws -> String {
            if let eq = args[i].firstIndex(of: "=") { return String(args[i][args[i].index(after: eq)...]) }
            i += 1
            guard i < args.count else { throw BenchError("\(name) needs a value") }
            return args[i]
        }
        while i < args.count {
            let a = args[i]
            let key = a.split(separator: "=", maxSplits: 1).first.map(String.init) ?? a
            switch key {
            case "--help", "-h": return nil
            case "--quick": s.quick = true
            case "--peers": s.peers = true
            case "--cases":
                let list = try value(key).split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                for c in list where !allCases.contains(c) {
                    throw BenchError("unknown case '\(c)'; cases: \(allCases.joined(separator: ", "))")
                }
                explicitCases = list
            case "--kernel":
                let name = try value(key)
                guard KernelBench.kernels.contains(where: { $0.name == name }) else {
                    throw BenchError("unknown kernel '\(name)'; kernels: \(KernelBench.kernels.map(\.name).joined(separator: ", "))")
                }
                s.kernel = name
            case "--repeat":
                guard let n = Int(try value(key)), n >= 1 else { throw BenchError("--repeat needs a whole number ≥ 1") }
                s.repeats = n
            case "--work": s.work = try value(key)
            case "--json": s.json = try value(key)
            case "--reference": s.referenceDir = try value(key)
            case "--astro-size": (s.astro.width, s.astro.height) = try size(try value(key), key)
            case "--astro-frames": s.astro.frames = try frames(try value(key), key)
            case "--rejection-size": (s.rejectionSession.width, s.rejectionSession.height) = try size(try value(key), key)
            case "--rejection-frames": s.rejectionSession.frames = try frames(try value(key), key)
            case "--dng-size": (s.dng.width, s.dng.height) = try size(try value(key), key)
            case "--dng-frames": s.dng.frames = try frames(try value(key), key)
            case "--dng-noise":
                let v = try value(key)
                guard let noise = DNGBurst.Noise(rawValue: v) else { throw BenchError("--dng-noise takes camera or scene (got '\(v)')") }
                s.dng.noise = noise
            case "--scaling-frames":
                let list = try value(key).split(separator: ",").map { Int($0) }
                guard !list.isEmpty, list.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= 200 }) else {
                    throw BenchError("--scaling-frames needs counts from 1 to 200, e.g. 20,200")
                }
                s.scalingFrames = list.compactMap { $0 }
            case "--scaling-modes":
                let list = try value(key).split(separator: ",").map(String.init)
                guard !list.isEmpty, list.allSatisfy(["median", "sigma-clip", "mode"].contains) else {
                    throw BenchError("--scaling-modes takes median, sigma-clip and mode")
                }
                s.scalingModes = list
            case "--scaling-source":
                let v = try value(key)
                guard let source = ScalingSource(rawValue: v) else {
                    throw BenchError("--scaling-source takes \(ScalingSource.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                s.scalingSource = source
            case "--scaling-limits":
                let list = try value(key).split(separator: ",").map(String.init)
                guard !list.isEmpty else { throw BenchError("--scaling-limits needs none or sizes, e.g. none,1G") }
                s.scalingLimits = list
            default: throw BenchError("unknown option '\(a)' (see --help)")
            }
            i += 1
        }
        s.cases = explicitCases ?? (s.quick ? quickCases : defaultCases)
        return s
    }
}

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("stack-bench: error: \(message)\n".utf8))
    exit(code)
}

func readText(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

/// nproc, memory, CPU, Swift version, git commit, date.
func machineInfo(date: Date) -> [String: Any] {
    var m: [String: Any] = ["nproc": StackOptions.defaultThreadCount]
    if let line = readText("/proc/meminfo").split(separator: "\n").first(where: { $0.hasPrefix("MemTotal") }),
       let kb = Int(line.split(separator: " ").dropFirst().first ?? "") {
        m["memory_bytes"] = kb * 1024
    }
    if let line = readText("/proc/cpuinfo").split(separator: "\n").first(where: { $0.hasPrefix("model name") }) {
        m["cpu"] = line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    }
    if let r = try? ChildProcess.run(["swift", "--version"], quietErrors: true, workDir: NSTemporaryDirectory()) {
        m["swift"] = r.stdout.split(separator: "\n").first.map(String.init) ?? ""
    }
    if let r = try? ChildProcess.run(["git", "rev-parse", "--short", "HEAD"], quietErrors: true, workDir: NSTemporaryDirectory()) {
        m["git_commit"] = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    var u = utsname()
    uname(&u)
    m["kernel"] = withUnsafeBytes(of: &u.release) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
    m["date"] = ISO8601DateFormatter().string(from: date)
    return m
}

MemoryTuning.preferHeapForLargeBuffers()
BLASThreads.configure()
let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "warp-kernel" {
    WarpKernelBench.run()
    exit(0)
}

if arguments.first == "decode-floor" {
    // stack-bench decode-floor [--raw|--float|--libraw] [--frames] [--threads N] FILE...: prints the decode loop's seconds.
    // --libraw: LibRaw's open and unpack of each camera raw (the RAW codec's floor).
    // --frames: every frame of each file (ImageFile.readFrame), for SER videos and HEIF bursts.
    var raw = true, frames = false, libraw = false, threads = StackOptions.defaultThreadCount, paths: [String] = []
    var it = arguments.dropFirst().makeIterator()
    while let a = it.next() {
        switch a {
        case "--raw": raw = true
        case "--float": raw = false
        case "--frames": frames = true
        case "--libraw": libraw = true
        case "--threads":
            guard let v = it.next(), let n = Int(v), n >= 1 else { fail("--threads needs a whole number ≥ 1", code: 2) }
            threads = n
        default: paths.append(a)
        }
    }
    guard !paths.isEmpty else { fail("decode-floor needs frames", code: 2) }
    do {
        print(String(format: "%.6f", try DecodeFloor.run(paths: paths, threads: threads, raw: raw, frames: frames, libraw: libraw)))
        exit(0)
    } catch { fail("\(error)", code: 1) }
}

let settings: Settings
do {
    guard let s = try Settings.parse(arguments) else { print(usage); exit(0) }
    settings = s
} catch { fail("\(error)", code: 2) }

do {
    let started = Date()
    let bench = try Bench(settings: settings)
    bench.report.machine = machineInfo(date: started)
    bench.report.settings = ["quick": settings.quick, "peers": settings.peers, "cases": settings.cases,
                             "kernel": settings.kernel ?? "all",
                             "repeat": settings.repeats, "work": settings.work,
                             "threads": StackOptions.defaultThreadCount, "jpeg_quality": Burst.quality,
                             "astro": ["width": settings.astro.width, "height": settings.astro.height,
                                       "frames": settings.astro.frames, "calibration_frames": settings.astro.calibrationFrames,
                                       "align": Bench.astroAlignment],
                             "astro_rejection": ["width": settings.rejectionSession.width,
                                                 "height": settings.rejectionSession.height,
                                                 "frames": settings.rejectionSession.frames],
                             "dng": ["width": settings.dng.width, "height": settings.dng.height, "frames": settings.dng.frames,
                                     "noise": settings.dng.noise.rawValue]]
    let report = try bench.run()
    let m = report.machine
    print("stack-bench \(ISO8601DateFormatter().string(from: started))  nproc \(m["nproc"] ?? "?"), "
          + "\(String(format: "%.0f", Double(m["memory_bytes"] as? Int ?? 0) / 1073741824)) GiB, \(m["swift"] ?? "")"
          + (settings.quick ? "  [--quick]" : ""))
    print(report.table())
    let url = URL(fileURLWithPath: settings.json)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try report.json().write(to: url, options: .atomic)
    print("Results: \(settings.json)")
} catch { fail("\(error)", code: 1) }
