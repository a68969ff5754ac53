#if canImport(Glibc)
import Glibc
#endif

/// Expands the calibration paths given on the command line: a folder
/// stands for the image files directly inside it, in name order.
enum CalibrationFiles {
    /// `paths` with every folder replaced by its image files (those whose
    /// extension names a format `ImageFile` reads), sorted by their bytes;
    /// files are kept as given. Names are kept as bytes, UTF-8 or not.
    /// - Throws: `StackerError.invalidInput` for a folder holding no image file,
    ///   `StackerError.unreadable` for a folder that cannot be listed.
    static func expand(_ paths: [FilePath], role: String) throws -> [FilePath] {
        var out: [FilePath] = []
        for path in paths {
            var info = stat()
            guard path.withCString({ stat($0, &info) }) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                out.append(path)
                continue
            }
            guard let dir = path.withCString({ opendir($0) }) else {
                throw StackerError.unreadable(path: path.description, reason: "cannot list the \(role) folder: \(String(cString: strerror(errno)))")
            }
            var names: [FilePath] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { FilePath(bytes: $0) }
                if name.bytes.first != UInt8(ascii: "."), ImageFormat.fromExtension(of: name) != nil { names.append(name) }
            }
            closedir(dir)
            guard !names.isEmpty else {
                throw StackerError.invalidInput(path: path.description, reason: "the \(role) folder holds no image file")
            }
            out += names.sorted().map { path.appending($0) }
        }
        return out
    }
}
