#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The bytes behind a `FrameStore`: zero-filled anonymous memory, or a shared
/// memory map of a temporary file. Every C call the frame store makes lives
/// in this file.
///
/// The temporary file is created with `mkstemp` in the chosen folder,
/// registered with `TemporaryFiles` (so SIGINT / SIGTERM remove it), given
/// its size with `posix_fallocate` (so a full disk fails here instead of
/// raising SIGBUS on a later write; `ftruncate` where the file system cannot
/// allocate), mapped with `MAP_SHARED`, and then at once unlinked: the
/// mapping and the open descriptor keep the data alive, and no file is left
/// behind even after a crash or SIGKILL. `deinit` unmaps and closes.
///
/// Writers put their rows into a mapped file with `pwrite` (`write(_:count:at:)`),
/// not through the mapping, and readers read the mapping: both see the one
/// page cache. A spilled one-frame store, of which a run may hold
/// thousands, closes its descriptor once its frame is written
/// (`closeDescriptor`). Written pages are then never mapped into the process, so
/// they do not count as its resident memory (a 200 × 12 MP median past
/// the default limit: 210 MB peak against 1.2 GB when rows were written
/// through the mapping, the same CPU time; docs/performance.md, issue 31).
///
/// A mapped file's pages count as this process's resident memory while
/// mapped in, so without care a store past the memory limit ended up
/// wholly resident anyway. Writers report what they wrote
/// (`noteWritten`), and once `residentBudget` bytes have been written
/// since the last drop, the whole mapping's pages are dropped from the
/// process (`MADV_DONTNEED`: for a shared file mapping the data stays in
/// the file and reads back from it); readers drop the ranges they are done
/// with (`dropResident`). Dropping is safe while other threads write: a
/// shared mapping's dirty pages stay in the file.
final class FrameStoreBuffer: @unchecked Sendable {
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
    /// Bytes a mapped file may have written into it before its pages are
    /// dropped from the process (0 in memory: never dropped).
    let residentBudget: Int
    /// The least resident budget a mapped store gets (16 MiB).
    static let residentBudgetFloor = 16 << 20
    /// Bytes written since the last drop.
    private let written = Atomic<Int>(0)
    /// The mapped file's descriptor (its path already unlinked), -1 in
    /// memory or once closed (then writes go through the mapping).
    private var descriptor: Int32
    /// Whether `write(_:count:at:)` puts bytes in the file with `pwrite`
    /// (else writers may store straight into `base`).
    var writesByDescriptor: Bool { descriptor >= 0 }

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
        residentBudget = 0
        descriptor = -1
    }

    /// A memory-mapped temporary file of `byteCount` zero bytes in
    /// `directory`, of whose pages about `residentBudget` bytes' worth stay
    /// mapped in while it is written; its descriptor stays open for
    /// `write(_:count:at:)` until `closeDescriptor`.
    init(mappedBytes byteCount: Int, directory: FilePath, residentBudget: Int) throws {
        let folder: FilePath = directory.isEmpty ? "." : directory
        let dir = folder.description
        guard let (fd, path) = AtomicFile.makeTemporary(folder.appending(".stack-frames-XXXXXX")) else {
            throw StackerError.writeFailed(
                path: dir, reason: "cannot create the frame store's temporary file: \(Self.errnoText(errno))")
        }
        TemporaryFiles.shared.register(path)
        var keepsDescriptor = false
        defer {
            // Unlinked in every outcome: on success the mapping and the descriptor keep the data.
            _ = path.withCString { unlink($0) }
            TemporaryFiles.shared.unregister(path)
            if !keepsDescriptor { close(fd) }
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
        self.residentBudget = residentBudget
        descriptor = fd
        keepsDescriptor = true
    }

    deinit {
        if anonymous == nil { munmap(base, max(byteCount, 1)) }
        closeDescriptor()
    }

    /// Closes a mapped file's descriptor (the mapping keeps the data); later
    /// writes go through the mapping. Not concurrently with `write`.
    func closeDescriptor() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    /// Copies `count` bytes from `source` to `offset ..< offset + count`:
    /// with `pwrite` into a mapped file (no page of the mapping is touched),
    /// else a copy in memory. Callable from several threads for disjoint
    /// ranges. Should `pwrite` fail (an I/O error), the rest is copied
    /// through the mapping, as every write was before.
    func write(_ source: UnsafeRawPointer, count: Int, at offset: Int) {
        precondition(offset >= 0 && count >= 0 && offset + count <= byteCount,
                     "FrameStoreBuffer.write: \(count) bytes at \(offset) outside \(byteCount)")
        var done = 0
        if descriptor >= 0 {
            while done < count {
                let n = pwrite(descriptor, source + done, count - done, off_t(offset + done))
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { break }
            }
        }
        if done < count { (base + offset + done).copyMemory(from: source + done, byteCount: count - done) }
    }

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

    /// Counts `bytes` written into a mapped file, and drops the whole
    /// mapping's pages from the process once `residentBudget` bytes have
    /// been written since the last drop. Nothing in memory.
    func noteWritten(_ bytes: Int) {
        guard isMapped else { return }
        let total = written.wrappingAdd(bytes, ordering: .relaxed).newValue
        if total >= residentBudget, written.compareExchange(expected: total, desired: 0,
                                                            ordering: .relaxed).exchanged {
            dropResident(from: 0, count: byteCount)
        }
    }

    /// Drops the whole pages within `offset ..< offset + count` of a mapped
    /// file from the process; the data stays in the file. Nothing in memory.
    func dropResident(from offset: Int, count: Int) {
        guard isMapped else { return }
        let page = Platform.pageSize
        let start = (offset + page - 1) / page * page
        let end = min(offset + count, byteCount) / page * page
        if end > start { _ = madvise(base + start, end - start, MADV_DONTNEED) }
    }

    /// The message for an errno value.
    private static func errnoText(_ code: Int32) -> String {
        guard let s = strerror(code) else { return "error \(code)" }
        return String(cString: s)
    }
}
