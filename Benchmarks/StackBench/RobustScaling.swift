import Foundation

/// The robust-scaling case's frames (`--scaling-source`).
enum ScalingSource: String, CaseIterable, Sendable {
    /// The 200 × 12 MP street burst, JPEG q89 4:2:0: Y in an 8-bit store, Cb, Cr in a 16-bit one.
    case jpeg420
    /// The same scene at q90, 4:4:4: RGB in an 8-bit store.
    case jpeg444
    /// The 200 × 24 MP 16-bit FITS lights of a StarField session (the
    /// `astro` case's generator; its calibration frames are not used),
    /// stacked with `--align stars`: the astro path.
    case fits24

    /// The JPEG burst, nil for FITS.
    var burst: Burst? {
        switch self {
        case .jpeg420: return .mp12x200
        case .jpeg444: return .mp12x200rgb
        case .fits24: return nil
        }
    }

    /// The FITS session.
    static let session = AstroSession(width: 6000, height: 4000, frames: 200)

    /// How case names show the frames.
    var label: String {
        switch self {
        case .jpeg420: return "12MP"
        case .jpeg444: return "12MP 4:4:4"
        case .fits24: return "24MP FITS16"
        }
    }

    var megapixels: Double { burst?.megapixels ?? Self.session.megapixels }

    /// Makes the frames unless they are there.
    func ensure(in work: String, log: (String) -> Void) throws {
        if let b = burst { try b.ensure(in: work, log: log) } else { try Self.session.ensure(in: work, log: log) }
    }

    /// The first `count` frames.
    func paths(in work: String, count: Int) -> [String] {
        burst?.paths(in: work, count: count) ?? Array(Self.session.lights(in: work).prefix(count))
    }

    /// `stack` options every run of this source takes.
    var stackOptions: [String] { self == .fits24 ? ["--align", Bench.astroAlignment] : [] }
}

extension Bench {
    /// The robust modes at 20, 100 and 200 frames of `--scaling-source`
    /// (one run each; `--scaling-frames`, `--scaling-modes` and
    /// `--scaling-limits` choose fewer): seconds and CPU-seconds (user +
    /// system) per frame, the 200 / 20 ratio per mode, peak RSS with and
    /// without `--memory-limit 1G`, and the decode floor of the same frames
    /// in the same run (per frame too, so each mode's per-frame time is also
    /// shown as a multiple of it; raw TurboJPEG for JPEG, `ImageFile.read`
    /// for FITS).
    func robustScaling() throws {
        let w = settings.work
        let counts = settings.scalingFrames
        let source = settings.scalingSource
        try source.ensure(in: w, log: log)
        let jpeg = source.burst != nil
        var floorPerFrame: [Int: Double] = [:]
        for n in counts {
            let paths = source.paths(in: w, count: n)
            let name = "decode-floor \(jpeg ? "raw" : "float") \(n)×\(source.label)"
            let sample = try floorRun(name: name, paths: paths, raw: jpeg, round: 0)
            report.cases.append(CaseResult(name: name, what: jpeg ? "tjDecompress2 → RGB8" : "ImageFile.read → Float32",
                                           frames: n, megapixels: source.megapixels, samples: [sample]))
            floorPerFrame[n] = sample.wall / Double(n)
        }
        for mode in settings.scalingModes {
            var perFrame: [Int: Double] = [:], cpuPerFrame: [Int: Double] = [:]
            for n in counts {
                let paths = source.paths(in: w, count: n)
                for limit in settings.scalingLimits.map({ $0 == "none" ? nil : $0 }) {
                    let name = "\(mode) \(n)×\(source.label)" + (limit.map { " --memory-limit \($0)" } ?? "")
                    let sample = try stackRun(name: name, paths: paths, mode: mode, round: 0, of: 1,
                                              extra: source.stackOptions + (limit.map { ["--memory-limit", $0] } ?? []))
                    var c = CaseResult(name: name, what: "stack --mode \(mode)", frames: n,
                                       megapixels: source.megapixels, samples: [sample])
                    let each = sample.wall / Double(n)
                    let cpu = sample.cpu / Double(n)
                    c.extra = ["seconds_per_frame": each, "cpu_seconds_per_frame": cpu,
                               "per_frame_over_decode_floor": each / floorPerFrame[n]!]
                    c.note = String(format: "%.3f s/frame (%.3f CPU-s), %.2f× the decode floor's", each, cpu,
                                    each / floorPerFrame[n]!)
                    report.cases.append(c)
                    if limit == nil { perFrame[n] = each; cpuPerFrame[n] = cpu }
                }
            }
            if let a = perFrame[20], let b = perFrame[200] {
                check("\(mode): seconds per frame at 200 / at 20 frames (\(source.label))", b / a, "≤ 1.3×") { $0 <= 1.3 }
            }
            if let a = cpuPerFrame[20], let b = cpuPerFrame[200] {
                check("\(mode): CPU-seconds per frame at 200 / at 20 frames (\(source.label))", b / a, "≤ 1.3×") { $0 <= 1.3 }
            }
        }
    }
}
