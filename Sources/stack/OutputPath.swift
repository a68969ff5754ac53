import Stacker

/// Rules for the output file name (DESIGN.md, CLI contract).
enum OutputPath {
    /// The implicit output name: `stacked.<ext>` in `directory`, or the
    /// first free `stacked-N.<ext>` when that exists, so an implicit name
    /// never replaces a file. `<ext>` is `format` (`--format`) when given,
    /// else the first frame's extension when it names a format we write, else `jpg`.
    static func implicit(firstInput: some FilePathConvertible, directory: FilePath = ".", format: String? = nil) -> FilePath {
        let first = firstInput.filePath
        var ext = "jpg"
        if ImageFormat.fromExtension(of: first) != nil, let given = first.lowercasedExtension { ext = given }
        if let format { ext = format }
        return firstFree(stem: Array("stacked".utf8), ext: ext, in: directory)
    }

    /// `<stem>.<ext>` in `directory` (no `./` for the current folder), or
    /// the first `<stem>-N.<ext>` (N = 2, 3, …) that neither exists nor is
    /// in `taken`: the rule by which an implicit output name never
    /// replaces a file (nor another output of the same run).
    static func firstFree(stem: [UInt8], ext: String, in directory: FilePath, taken: Set<FilePath> = []) -> FilePath {
        func name(_ suffix: String) -> FilePath {
            let file = FilePath(bytes: stem + Array((suffix + "." + ext).utf8))
            return directory == "." ? file : directory.appending(file)
        }
        var candidate = name("")
        var n = 2
        while candidate.exists || taken.contains(candidate) {
            candidate = name("-\(n)")
            n += 1
        }
        return candidate
    }

    /// Throws when `output` names one of `inputs` (compared after resolving
    /// `.`/`..` and symbolic links, and by device and inode when it exists).
    static func refuseOverwritingInputs(output: some FilePathConvertible,
                                        inputs: [some FilePathConvertible]) throws {
        let output = output.filePath
        let out = output.canonical
        let outID = output.fileID
        for input in inputs.map(\.filePath) {
            if input.canonical == out || (outID != nil && input.fileID == outID) {
                throw StackerError.invalidInput(path: output.description, reason: "the output is one of the input frames (\(input)); choose another --output")
            }
        }
    }
}
