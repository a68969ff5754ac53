#if canImport(Glibc)
import Glibc
#endif

/// Writes whole files atomically: the bytes go to a temporary file in the
/// target folder (`.<name>.stack-XXXXXX`), are flushed to disk, then the
/// temporary is renamed over the target. A failure at any point removes the
/// temporary and leaves any existing file of that name untouched.
public enum AtomicFile: Sendable {
    /// Writes `bytes` to `path` atomically.
    /// - Throws: `StackerError.writeFailed` naming `path`.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let (dir, name) = split(path)
        var template = Array("\(dir)/.\(name).stack-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw StackerError.writeFailed(path: path, reason: "cannot create a temporary file in \(dir): \(errnoText())")
        }
        let tmp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        TemporaryFiles.shared.register(tmp)
        defer { TemporaryFiles.shared.unregister(tmp) }
        var ok = false
        defer {
            if !ok { unlink(tmp) }
        }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buf in
                Glibc.write(fd, buf.baseAddress! + written, buf.count - written)
            }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                let e = errnoText()
                close(fd)
                throw StackerError.writeFailed(path: path, reason: "write failed: \(e)")
            }
            written += n
        }
        // New files get the usual permissions (0666 less umask), not mkstemp's 0600.
        fchmod(fd, 0o666 & ~processUmask)
        if fsync(fd) != 0 {
            let e = errnoText()
            close(fd)
            throw StackerError.writeFailed(path: path, reason: "flush failed: \(e)")
        }
        close(fd)
        guard rename(tmp, path) == 0 else {
            throw StackerError.writeFailed(path: path, reason: "cannot rename the temporary file into place: \(errnoText())")
        }
        ok = true
        // Make the rename itself durable; failure here loses nothing already written.
        let dirFD = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            close(dirFD)
        }
    }

    /// The process umask, read once: `umask` can only be read by setting it,
    /// and doing that on every write would race with files other threads create.
    private static let processUmask: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }()

    /// The folder that holds `path` (`"."` for a bare name); temporary files go there.
    public static func folder(of path: String) -> String { split(path).dir }

    /// Splits a path into its folder ("." when none) and last component.
    static func split(_ path: String) -> (dir: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let dir = String(path[..<slash])
        return (dir.isEmpty ? "/" : dir, String(path[path.index(after: slash)...]))
    }
}

/// The current `errno` as text.
func errnoText() -> String { String(cString: strerror(errno)) }
