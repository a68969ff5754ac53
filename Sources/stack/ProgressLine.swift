import Stacker
import Synchronization

/// Turns the pipeline's progress events into the terminal's progress line
/// (rate, elapsed time, time left) or into JSON lines for programs.
final class ProgressLine: Sendable {
    /// How progress is shown (`--progress`).
    enum Style: String, Sendable {
        /// The rewritten terminal line (only when stderr is a terminal and not `--quiet`).
        case line
        /// One JSON object per event on stderr, whatever stderr is.
        case json
        /// Nothing.
        case none
    }

    private let style: Style
    private let terminal: Terminal
    /// Describes the combining stage (`median`, `reject sigma`, …).
    private let modeName: String
    private let start: ContinuousClock.Instant

    /// A progress writer whose clock starts now.
    init(style: Style, terminal: Terminal, modeName: String) {
        self.style = style
        self.terminal = terminal
        self.modeName = modeName
        start = .now
    }

    /// Shows `event` as the style says.
    func report(_ event: StackProgress) {
        let elapsed = Self.seconds(ContinuousClock.now - start)
        switch style {
        case .none: return
        case .json: terminal.line(Self.json(event, elapsed: elapsed))
        case .line: terminal.progress(Self.text(event, elapsed: elapsed, modeName: modeName))
        }
    }

    /// Frames per second so far, and the seconds left at that rate; nil before the first frame.
    static func rate(completed: Int, total: Int, elapsed: Double) -> (perSecond: Double, remaining: Double)? {
        guard completed > 0, elapsed > 0 else { return nil }
        let perSecond = Double(completed) / elapsed
        return (perSecond, Double(max(0, total - completed)) / perSecond)
    }

    /// The terminal line: `stack: aligning 25/60 · 3.1 frames/s · 0:08 elapsed · 0:11 left · file`.
    static func text(_ event: StackProgress, elapsed: Double, modeName: String) -> String {
        switch event.stage {
        case .aligning:
            var parts = ["stack: aligning \(event.completed)/\(event.total)"]
            if let r = rate(completed: event.completed, total: event.total, elapsed: elapsed) {
                parts.append("\(fixedDecimals(r.perSecond, 1)) frames/s")
                parts.append("\(clock(elapsed)) elapsed")
                parts.append("\(clock(r.remaining)) left")
            }
            if let path = event.path { parts.append(path) }
            return parts.joined(separator: " · ")
        case .combining:
            return "stack: combining \(event.total) frames (\(modeName)) · \(clock(elapsed)) elapsed…"
        }
    }

    /// One JSON object: `stage`, `completed`, `total`, `path` (or null),
    /// `elapsed` seconds, and (aligning, after a frame) `framesPerSecond`
    /// and `remaining` seconds.
    static func json(_ event: StackProgress, elapsed: Double) -> String {
        var fields = [
            "\"stage\": \(JSONText.string(event.stage.rawValue))",
            "\"completed\": \(event.completed)",
            "\"total\": \(event.total)",
            "\"path\": \(event.path.map(JSONText.string) ?? "null")",
            "\"elapsed\": \(JSONText.number(rounded(elapsed)))",
        ]
        if event.stage == .aligning, let r = rate(completed: event.completed, total: event.total, elapsed: elapsed) {
            fields.append("\"framesPerSecond\": \(JSONText.number(rounded(r.perSecond)))")
            fields.append("\"remaining\": \(JSONText.number(rounded(r.remaining)))")
        }
        return "{ " + fields.joined(separator: ", ") + " }"
    }

    /// `seconds` as `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return s >= 3600 ? "\(s / 3600):\(two(s / 60 % 60)):\(two(s % 60))" : "\(s / 60):\(two(s % 60))"
    }

    /// `x` to milliseconds.
    private static func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
