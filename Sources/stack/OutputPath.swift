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
        func name(_ stem: String) -> FilePath {
            directory == "." ? FilePath(stem + "." + ext) : directory.appending(FilePath(stem + "." + ext))
        }
        var candidate = name("stacked")
        var n = 2
        while candidate.exists {
            candidate = name("stacked-\(n)")
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
