/// The `drizzle` case: `--scale 2` on the 20 × 12 MP burst against the 1×
/// median and average of the same frames, run in rounds (median, average,
/// drizzle, then again) so each ratio compares runs in the same phase of
/// a shared machine. Drizzle decodes every frame twice (the 1× stack, then
/// the drops), so its time is at least the 1× average's plus a decode pass.
extension Bench {
    func drizzleCases(paths: [String], megapixels: Double) throws {
        let runs: [(name: String, mode: String, extra: [String])] = [
            ("drizzle: median 1× 20×12MP", "median", []),
            ("drizzle: average 1× 20×12MP", "average", []),
            ("drizzle: average --scale 2 --pixfrac 0.6 20×12MP", "average", ["--scale", "2", "--pixfrac", "0.6"]),
        ]
        var samples: [String: [Sample]] = [:]
        for r in 0..<settings.repeats {
            for run in runs {
                samples[run.name, default: []].append(try stackRun(name: run.name, paths: paths, mode: run.mode, round: r,
                                                                   extra: run.extra))
            }
        }
        let cases = runs.map { run in
            CaseResult(name: run.name, what: "stack --mode \(run.mode) \(run.extra.joined(separator: " "))",
                       frames: paths.count, megapixels: megapixels, samples: samples[run.name]!)
        }
        report.cases += cases
        let (median, average, drizzle) = (cases[0], cases[1], cases[2])
        check("drizzle --scale 2 / 1× median, wall, of medians", drizzle.medianWall / median.medianWall, "(info)") { _ in true }
        check("drizzle --scale 2 / 1× average, wall, of medians", drizzle.medianWall / average.medianWall, "(info)") { _ in true }
        // The output grid is 4 × 12 MP: two float planes per channel are 1.15 GB; frames in flight come on top.
        check("drizzle --scale 2: peak RSS, GB", Double(drizzle.maxRSS) / 1e9, "≤ 2.5") { $0 <= 2.5 }
        check("drizzle --scale 2 / 1× median, peak RSS", Double(drizzle.maxRSS) / Double(median.maxRSS), "(info)") { _ in true }
    }
}
