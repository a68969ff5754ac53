#if canImport(Glibc)
import Glibc
#endif

/// A folder named where frames are expected: the image files it holds,
/// told by their first bytes (not their names), in natural name order.
public enum FrameFolder {
    /// How many leading bytes decide whether a file is a frame.
    static let signatureBytes = 4096

    /// True when `path` names a folder (following symbolic links).
    public static func isFolder(_ path: some FilePathConvertible) -> Bool {
        var info = stat()
        return path.filePath.withCString { stat($0, &info) } == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The frame files in `folder`: regular files whose first bytes are a
    /// JPEG, PNG, TIFF, FITS, HEIF/AVIF, SER or camera raw signature
    /// (`ImageFormat.fromMagic`, `SERCodec.hasMagic`,
    /// `UnsupportedFormat.rawName`), whatever their names. Hidden entries
    /// (`.name`) are skipped; with `recursive`, subfolders are searched too
    /// (symbolic links to folders are not followed, so a loop cannot
    /// recurse). Sorted by `naturallyPrecedes` on the path below `folder`,
    /// so `f2` comes before `f10`. Names are kept as bytes.
    ///
    /// A generated scene's folder, whose `truth.json` names its frames
    /// (`SceneManifest`), gives exactly those, in the manifest's order:
    /// its `truth.png` and `mask.png` are not frames.
    /// - Throws: `StackerError.unreadable` for a folder that cannot be listed.
    public static func frames(in folder: some FilePathConvertible, recursive: Bool = false) throws -> [FilePath] {
        try listing(folder, recursive: recursive).frames
    }

    /// `frames(in:recursive:)`, and whether they are the ones a generated
    /// scene's `truth.json` names (`sceneManifestName`).
    /// - Throws: `StackerError.unreadable` for a folder that cannot be listed.
    public static func listing(_ folder: some FilePathConvertible,
                               recursive: Bool = false) throws -> (frames: [FilePath], fromManifest: Bool) {
        let root = folder.filePath
        if let listed = SceneManifest.frames(in: root) { return (listed, true) }
        var found: [FilePath] = []
        try collect(root, relative: nil, recursive: recursive, into: &found)
        return (found.sorted(by: naturallyPrecedes).map { root.appending($0) }, false)
    }

    /// The file naming a generated scene's frames.
    public static let sceneManifestName = SceneManifest.fileName

    /// Adds the frame files of `folder` (named `relative` below the root) to `found`.
    private static func collect(_ folder: FilePath, relative: FilePath?, recursive: Bool,
                                into found: inout [FilePath]) throws {
        guard let dir = folder.withCString({ opendir($0) }) else {
            throw StackerError.unreadable(path: folder.description, reason: "cannot list the folder: \(String(cString: strerror(errno)))")
        }
        var names: [FilePath] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in FilePath(bytes: raw.prefix { $0 != 0 }) }
            if name.bytes.first != UInt8(ascii: ".") { names.append(name) }
        }
        closedir(dir)
        for name in names {
            let path = folder.appending(name)
            let below = relative.map { $0.appending(name) } ?? name
            var info = stat()
            guard path.withCString({ lstat($0, &info) }) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if recursive { try collect(path, relative: below, recursive: true, into: &found) }
            case S_IFREG:
                if holdsFrames(path) { found.append(below) }
            case S_IFLNK:
                // A link counts when it leads to a regular file (never to a folder, pipe or device).
                var target = stat()
                if path.withCString({ stat($0, &target) }) == 0, (target.st_mode & S_IFMT) == S_IFREG, holdsFrames(path) {
                    found.append(below)
                }
            default:
                continue
            }
        }
    }

    /// True when the regular file at `path` starts with a frame signature.
    static func holdsFrames(_ path: FilePath) -> Bool {
        guard let bytes = try? FileBytes.read(path, limit: signatureBytes), !bytes.isEmpty else { return false }
        return ImageFormat.fromMagic(bytes) != nil || SERCodec.hasMagic(bytes) || UnsupportedFormat.rawName(bytes) != nil
    }

    /// Natural order: runs of ASCII digits compare as numbers (`f2` <
    /// `f10`, `f02` == `f2` then by their bytes), everything else byte by
    /// byte; ties are broken by the plain byte order, so the order is total.
    public static func naturallyPrecedes(_ a: FilePath, _ b: FilePath) -> Bool {
        let x = a.bytes, y = b.bytes
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                let (ra, ni) = digitRun(x, from: i), (rb, nj) = digitRun(y, from: j)
                if ra.count != rb.count { return ra.count < rb.count }
                if ra != rb { return ra.lexicographicallyPrecedes(rb) }
                i = ni
                j = nj
            } else {
                if x[i] != y[j] { return x[i] < y[j] }
                i += 1
                j += 1
            }
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j }
        return a < b
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// The digits of the run starting at `start`, leading zeros dropped, and where the run ends.
    private static func digitRun(_ s: [UInt8], from start: Int) -> (digits: ArraySlice<UInt8>, end: Int) {
        var end = start
        while end < s.count && isDigit(s[end]) { end += 1 }
        var first = start
        while first < end - 1 && s[first] == 0x30 { first += 1 }
        return (s[first..<end], end)
    }
}
