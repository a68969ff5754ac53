#if canImport(Glibc)
import Glibc
#endif

/// Reads whole files (or their first bytes) with POSIX calls, read-only.
enum FileBytes {
    /// The most bytes read from a pipe (a regular file's size is known up front).
    static let pipeLimit = 1 << 30

    /// The bytes of the file at `path`, at most `limit` of them.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func read(_ path: FilePath, limit: Int = Int.max) throws -> [UInt8] {
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else {
            throw StackerError.unreadable(path: path.description, reason: "cannot open the file: \(errnoText())")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw StackerError.unreadable(path: path.description, reason: "cannot inspect the file: \(errnoText())")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw StackerError.unreadable(path: path.description, reason: "is a folder, not an image file")
        }
        // Regular files: read exactly their size. Pipes: grow as we go, up to
        // `pipeLimit`. Devices and sockets (/dev/zero, …) are refused.
        let regular = (info.st_mode & S_IFMT) == S_IFREG
        guard regular || (info.st_mode & S_IFMT) == S_IFIFO else {
            throw StackerError.unreadable(path: path.description, reason: "is not a regular file")
        }
        let limit = regular ? limit : min(limit, pipeLimit + 1)
        var capacity = regular ? min(Int(info.st_size), limit) : min(1 << 20, limit)
        var bytes = [UInt8]()
        while true {
            let start = bytes.count
            let want = capacity - start
            if want <= 0 {
                if regular || bytes.count >= limit { break }
                capacity = min(capacity * 2, limit)
                continue
            }
            bytes.reserveCapacity(capacity)
            var got = 0
            var failure: Int32 = 0
            bytes.append(contentsOf: repeatElement(0, count: want))
            bytes.withUnsafeMutableBytes { buf in
                while got < want {
                    let n = Glibc.read(fd, buf.baseAddress! + start + got, want - got)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    if n == 0 { return }  // end of file
                    got += n
                }
            }
            bytes.removeLast(want - got)
            if failure != 0 {
                throw StackerError.unreadable(path: path.description, reason: "read failed: \(String(cString: strerror(failure)))")
            }
            if got < want { break }  // end of file came first
        }
        if !regular && bytes.count > pipeLimit {
            throw StackerError.unreadable(path: path.description, reason: "more than \(pipeLimit >> 20) MiB came through the pipe")
        }
        return bytes
    }
}
