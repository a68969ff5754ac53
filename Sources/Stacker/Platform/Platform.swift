#if canImport(Glibc)
import Glibc
#endif

/// The operating system as the library uses it, without Foundation: the
/// core count, the page size, threads and page population. Every Glibc call
/// of the library's process-level helpers goes through here.
public enum Platform {
    /// Online processors as `sysconf` reports them (at least 1).
    public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// The size of a memory page in bytes.
    package static var pageSize: Int { Int(sysconf(Int32(_SC_PAGESIZE))) }

    /// The process's resident memory in bytes now (the second field of
    /// `/proc/self/statm`, in pages), or nil where that file cannot be read.
    package static func residentBytes() -> Int? {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = buffer[0..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2 else { return nil }
        var pages = 0
        for digit in fields[1] {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            pages = pages * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return pages * pageSize
    }

    /// Maps in, in one `madvise(MADV_POPULATE_WRITE)` call, the pages that
    /// lie wholly within `byteCount` bytes at `start`, before a decoder
    /// writes them, so fresh pages cost the kernel's clearing alone rather
    /// than a fault each as they are first written. Pages already mapped are
    /// left as they are.
    /// - Returns: false where the kernel lacks it (before Linux 5.14); the
    ///   pages are then faulted in as they are written.
    @discardableResult
    package static func populate(_ start: UnsafeMutableRawPointer, byteCount: Int) -> Bool {
        let page = pageSize
        let first = (Int(bitPattern: start) + page - 1) / page * page
        let end = (Int(bitPattern: start) + byteCount) / page * page
        guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return true }
        // MADV_POPULATE_WRITE is 23 in the Linux UAPI; Glibc's module does not name it.
        return madvise(aligned, end - first, 23) == 0
    }
}

/// Starts `body` on a detached thread of its own with an 8 MiB stack: the
/// pipeline's workers and `EarlyDecode`. A POSIX thread rather than
/// Foundation's `Thread`, so the command-line tool does not load Foundation.
func startWorkerThread(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, 8 << 20)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { raw in
        let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
        body.run()
        return nil
    }, box)
    // Without a thread the work cannot be done at all, as when memory runs out.
    precondition(rc == 0, "cannot start a worker thread (pthread_create: \(rc))")
}

/// The closure handed to a new thread.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
