#if canImport(Glibc)
import Glibc
#endif

/// Expands the calibration paths given on the command line: a folder
/// stands for the image files directly inside it, in name order.
enum CalibrationFiles {
    /// `paths` with every folder replaced by its image files (those whose
    /// extension names a format `ImageFile` reads), sorted by name; files
    /// are kept as given.
    /// - Throws: `StackerError.invalidInput` for a folder holding no image file,
    ///   `StackerError.unreadable` for a folder that cannot be listed.
    static func expand(_ paths: [String], role: String) throws -> [String] {
        var out: [String] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                out.append(path)
                continue
            }
            guard let dir = opendir(path) else {
                throw StackerError.unreadable(path: path, reason: "cannot list the \(role) folder: \(String(cString: strerror(errno)))")
            }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if !name.hasPrefix("."), ImageFormat.fromExtension(of: name) != nil { names.append(name) }
            }
            closedir(dir)
            guard !names.isEmpty else {
                throw StackerError.invalidInput(path: path, reason: "the \(role) folder holds no image file")
            }
            let folder = path.hasSuffix("/") ? path : path + "/"
            out += names.sorted().map { folder + $0 }
        }
        return out
    }
}
