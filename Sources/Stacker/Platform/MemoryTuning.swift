internal import CMalloc

/// Process-wide allocator settings for whole-burst work.
public enum MemoryTuning {
    /// Serves large buffers (a 12 MP plane is 48 MB) from one heap that
    /// keeps freed memory for reuse, instead of glibc's default of a fresh
    /// `mmap` per buffer above 32 MB and an arena per thread (whose heaps
    /// are at most 64 MB), which make every new frame-sized buffer pay a
    /// page fault per 4 KiB page. Call once at program start (the `stack`
    /// and `stack-bench` executables do); libraries and tests need not.
    /// `mallopt` with M_ARENA_MAX = 1, M_MMAP_MAX = 0 and M_TRIM_THRESHOLD
    /// = max; docs/performance.md has the measurements.
    public static func preferHeapForLargeBuffers() {
        _ = mallopt(M_ARENA_MAX, 1)
        _ = mallopt(M_MMAP_MAX, 0)
        _ = mallopt(M_TRIM_THRESHOLD, Int32.max)
    }
}
