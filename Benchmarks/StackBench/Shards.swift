import Foundation

extension Burst {
    /// 100 × 2 MP: the `shards` case (one-shot against 4 shards and a merge).
    static let shards100 = Burst(name: "street-2mp-100", width: 1600, height: 1200, frames: 100)
}

extension Bench {
    /// docs/cluster.md on this machine: 100 frames of 2 MP registered once
    /// (`stack register`), then the average and the median each stacked
    /// one-shot with those transforms, and in 4 shards run one after the
    /// other (`--partial` with `--frames a:b` for the average, `--rows i/4`
    /// for the median) plus `stack merge`. Per mode: both walls, their
    /// ratio, and the merge's share of the sharded total.
    func shardCases() throws {
        let burst = Burst.shards100
        try burst.ensure(in: settings.work, log: log)
        let paths = burst.paths(in: settings.work, count: burst.frames)
        let dir = outDir + "/shards"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let transforms = dir + "/transforms.json"
        let register = try timed("register \(paths.count)×2MP", [stackBin, "register", "-q", "-o", transforms] + paths, in: dir)
        report.cases.append(CaseResult(name: "register \(paths.count)×2MP", what: "stack register (once, for both modes)",
                                       frames: paths.count, megapixels: burst.megapixels, samples: [register]))
        let given = ["-q", "--transforms", transforms]
        for mode in ["average", "median"] {
            var oneShot: [Sample] = [], sharded: [Sample] = [], merges: [Double] = []
            for _ in 0..<settings.repeats {
                oneShot.append(try timed("\(mode) one-shot", [stackBin, "--mode", mode, "-o", "\(dir)/one-\(mode).jpg"]
                                         + given + paths, in: dir))
                var shards: [Sample] = []
                for i in 0..<4 {
                    let piece = mode == "average"
                        ? ["--frames", "\(i * paths.count / 4):\((i + 1) * paths.count / 4)"]
                        : ["--rows", "\(i)/4"]
                    shards.append(try timed("\(mode) shard \(i)/4", [stackBin, "--mode", mode] + given + piece
                                            + ["--partial", "\(dir)/\(mode)-\(i).fits"] + paths, in: dir))
                }
                let merge = try timed("\(mode) merge", [stackBin, "merge", "-q", "-o", "\(dir)/merged-\(mode).jpg"]
                                      + (0..<4).map { "\(dir)/\(mode)-\($0).fits" }, in: dir)
                let all = shards + [merge]
                sharded.append(Sample(wall: all.map(\.wall).reduce(0, +), peakRSS: all.map(\.peakRSS).max() ?? 0,
                                      cpu: all.map(\.cpu).reduce(0, +)))
                merges.append(merge.wall)
            }
            let one = CaseResult(name: "\(mode) \(paths.count)×2MP one-shot", what: "stack --mode \(mode) --transforms",
                                 frames: paths.count, megapixels: burst.megapixels, samples: oneShot)
            var four = CaseResult(name: "\(mode) \(paths.count)×2MP 4 shards + merge",
                                  what: mode == "average" ? "4 × --partial --frames a:b, then stack merge"
                                                          : "4 × --partial --rows i/4, then stack merge",
                                  frames: paths.count, megapixels: burst.megapixels, samples: sharded)
            let mergeShare = Stats.median(zip(merges, sharded).map { $0 / $1.wall })
            four.extra = ["merge_seconds": Stats.median(merges), "merge_share": mergeShare,
                          "over_one_shot": four.medianWall / one.medianWall]
            four.note = String(format: "%.2f× one-shot; merge %.3f s, %.1f %% of the sharded total",
                               four.medianWall / one.medianWall, Stats.median(merges), 100 * mergeShare)
            report.cases += [one, four]
            check("\(mode): merge / (4 shards + merge), 100×2MP", mergeShare, "(info)") { _ in true }
        }
    }

    /// One child run of `argv` in `dir`, which must succeed.
    private func timed(_ name: String, _ argv: [String], in dir: String) throws -> Sample {
        log("[\(name)] …")
        let load = loadAverage()
        let run = try ChildProcess.run(argv, workDir: dir)
        guard run.status == 0 else { throw BenchError("\(name): stack exited with \(run.status)") }
        log("  \(Fmt.s(run.wall)) s, peak \(Fmt.mb(run.peakRSS))")
        return Sample(wall: run.wall, peakRSS: run.peakRSS, cpu: run.cpu, load: load)
    }
}
