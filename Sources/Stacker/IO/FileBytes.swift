#if canImport(Glibc)
import Glibc
#endif

/// Reads whole files (or their first bytes) with POSIX calls, read-only.
enum FileBytes {
    /// The bytes of the regular file at `path` (or the one a symbolic link
    /// there leads to), at most `limit` of them.
    ///
    /// Anything else is refused before it is opened for reading, naming
    /// what it is: a named pipe would block `open` until a writer came, and a
    /// device may never end. The file is opened non-blocking, so one swapped
    /// in after that check is refused by the same test on the open file
    /// instead of hanging.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func read(_ path: FilePath, limit: Int = Int.max) throws -> [UInt8] {
        let (fd, info) = try openRegular(path)
        defer { close(fd) }
        let want = min(Int(info.st_size), limit)
        var bytes = [UInt8](repeating: 0, count: want)
        var got = 0
        var failure: Int32 = 0
        bytes.withUnsafeMutableBytes { buf in
            while got < want {
                let n = Glibc.read(fd, buf.baseAddress! + got, want - got)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { return }  // the file shrank while we read it
                got += n
            }
        }
        if failure != 0 {
            throw StackerError.unreadable(path: path.description, reason: "read failed: \(String(cString: strerror(failure)))")
        }
        bytes.removeLast(want - got)
        return bytes
    }

    /// The size in bytes of the regular file at `path`; anything else is
    /// refused as `read` refuses it.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func size(_ path: FilePath) throws -> Int {
        let (fd, info) = try openRegular(path)
        close(fd)
        return Int(info.st_size)
    }

    /// The regular file at `path` opened once for reads at given offsets
    /// (`pread`), so a frame of a video is read without reading what
    /// comes before it. `body` gets the file's size and a reader of
    /// `count` bytes at `offset`, which throws if the file has fewer.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func withPositionalReads<T>(_ path: FilePath,
                                       _ body: (_ size: Int, _ read: (_ offset: Int, _ count: Int) throws -> [UInt8]) throws -> T) throws -> T {
        let (fd, info) = try openRegular(path)
        defer { close(fd) }
        let size = Int(info.st_size)
        return try body(size) { offset, count in
            guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
                throw StackerError.unreadable(path: path.description, reason: "the file ends before byte \(offset) + \(count)")
            }
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            var failure: Int32 = 0
            bytes.withUnsafeMutableBytes { buf in
                while got < count {
                    let n = pread(fd, buf.baseAddress! + got, count - got, off_t(offset + got))
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    if n == 0 { return }
                    got += n
                }
            }
            if failure != 0 {
                throw StackerError.unreadable(path: path.description, reason: "read failed: \(String(cString: strerror(failure)))")
            }
            guard got == count else {
                throw StackerError.unreadable(path: path.description, reason: "the file shrank while it was read")
            }
            return bytes
        }
    }

    /// The regular file at `path` opened read-only and non-blocking, with
    /// its `fstat`; the caller closes it. Anything but a regular file is
    /// refused before `open` (see `read`) and again on the open file.
    private static func openRegular(_ path: FilePath) throws -> (fd: Int32, info: stat) {
        var info = stat()
        guard path.withCString({ stat($0, &info) }) == 0 else {
            throw StackerError.unreadable(path: path.description, reason: "cannot open the file: \(errnoText())")
        }
        try refuseIrregular(info, path: path)
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else {
            throw StackerError.unreadable(path: path.description, reason: "cannot open the file: \(errnoText())")
        }
        guard fstat(fd, &info) == 0 else {
            let reason = "cannot inspect the file: \(errnoText())"
            close(fd)
            throw StackerError.unreadable(path: path.description, reason: reason)
        }
        do { try refuseIrregular(info, path: path) } catch { close(fd); throw error }
        return (fd, info)
    }

    /// Throws unless `info` describes a regular file; the error says what it
    /// is ("is a named pipe (FIFO), not a regular file"; a folder: "is a
    /// folder, not an image file").
    private static func refuseIrregular(_ info: stat, path: FilePath) throws {
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw StackerError.unreadable(path: path.description, reason: "is a folder, not an image file")
        case S_IFIFO: kind = "a named pipe (FIFO)"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "a special file"
        }
        throw StackerError.unreadable(path: path.description, reason: "is \(kind), not a regular file")
    }
}
