import Foundation
import Stacker

/// One timed run of a case.
struct Sample: Sendable {
    /// Wall seconds (parent-measured, spawn to exit, for child-process cases).
    var wall: Double
    /// Peak RSS of the child, bytes (0 when not measured).
    var peakRSS: Int = 0
    /// Child CPU seconds (user + system).
    var cpu: Double = 0
    /// The stack report's stage timings (per-frame stages summed over frames).
    var stages: [String: Double] = [:]
    /// 1-minute load average just before the run (other work on the machine shows here).
    var load: Double = 0
}

/// The 1-minute load average from /proc/loadavg.
func loadAverage() -> Double {
    let s = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return Double(s.split(separator: " ").first ?? "") ?? 0
}

/// The runs of one case and what they mean.
struct CaseResult: Sendable {
    var name: String
    var what: String
    var frames: Int
    var megapixels: Double
    var samples: [Sample]
    /// Free-form numbers that belong to the case (registration errors, per-frame times …).
    var extra: [String: Double] = [:]
    var note: String = ""

    var walls: [Double] { samples.map(\.wall) }
    var medianWall: Double { Stats.median(walls) }
    var medianRSS: Int { Int(Stats.median(samples.map { Double($0.peakRSS) })) }
    var maxRSS: Int { samples.map(\.peakRSS).max() ?? 0 }
    var medianCPU: Double { Stats.median(samples.map(\.cpu)) }
    func stage(_ s: String) -> Double? {
        let v = samples.compactMap { $0.stages[s] }
        return v.isEmpty ? nil : Stats.median(v)
    }
}

/// A ratio checked against the issue's target.
struct Check: Sendable {
    var label: String
    var value: Double
    /// "≤ 2.0×" or "≥ 40×".
    var target: String
    var pass: Bool
}

/// Small statistics.
enum Stats {
    static func median(_ v: [Double]) -> Double {
        guard !v.isEmpty else { return .nan }
        let s = v.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// Least-squares slope of log(y) against log(x): the scaling exponent.
    static func logLogSlope(_ x: [Double], _ y: [Double]) -> Double {
        let lx = x.map { Foundation.log($0) }, ly = y.map { Foundation.log($0) }
        let n = Double(lx.count)
        let mx = lx.reduce(0, +) / n, my = ly.reduce(0, +) / n
        var num = 0.0, den = 0.0
        for i in lx.indices { num += (lx[i] - mx) * (ly[i] - my); den += (lx[i] - mx) * (lx[i] - mx) }
        return den > 0 ? num / den : .nan
    }
}

/// Text formatting for the table.
enum Fmt {
    static func s(_ v: Double?) -> String {
        guard let v, v.isFinite else { return "–" }
        return v >= 100 ? String(format: "%.0f", v) : v >= 10 ? String(format: "%.1f", v) : String(format: "%.2f", v)
    }
    static func mb(_ bytes: Int) -> String { bytes > 0 ? String(format: "%.0f MB", Double(bytes) / 1e6) : "–" }
    static func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
        let c = s.count
        guard c < n else { return s }
        return right ? String(repeating: " ", count: n - c) + s : s + String(repeating: " ", count: n - c)
    }
}

/// The whole run: cases, scaling fits, checks, machine; printed as a table and saved as JSON.
struct BenchReport {
    var cases: [CaseResult] = []
    var checks: [Check] = []
    var fits: [String: Double] = [:]
    var notes: [String] = []
    var machine: [String: Any] = [:]
    var settings: [String: Any] = [:]

    func table() -> String {
        var out = ""
        let cols = [("case", 26, false), ("runs", 4, true), ("wall s med", 10, true), ("min–max", 13, true),
                    ("decode", 7, true), ("reg", 6, true), ("warp", 7, true), ("stack", 6, true),
                    ("encode", 6, true), ("cpu s", 6, true), ("peak RSS", 9, true), ("load", 4, true)]
        out += cols.map { Fmt.pad($0.0, $0.1, right: $0.2) }.joined(separator: " ") + "\n"
        out += cols.map { String(repeating: "-", count: $0.1) }.joined(separator: " ") + "\n"
        for c in cases where !c.samples.isEmpty {
            let mm = "\(Fmt.s(c.walls.min()))–\(Fmt.s(c.walls.max()))"
            let row = [c.name, "\(c.samples.count)", Fmt.s(c.medianWall), mm,
                       Fmt.s(c.stage("decode")), Fmt.s(c.stage("register")), Fmt.s(c.stage("warp")),
                       Fmt.s(c.stage("stack")), Fmt.s(c.stage("encode")),
                       c.medianCPU > 0 ? Fmt.s(c.medianCPU) : "–", Fmt.mb(c.maxRSS),
                       c.samples.contains { $0.load > 0 } ? String(format: "%.1f", c.samples.map(\.load).max() ?? 0) : "–"]
            out += zip(row, cols).map { Fmt.pad($0.0, $0.1.1, right: $0.1.2) }.joined(separator: " ")
            if !c.note.isEmpty { out += "  " + c.note }
            out += "\n"
        }
        out += "\nColumns: medians over runs; load = highest 1-min load average seen before a run (\(StackOptions.defaultThreadCount) cores).\n"
        out += "Stage columns: medians from the report; decode/reg/warp are summed over frames (thread-seconds), stack and encode are wall.\n"
        if !fits.isEmpty {
            out += "\nScaling (log-log least-squares slope):\n"
            for (k, v) in fits.sorted(by: { $0.key < $1.key }) { out += "  \(k): \(String(format: "%.2f", v))\n" }
        }
        if !checks.isEmpty {
            out += "\nTargets:\n"
            for c in checks {
                out += "  " + Fmt.pad(c.label, 52) + Fmt.pad(c.target.hasSuffix("px") ? String(format: "%.3f px", c.value) : String(format: "%.2f×", c.value), 9, right: true)
                    + "  target " + Fmt.pad(c.target, 8) + (c.pass ? "  ok" : "  MISSED") + "\n"
            }
        }
        if !notes.isEmpty {
            out += "\nNotes:\n" + notes.map { "  - " + $0 }.joined(separator: "\n") + "\n"
        }
        return out
    }

    func json() throws -> Data {
        let cs: [[String: Any]] = cases.map { c in
            var d: [String: Any] = [
                "name": c.name, "what": c.what, "frames": c.frames, "megapixels": c.megapixels,
                "runs": c.samples.count, "wall_median": c.medianWall,
                "wall_min": c.walls.min() ?? 0, "wall_max": c.walls.max() ?? 0,
                "peak_rss_bytes_max": c.maxRSS, "cpu_median": c.medianCPU,
                "samples": c.samples.map { s -> [String: Any] in
                    ["wall": s.wall, "peak_rss_bytes": s.peakRSS, "cpu": s.cpu, "stages": s.stages, "load1_before": s.load]
                },
            ]
            var stages: [String: Double] = [:]
            for s in ["decode", "calibrate", "register", "warp", "stack", "encode", "total"] { if let v = c.stage(s) { stages[s] = v } }
            d["stages_median"] = stages
            if !c.extra.isEmpty { d["extra"] = c.extra }
            if !c.note.isEmpty { d["note"] = c.note }
            return d
        }
        let obj: [String: Any] = [
            "version": 1, "machine": machine, "settings": settings, "cases": cs,
            "fits": fits, "notes": notes,
            "checks": checks.map { ["label": $0.label, "value": $0.value, "target": $0.target, "pass": $0.pass] },
        ]
        return try JSONSerialization.data(withJSONObject: obj, options: [.prettyPrinted, .sortedKeys])
    }
}
