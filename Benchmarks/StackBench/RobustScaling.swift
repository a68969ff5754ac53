import Foundation

extension Bench {
    /// The robust modes at 20, 100 and 200 frames of 12 MP (one run each;
    /// `--scaling-frames`, `--scaling-modes` and `--scaling-limits` choose
    /// fewer): seconds and CPU-seconds (user + system) per frame, the
    /// 200 / 20 ratio per mode, peak RSS with and without `--memory-limit
    /// 1G`, and the decode floor of the same frames in the same run (per
    /// frame too, so each mode's per-frame time is also shown as a multiple
    /// of it).
    func robustScaling() throws {
        let w = settings.work
        let counts = settings.scalingFrames
        var floorPerFrame: [Int: Double] = [:]
        for n in counts {
            let paths = Burst.mp12x200.paths(in: w, count: n)
            let name = "decode-floor raw \(n)×12MP"
            let sample = try floorRun(name: name, paths: paths, raw: true, round: 0)
            report.cases.append(CaseResult(name: name, what: "tjDecompress2 → RGB8", frames: n,
                                           megapixels: Burst.mp12x200.megapixels, samples: [sample]))
            floorPerFrame[n] = sample.wall / Double(n)
        }
        for mode in settings.scalingModes {
            var perFrame: [Int: Double] = [:], cpuPerFrame: [Int: Double] = [:]
            for n in counts {
                let paths = Burst.mp12x200.paths(in: w, count: n)
                for limit in settings.scalingLimits.map({ $0 == "none" ? nil : $0 }) {
                    let name = "\(mode) \(n)×12MP" + (limit.map { " --memory-limit \($0)" } ?? "")
                    let sample = try stackRun(name: name, paths: paths, mode: mode, round: 0, of: 1,
                                              extra: limit.map { ["--memory-limit", $0] } ?? [])
                    var c = CaseResult(name: name, what: "stack --mode \(mode)", frames: n,
                                       megapixels: Burst.mp12x200.megapixels, samples: [sample])
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
                check("\(mode): seconds per frame at 200 / at 20 frames (12 MP)", b / a, "≤ 1.3×") { $0 <= 1.3 }
            }
            if let a = cpuPerFrame[20], let b = cpuPerFrame[200] {
                check("\(mode): CPU-seconds per frame at 200 / at 20 frames (12 MP)", b / a, "≤ 1.3×") { $0 <= 1.3 }
            }
        }
    }
}
