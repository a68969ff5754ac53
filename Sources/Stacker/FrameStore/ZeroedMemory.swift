#if canImport(Glibc)
import Glibc
#endif

/// Zero-filled anonymous memory with every page mapped before it is used,
/// by several threads at once: for the frame store and the average's
/// accumulators, whose every page is written.
///
/// `MAP_POPULATE` maps every page on one thread while the other cores wait;
/// `MADV_POPULATE_WRITE` on `threads` slices at once shares that work, and
/// faulting the pages in from the workers as they write costs more than
/// either (docs/performance.md).
/// Where the kernel lacks `MADV_POPULATE_WRITE` (before Linux 5.14) each
/// slice is faulted in by writing a zero to each of its pages.
final class ZeroedMemory: @unchecked Sendable {
    /// Start of the bytes.
    let base: UnsafeMutableRawPointer
    /// Size in bytes (at least 1).
    let byteCount: Int

    /// `byteCount` zero bytes, populated on `threads` threads.
    /// - Throws: `StackerError.stackingFailed` when the memory cannot be mapped.
    init(byteCount: Int, threads: Int = Platform.processorCount) throws {
        let size = max(byteCount, 1)
        let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let p, p != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw StackerError.stackingFailed(path: "", reason: "cannot allocate \(byteCount) bytes")
        }
        base = p
        self.byteCount = size
        let page = Platform.pageSize
        let slices = max(1, min(threads, size / (16 << 20)))
        let slice = (size / slices + page - 1) / page * page
        let start = UnsafeSendableRaw(pointer: p)
        parallelForEach(slices, threads: slices) { i in
            let from = i * slice, to = min(size, from + slice)
            guard from < to else { return }
            let first = start.pointer + from
            if !Platform.populate(first, byteCount: to - from) {
                var offset = 0
                while offset < to - from {
                    first.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
                    offset += page
                }
            }
        }
    }

    deinit { munmap(base, byteCount) }
}

/// A raw pointer handed to the populating threads, which touch disjoint slices.
private struct UnsafeSendableRaw: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
