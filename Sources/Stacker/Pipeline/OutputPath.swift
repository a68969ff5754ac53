#if canImport(Glibc)
import Glibc
#endif

/// Rules for the output file name (DESIGN.md, CLI contract).
public enum OutputPath {
    /// The implicit output name: `stacked.<ext of the first frame>` in
    /// `directory`, or the first free `stacked-N.<ext>` when that exists, so
    /// an implicit name never replaces a file.
    public static func implicit(firstInput: String, directory: String = ".") -> String {
        let name = firstInput.split(separator: "/").last.map(String.init) ?? firstInput
        var ext = "jpg"
        if let dot = name.lastIndex(of: "."), ImageFormat.fromExtension(of: name) != nil {
            ext = name[name.index(after: dot)...].lowercased()
        }
        let prefix = directory == "." ? "" : directory + "/"
        var candidate = "\(prefix)stacked.\(ext)"
        var n = 2
        while exists(candidate) {
            candidate = "\(prefix)stacked-\(n).\(ext)"
            n += 1
        }
        return candidate
    }

    /// Throws when `output` names one of `inputs` (compared after resolving
    /// `.`/`..` and symbolic links, and by device and inode when it exists).
    public static func refuseOverwritingInputs(output: String, inputs: [String]) throws {
        let out = canonical(output)
        let outID = fileID(output)
        for input in inputs {
            if canonical(input) == out || (outID != nil && fileID(input) == outID) {
                throw StackerError.invalidInput(path: output, reason: "the output is one of the input frames (\(input)); choose another --output")
            }
        }
    }

    /// True when something exists at `path` (a dangling symlink counts).
    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Device and inode of the file at `path`, following links.
    static func fileID(_ path: String) -> [UInt64]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return [UInt64(st.st_dev), UInt64(st.st_ino)]
    }

    /// The absolute, link-free spelling of `path`; for a file that does not
    /// exist yet, its folder is resolved and the name appended.
    static func canonical(_ path: String) -> String {
        if let r = realPath(path) { return r }
        let (dir, name) = AtomicFile.split(path)
        return (realPath(dir) ?? dir) + "/" + name
    }

    private static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
