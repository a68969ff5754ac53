import Stacker

extension StackCommand {
    /// `--partial FILE`, `--frames a:b` and `--rows i/N`: a shard's piece
    /// for `stack merge` (docs/cluster.md).
    static func parseShards(_ args: ParsedArguments, into s: inout Settings) throws {
        if let v = args["--frames"] {
            let parts = v.split(separator: ":", omittingEmptySubsequences: false).map { Int(String($0)) }
            guard parts.count == 2, let a = parts[0], let b = parts[1], a >= 0, b > a else {
                throw UsageError(description: "--frames needs a:b with 0 ≤ a < b (frames a to b − 1), got '\(v)'")
            }
            s.options.frameRange = a..<b
        }
        if let v = args["--rows"] {
            let parts = v.split(separator: "/", omittingEmptySubsequences: false).map { Int(String($0)) }
            guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, (0..<n).contains(i) else {
                throw UsageError(description: "--rows needs i/N with 0 ≤ i < N (band i of N), got '\(v)'")
            }
            s.rows = (i, n)
        }
        guard let v = args.values["--partial"] else {
            if s.rows != nil { throw UsageError(description: "--rows needs --partial FILE, where the band is written") }
            return
        }
        guard ImageFormat.fromExtension(of: v) == .fits else {
            throw UsageError(description: "--partial '\(v)': the piece is written as FITS; use .fits, .fit or .fts")
        }
        guard s.options.drizzle == nil else {
            throw UsageError(description: "--partial and --scale do not go together: drizzle makes a whole image, not a piece")
        }
        guard s.output == nil, s.beforeAfter == nil, s.rejectionMap == nil else {
            throw UsageError(description: "--partial writes a piece for stack merge, not an image; drop --output, --before-after and --rejection-map")
        }
        if s.rows != nil {
            guard s.options.frameRange == nil else {
                throw UsageError(description: "--rows computes its band over all frames; drop --frames")
            }
        } else {
            guard s.options.mode == .average, s.options.rejection == nil, s.options.keep == nil else {
                throw UsageError(description: "--partial without --rows sums an average; shard a robust stack (--mode, --reject, --keep) with --rows i/N")
            }
        }
        s.partial = v
    }
}

/// Stacks this shard's part and writes its piece (`--partial`): the
/// average's sums over the `--frames` slice, or band `--rows i/N` of the
/// output; then the report, when asked for.
func writePiece(_ settings: StackCommand.Settings, options given: StackOptions, frames: [FrameSource],
                terminal: Terminal) throws {
    let piece = settings.partial!
    try OutputPath.refuseOverwritingInputs(output: piece, inputs: settings.inputs)
    var options = given
    options.temporaryDirectory = AtomicFile.folder(of: piece)
    // The bands must be stacked for the depth the merged output is written at.
    options.outputBitDepth = settings.depth ?? 8
    let progress: @Sendable (StackProgress) -> Void = { p in
        if p.stage == .aligning { terminal.progress("stack: aligning \(p.completed)/\(p.total) \(p.path ?? "")") }
    }
    var result: StackResult
    let what: String
    if let rows = settings.rows {
        result = try stackRows(frames, options: options, band: rows.band, of: rows.of, progress: progress)
        guard rows.of <= result.image.height else {
            throw StackerError.invalidInput(path: piece.description, reason: "--rows \(rows.band)/\(rows.of): the output has only \(result.image.height) rows")
        }
        try RowBand(result, band: rows.band, of: rows.of).write(to: piece)
        let range = RowBand.rows(band: rows.band, of: rows.of, height: result.image.height)
        what = "rows \(range.lowerBound):\(range.upperBound) of \(result.image.height)"
    } else {
        result = try stackPartialSums(frames, options: options, progress: progress)
        guard let sums = result.partialSums else {
            throw StackerError.stackingFailed(path: piece.description, reason: "the run made no partial sums")
        }
        try sums.write(to: piece)
        what = "sums of frames \(sums.frames.lowerBound):\(sums.frames.upperBound)"
    }
    terminal.clearProgress()
    if !settings.quiet {
        for w in result.warnings where !w.contains(": skipped: outside the frames") { terminal.line("stack: warning: \(w)") }
    }
    if let reportPath = settings.report { try result.report(output: piece).write(to: reportPath) }
    if !settings.quiet { terminal.line("stack: wrote \(piece): \(what)") }
}
