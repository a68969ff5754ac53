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
    public static func write(_ bytes: [UInt8], to path: some FilePathConvertible) throws {
        let path = path.filePath
        let dir = path.folder
        let hidden = FilePath(bytes: Array(".".utf8) + path.lastComponent.bytes + Array(".stack-XXXXXX".utf8))
        guard let (fd, tmp) = makeTemporary(dir.appending(hidden)) else {
            throw StackerError.writeFailed(path: path.description, reason: "cannot create a temporary file in \(dir): \(errnoText())")
        }
        TemporaryFiles.shared.register(tmp)
        defer { TemporaryFiles.shared.unregister(tmp) }
        var ok = false
        defer {
            if !ok { _ = tmp.withCString { unlink($0) } }
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
                throw StackerError.writeFailed(path: path.description, reason: "write failed: \(e)")
            }
            written += n
        }
        // New files get the usual permissions (0666 less umask), not mkstemp's 0600.
        fchmod(fd, 0o666 & ~processUmask)
        if fsync(fd) != 0 {
            let e = errnoText()
            close(fd)
            throw StackerError.writeFailed(path: path.description, reason: "flush failed: \(e)")
        }
        close(fd)
        guard tmp.withCString({ t in path.withCString { rename(t, $0) } }) == 0 else {
            throw StackerError.writeFailed(path: path.description, reason: "cannot rename the temporary file into place: \(errnoText())")
        }
        ok = true
        // Make the rename itself durable; failure here loses nothing already written.
        let dirFD = dir.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
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
    public static func folder(of path: some FilePathConvertible) -> FilePath { path.filePath.folder }

    /// Creates and opens a new file from `template`, whose name ends in
    /// `XXXXXX` (`mkstemp`); its descriptor and actual name, or nil with
    /// `errno` set.
    static func makeTemporary(_ template: FilePath) -> (fd: Int32, path: FilePath)? {
        var name = template.bytes.map { CChar(bitPattern: $0) } + [0]
        let fd = name.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        return (fd, FilePath(bytes: name.map { UInt8(bitPattern: $0) }))
    }
}

/// The current `errno` as text.
func errnoText() -> String { String(cString: strerror(errno)) }
