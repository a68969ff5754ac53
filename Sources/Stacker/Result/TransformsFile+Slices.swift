extension TransformsFile {
    /// The slices at `paths` (files `stack register --frames a:b` wrote, or
    /// any transforms files) joined in the order of their `first` frames
    /// into one file for the whole burst. One path reads that file, which must start at frame 0.
    /// - Throws: `StackerError.invalidInput` naming the slice that does not
    ///   fit: unreadable, another reference, a gap or an overlap.
    public static func read(_ paths: [some FilePathConvertible]) throws -> TransformsFile {
        let files = paths.map(\.filePath)
        let slices = try files.map { ($0, try read($0)) }.sorted { $0.1.first < $1.1.first }
        var joined = slices[0].1
        joined.first = 0
        joined.frames = []
        for (file, slice) in slices {
            let name = file.description
            guard slice.reference == joined.reference else {
                throw StackerError.invalidInput(path: name, reason: "its reference (\(slice.reference.map(String.init) ?? "none")) is not the other slices' (\(joined.reference.map(String.init) ?? "none"))")
            }
            guard slice.first == joined.frames.count else {
                let end = slice.first + slice.frames.count
                throw StackerError.invalidInput(path: name, reason: slice.first > joined.frames.count
                    ? "no slice holds the frames \(joined.frames.count):\(slice.first)"
                    : "its frames \(slice.first):\(end) overlap another slice's (up to \(joined.frames.count))")
            }
            joined.frames += slice.frames
        }
        return joined
    }

    /// The JSON text of a transforms file holding `records` (a run's
    /// frame records from index `first` on) with reference `reference`,
    /// made by `alignment` (written as `align`, as a report writes it): each
    /// record as a report writes it (`--report`), so the file reads back as
    /// `--transforms`.
    public static func json(records: some Collection<FrameReport>, reference: Int, first: Int,
                            alignment: Alignment? = nil) -> String {
        var out = "{\n  \"version\": 1,\n"
        if let alignment { out += "  \"align\": \(JSONText.string(alignment.rawValue)),\n" }
        out += "  \"reference\": \(reference),\n  \"first\": \(first),\n  \"frames\": [\n"
        out += records.map(StackReport.frameJSON).joined(separator: ",\n")
        return out + "\n  ]\n}\n"
    }
}
