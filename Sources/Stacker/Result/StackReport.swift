/// The JSON run report (`--report FILE.json`), version 1 of the contract in
/// DESIGN.md. Keys are written in a fixed order so reports diff cleanly.
public struct StackReport: Sendable {
    /// The run's outcome.
    public var result: StackResult
    /// The output path as written.
    public var outputPath: String

    /// A report of `result` written to `outputPath`.
    public init(result: StackResult, outputPath: String) {
        self.result = result
        self.outputPath = outputPath
    }

    /// The options the run used.
    public var options: StackOptions { result.options }

    /// The report as pretty-printed JSON text.
    public var json: String {
        var out = "{\n"
        out += "  \"version\": 1,\n"
        out += "  \"mode\": \(JSONText.string(options.mode.rawValue)),\n"
        if let rejection = options.rejection {
            out += "  \"reject\": \(JSONText.string(rejection.name.rawValue)),\n"
        }
        out += "  \"align\": \(JSONText.string(options.alignment.rawValue)),\n"
        out += "  \"interpolation\": \(JSONText.string(options.interpolation.rawValue)),\n"
        if let drizzle = options.drizzle {
            out += "  \"drizzle\": { \"scale\": \(JSONText.number(drizzle.scale)), \"pixfrac\": \(JSONText.number(drizzle.pixfrac)), "
            out += "\"kernel\": \(JSONText.string(drizzle.kernel.rawValue)), \"merge\": \(JSONText.string(drizzle.merge.rawValue)) },\n"
        }
        out += "  \"reference\": \(result.referenceIndex),\n"
        out += "  \"referenceChoice\": \(JSONText.string(options.automaticReference ? "sharpest" : "given")),\n"
        out += "  \"output\": \(JSONText.string(outputPath)),\n"
        if let d = result.metadata.debayer {
            out += "  \"debayer\": \(d.json),\n"
        }
        if let m = result.metadata.whiteBalance {
            out += "  \"whiteBalance\": [\(m.map { JSONText.number(Double($0)) }.joined(separator: ", "))],\n"
        }
        if let range = result.image.dataRange {
            // In the reference's native units (ADU for integer data), before `outputScale`.
            let scale = result.nativeFullScale
            out += "  \"dataRange\": { \"min\": \(JSONText.number(Double(range.lowerBound) * scale)), "
            out += "\"max\": \(JSONText.number(Double(range.upperBound) * scale)), \"fullScale\": \(JSONText.number(scale)) },\n"
        }
        if options.outputScale != .native {
            out += "  \"outputScale\": \(JSONText.string(options.outputScale.rawValue)),\n"
        }
        out += "  \"width\": \(result.image.width),\n"
        out += "  \"height\": \(result.image.height),\n"
        out += "  \"frames\": [\n"
        for (i, f) in result.frames.enumerated() {
            out += Self.frameJSON(f) + "\(i + 1 < result.frames.count ? "," : "")\n"
        }
        out += "  ],\n"
        if let keep = result.selection {
            let dropped = keep.dropped.map {
                "{ \"path\": \(JSONText.string(result.frames[$0.index].path)), \"\(keep.measure.rawValue)\": \(JSONText.number($0.value)) }"
            }
            out += "  \"keep\": { \"measure\": \(JSONText.string(keep.measure.rawValue)), "
            out += "\"cutoff\": \(JSONText.number(keep.cutoff)), \"kept\": \(keep.kept),\n"
            out += "    \"dropped\": [\(dropped.joined(separator: ", "))] },\n"
        }
        let t = result.timings
        out += "  \"timings\": { \"decode\": \(JSONText.number(t.decode)), \"register\": \(JSONText.number(t.register)), "
        out += "\"calibrate\": \(JSONText.number(t.calibrate)), "
        out += "\"warp\": \(JSONText.number(t.warp)), \"stack\": \(JSONText.number(t.stack)), "
        out += "\"encode\": \(JSONText.number(t.encode)), \"total\": \(JSONText.number(t.total)) }\n"
        out += "}\n"
        return out
    }

    /// One frame's record as a JSON object on two lines, indented for the
    /// `frames` array (no comma or newline after it).
    static func frameJSON(_ f: FrameReport) -> String {
        var out = ""
        let rows = f.transform.rows.map { "[" + $0.map(JSONText.number).joined(separator: ", ") + "]" }
        out += "    { \"path\": \(JSONText.string(f.path)), \"dx\": \(JSONText.number(f.dx)), \"dy\": \(JSONText.number(f.dy)),\n"
        out += "      \"transform\": [\(rows.joined(separator: ", "))],\n"
        out += "      \"score\": \(JSONText.number(f.score)), \"used\": \(f.used), "
        out += "\"reason\": \(f.reason.map(JSONText.string) ?? "null"), \"weight\": \(JSONText.number(f.weight))"
        if let agreement = f.overlapAgreement { out += ", \"overlapAgreement\": \(JSONText.number(agreement))" }
        if let sigma = f.noiseSigma { out += ", \"noise\": \(JSONText.number(sigma))" }
        if let note = f.alignmentNote { out += ", \"alignmentNote\": \(JSONText.string(note))" }
        if let l = f.localField {
            out += ", \"localMedian\": \(JSONText.number(l.median)), \"localP95\": \(JSONText.number(l.p95))"
            out += ", \"localFallback\": \(JSONText.number(l.fallbackShare))"
        }
        if let g = f.exposureGain, let o = f.exposureOffset {
            out += ", \"exposureGain\": \(JSONText.number(g)), \"exposureOffset\": \(JSONText.number(o))"
        }
        if let sharp = f.sharpness { out += ", \"sharpness\": \(JSONText.number(sharp))" }
        if let b = f.background { out += ", \"background\": \(JSONText.number(b))" }
        if let n = f.starsFound { out += ", \"starsFound\": \(n)" }
        if let n = f.starsMatched { out += ", \"starsMatched\": \(n)" }
        if let w = f.fwhm { out += ", \"fwhm\": \(JSONText.number(w))" }
        if let r = f.roundness { out += ", \"roundness\": \(JSONText.number(r))" }
        if f.colourConverted == true { out += ", \"colourConverted\": true" }
        if let r = f.storedRange {
            out += ", \"dataMin\": \(JSONText.number(r.lowerBound)), \"dataMax\": \(JSONText.number(r.upperBound))"
        }
        out += " }"
        return out
    }

    /// Writes the report atomically to `path`.
    public func write(to path: some FilePathConvertible) throws {
        try AtomicFile.write(Array(json.utf8), to: path)
    }
}

/// Minimal JSON scalar formatting (the CLI's JSON lines use it too).
package enum JSONText {
    /// A JSON string literal with the required escapes.
    package static func string(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    /// A JSON number in the shortest form that reads back to the same
    /// `Double` (whole numbers without a fraction); non-finite values become
    /// null. Rounding would move a homography's perspective terms (≈ 1e-6)
    /// enough to shift a frame's corners by pixels.
    package static func number(_ x: Double) -> String {
        guard x.isFinite else { return "null" }
        if x == x.rounded() && abs(x) < 1e15 { return String(Int64(x)) }
        // Swift's description is the shortest round-tripping decimal, and its
        // exponent form (`1e-06`) is valid JSON.
        return "\(x)"
    }
}
