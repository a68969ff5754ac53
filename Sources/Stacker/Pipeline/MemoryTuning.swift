internal import CMalloc

/// Process-wide allocator settings for whole-burst work.
public enum MemoryTuning {
    /// Serves large buffers (a 12 MP plane is 48 MB) from the heap and keeps
    /// freed memory for reuse, instead of glibc's default of a fresh `mmap`
    /// per buffer above 32 MB, which pays a page fault per 4 KiB page on
    /// every new frame. Measured on a 12 MP RGB Lanczos warp: 0.71 s → 0.13 s;
    /// luma extraction 62 → 15 ms. Call once at program start (the `stack`
    /// and `stack-bench` executables do); libraries and tests need not.
    ///
    /// The corresponding C function is `mallopt` (M_MMAP_MAX = 0, M_TRIM_THRESHOLD = max).
    public static func preferHeapForLargeBuffers() {
        _ = mallopt(M_MMAP_MAX, 0)
        _ = mallopt(M_TRIM_THRESHOLD, Int32.max)
    }
}
