#if canImport(Glibc)
import Glibc
#endif

/// Rules for the output file name (DESIGN.md, CLI contract).
public enum OutputPath {
    /// The implicit output name: `stacked.<ext of the first frame>` in
    /// `directory`, or the first free `stacked-N.<ext>` when that exists, so
    /// an implicit name never replaces a file.
    public static func implicit(firstInput: some FilePathConvertible, directory: FilePath = ".") -> FilePath {
        let first = firstInput.filePath
        var ext = "jpg"
        if ImageFormat.fromExtension(of: first) != nil, let given = first.lowercasedExtension { ext = given }
        func name(_ stem: String) -> FilePath {
            directory == "." ? FilePath(stem + "." + ext) : directory.appending(FilePath(stem + "." + ext))
        }
        var candidate = name("stacked")
        var n = 2
        while exists(candidate) {
            candidate = name("stacked-\(n)")
            n += 1
        }
        return candidate
    }

    /// Throws when `output` names one of `inputs` (compared after resolving
    /// `.`/`..` and symbolic links, and by device and inode when it exists).
    public static func refuseOverwritingInputs(output: some FilePathConvertible,
                                               inputs: [some FilePathConvertible]) throws {
        let output = output.filePath
        let out = canonical(output)
        let outID = fileID(output)
        for input in inputs.map(\.filePath) {
            if canonical(input) == out || (outID != nil && fileID(input) == outID) {
                throw StackerError.invalidInput(path: output.description, reason: "the output is one of the input frames (\(input)); choose another --output")
            }
        }
    }

    /// True when something exists at `path` (a dangling symlink counts).
    static func exists(_ path: FilePath) -> Bool {
        var st = stat()
        return path.withCString { lstat($0, &st) } == 0
    }

    /// Device and inode of the file at `path`, following links.
    static func fileID(_ path: FilePath) -> [UInt64]? {
        var st = stat()
        guard path.withCString({ stat($0, &st) }) == 0 else { return nil }
        return [UInt64(st.st_dev), UInt64(st.st_ino)]
    }

    /// The absolute, link-free spelling of `path`; for a file that does not
    /// exist yet, its folder is resolved and the name appended.
    static func canonical(_ path: FilePath) -> FilePath {
        if let r = realPath(path) { return r }
        let folder = path.folder
        return (realPath(folder) ?? folder).appending(path.lastComponent)
    }

    private static func realPath(_ path: FilePath) -> FilePath? {
        guard let p = path.withCString({ realpath($0, nil) }) else { return nil }
        defer { free(p) }
        return FilePath(cString: p)
    }
}
