#if canImport(Glibc)
import Glibc
#endif

/// The bytes behind a `FrameStore`: zero-filled anonymous memory, or a shared
/// memory map of a temporary file. Every C call the frame store makes lives
/// in this file.
///
/// The temporary file is created with `mkstemp` in the chosen folder,
/// registered with `TemporaryFiles` (so SIGINT / SIGTERM remove it), given
/// its size with `posix_fallocate` (so a full disk fails here instead of
/// raising SIGBUS on a later write; `ftruncate` where the file system cannot
/// allocate), mapped with `MAP_SHARED`, and then at once closed and unlinked:
/// the mapping keeps the data alive, and no file is left behind even after a
/// crash or SIGKILL. `deinit` unmaps.
final class FrameStoreBuffer {
    /// Start of the zero-filled bytes.
    let base: UnsafeMutableRawPointer
    /// Size in bytes.
    let byteCount: Int
    /// Whether the bytes are a memory-mapped temporary file.
    let isMapped: Bool
    /// The temporary file's path (already unlinked), `nil` in memory.
    let temporaryPath: FilePath?
    /// The memory behind `base` when it is not a mapped file (it unmaps itself).
    private let anonymous: ZeroedMemory?

    /// Zero-filled anonymous memory of `byteCount` bytes, its pages mapped
    /// at once by several threads (`ZeroedMemory`): every page of the store
    /// is written, and faulting 1.4 GB in 4 KiB at a time from the workers
    /// cost more than the kernel zeroing it up front (docs/performance.md).
    init(heapBytes byteCount: Int) throws {
        let memory: ZeroedMemory
        do {
            memory = try ZeroedMemory(byteCount: byteCount)
        } catch {
            throw StackerError.stackingFailed(
                path: "", reason: "cannot allocate \(byteCount) bytes for the frame store")
        }
        anonymous = memory
        base = memory.base
        self.byteCount = byteCount
        isMapped = false
        temporaryPath = nil
    }

    /// A memory-mapped temporary file of `byteCount` zero bytes in `directory`.
    init(mappedBytes byteCount: Int, directory: FilePath) throws {
        let folder: FilePath = directory.isEmpty ? "." : directory
        let dir = folder.description
        guard let (fd, path) = AtomicFile.makeTemporary(folder.appending(".stack-frames-XXXXXX")) else {
            throw StackerError.writeFailed(
                path: dir, reason: "cannot create the frame store's temporary file: \(Self.errnoText(errno))")
        }
        TemporaryFiles.shared.register(path)
        defer {
            // Unlinked in every outcome: on success the mapping keeps the data.
            _ = path.withCString { unlink($0) }
            TemporaryFiles.shared.unregister(path)
            close(fd)
        }
        let size = off_t(max(byteCount, 1))
        let rc = posix_fallocate(fd, 0, size)
        if rc != 0 {
            if rc == ENOSPC || rc == EFBIG {
                throw StackerError.writeFailed(
                    path: dir, reason: "not enough space for the frame store's \(byteCount)-byte temporary file: \(Self.errnoText(rc))")
            }
            // The file system cannot preallocate (EOPNOTSUPP, EINVAL): size it sparsely.
            guard ftruncate(fd, size) == 0 else {
                throw StackerError.writeFailed(
                    path: dir, reason: "cannot size the frame store's temporary file: \(Self.errnoText(errno))")
            }
        }
        let p = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let p, p != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw StackerError.writeFailed(
                path: dir, reason: "cannot map the frame store's temporary file: \(Self.errnoText(errno))")
        }
        base = p
        self.byteCount = byteCount
        isMapped = true
        anonymous = nil
        temporaryPath = path
    }

    deinit { if anonymous == nil { munmap(base, max(byteCount, 1)) } }

    /// Drops the contents: anonymous pages go back to the system
    /// (`MADV_DONTNEED`; they read as zero after). A mapped file's bytes
    /// from `spansFrom` on (the coverage runs) are zeroed, so its samples
    /// count as covering nothing, and its pages leave this process.
    func release(spansFrom offset: Int) {
        if isMapped {
            (base + offset).initializeMemory(as: UInt8.self, repeating: 0, count: max(0, byteCount - offset))
        }
        _ = madvise(base, max(byteCount, 1), MADV_DONTNEED)
    }

    /// The message for an errno value.
    private static func errnoText(_ code: Int32) -> String {
        guard let s = strerror(code) else { return "error \(code)" }
        return String(cString: s)
    }
}
