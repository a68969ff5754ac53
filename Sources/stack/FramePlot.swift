#if canImport(Glibc)
import Glibc
#endif
import Stacker

/// `--plot FILE.svg`: the per-frame measures of a run drawn over the
/// sequence, one panel per measure the run has, as Siril users choose
/// frames. Written by hand as SVG text, with no plotting dependency.
///
/// Every panel shares the x axis (frame index). Each frame with the
/// measure is one `<circle class="point">`: filled blue when stacked,
/// hollow grey when left out, and the reference a larger red circle. A
/// `--keep` cut-off is a dashed line (`class="cutoff"`) on the panel of
/// the measure it ranked by.
struct FramePlot {
    /// One measure over the sequence.
    struct Series {
        /// The panel's title.
        let title: String
        /// The `--keep-by` measure this is, when it is one.
        let measure: FrameSelection.Measure?
        /// Per frame, in input order; nil where the frame has no value.
        let values: [Double?]
    }

    /// Panels, top to bottom: those of the run's measures with at least one value.
    let series: [Series]
    /// Per frame: whether it went into the stack.
    let used: [Bool]
    /// The reference frame's index.
    let reference: Int
    /// The `--keep` cut-off, when frames were dropped by it.
    let cutoff: (measure: FrameSelection.Measure, value: Double)?

    /// The plot of `result`'s frames.
    init(_ result: StackResult) {
        let frames = result.frames
        let all: [Series] = [
            Series(title: "registration score", measure: .score, values: frames.map(\.score)),
            Series(title: "weight", measure: nil, values: frames.map(\.weight)),
            Series(title: "noise σ", measure: nil, values: frames.map(\.noiseSigma)),
            Series(title: "FWHM (px)", measure: .fwhm, values: frames.map(\.fwhm)),
            Series(title: "roundness", measure: .roundness, values: frames.map(\.roundness)),
            Series(title: "stars found", measure: .stars, values: frames.map { $0.starsFound.map(Double.init) }),
            Series(title: "background", measure: .background, values: frames.map(\.background)),
        ]
        series = all.filter { $0.values.contains { $0 != nil } }
        used = frames.map(\.used)
        reference = result.referenceIndex
        cutoff = result.selection.map { ($0.measure, $0.cutoff) }
    }

    /// Layout, in SVG user units.
    private static let width = 720.0, panelHeight = 130.0, left = 70.0, right = 20.0, top = 40.0, gap = 30.0

    /// The SVG document.
    var svg: String {
        let height = Self.top + Double(series.count) * (Self.panelHeight + Self.gap) + 30
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.width)" height="\(height)" viewBox="0 0 \(Self.width) \(height)" font-family="sans-serif" font-size="11">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(Self.left)" y="20" font-size="14">Frames: \(used.count), stacked: \(used.filter { $0 }.count), reference: \(reference)</text>
        <text x="\(Self.width - Self.right)" y="20" text-anchor="end"><tspan fill="#1f5fbf">● stacked</tspan>  <tspan fill="#888">○ left out</tspan>  <tspan fill="#c0392b">◉ reference</tspan></text>

        """
        for (k, s) in series.enumerated() {
            out += panel(s, y0: Self.top + Double(k) * (Self.panelHeight + Self.gap))
        }
        return out + "</svg>\n"
    }

    /// The x coordinate of frame `i`.
    private func x(_ i: Int) -> Double {
        let span = Self.width - Self.left - Self.right
        return used.count > 1 ? Self.left + span * Double(i) / Double(used.count - 1) : Self.left + span / 2
    }

    /// One panel: frame, title, axis range, the cut-off line and the points.
    private func panel(_ s: Series, y0: Double) -> String {
        var known = s.values.compactMap { $0 }.filter(\.isFinite)
        let line = cutoff.flatMap { $0.measure == s.measure ? $0.value : nil }
        if let line { known.append(line) }
        let dataLow = known.min() ?? 0, dataHigh = known.max() ?? 1
        var low = dataLow, high = dataHigh
        if high - low < 1e-12 { low -= 0.5; high += 0.5 }
        let pad = (high - low) * 0.08
        low -= pad
        high += pad
        let h = Self.panelHeight
        let y = { (v: Double) in y0 + h - (v - low) / (high - low) * h }
        let w = Self.width - Self.left - Self.right
        var out = "<g class=\"panel\" data-measure=\"\(Self.xml(s.title))\">\n"
        out += "<rect x=\"\(Self.left)\" y=\"\(y0)\" width=\"\(w)\" height=\"\(h)\" fill=\"none\" stroke=\"#ccc\"/>\n"
        out += "<text x=\"\(Self.left)\" y=\"\(y0 - 6)\" font-weight=\"bold\">\(Self.xml(s.title))</text>\n"
        out += "<text x=\"\(Self.left - 6)\" y=\"\(Self.number(y(dataHigh) + 4))\" text-anchor=\"end\">\(Self.label(dataHigh))</text>\n"
        out += "<text x=\"\(Self.left - 6)\" y=\"\(Self.number(y(dataLow) + 4))\" text-anchor=\"end\">\(Self.label(dataLow))</text>\n"
        out += "<text x=\"\(Self.left)\" y=\"\(y0 + h + 14)\">0</text>\n"
        out += "<text x=\"\(Self.width - Self.right)\" y=\"\(y0 + h + 14)\" text-anchor=\"end\">\(used.count - 1)</text>\n"
        if let line {
            out += "<line class=\"cutoff\" x1=\"\(Self.left)\" x2=\"\(Self.left + w)\" y1=\"\(y(line))\" y2=\"\(y(line))\" stroke=\"#e67e22\" stroke-dasharray=\"6 4\"/>\n"
            out += "<text x=\"\(Self.left + w - 4)\" y=\"\(y(line) - 4)\" text-anchor=\"end\" fill=\"#e67e22\">--keep cut-off \(Self.label(line))</text>\n"
        }
        let points = s.values.enumerated().compactMap { i, v in v.flatMap { $0.isFinite ? (i, $0) : nil } }
        if points.count > 1 {
            let path = points.map { "\(Self.number(x($0.0))),\(Self.number(y($0.1)))" }.joined(separator: " ")
            out += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"#9bb3d9\"/>\n"
        }
        for (i, v) in points {
            let style: String
            if i == reference {
                style = "r=\"5\" fill=\"#c0392b\" stroke=\"#7b241c\""
            } else if used[i] {
                style = "r=\"3.5\" fill=\"#1f5fbf\""
            } else {
                style = "r=\"3.5\" fill=\"white\" stroke=\"#888\""
            }
            let state = i == reference ? "reference" : used[i] ? "used" : "unused"
            out += "<circle class=\"point\" data-frame=\"\(i)\" data-state=\"\(state)\" cx=\"\(Self.number(x(i)))\" cy=\"\(Self.number(y(v)))\" \(style)><title>frame \(i): \(Self.label(v))</title></circle>\n"
        }
        return out + "</g>\n"
    }

    /// `v` to 2 decimals, for coordinates.
    private static func number(_ v: Double) -> String { fixedDecimals(v, 2) }

    /// `v` with 4 significant digits (whole numbers as they are), for labels.
    private static func label(_ v: Double) -> String {
        guard v.isFinite else { return fixedDecimals(v, 0) }
        if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
        let magnitude = Int((log10(abs(v))).rounded(.down))
        return fixedDecimals(v, min(10, max(0, 3 - magnitude)))
    }

    /// `text` with XML's special characters escaped.
    static func xml(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
