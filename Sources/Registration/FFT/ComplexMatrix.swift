internal import CBLAS
#if canImport(Glibc)
import Glibc
#endif

/// The one place that talks to OpenBLAS: complex single-precision matrix
/// products on interleaved `(re, im)` float arrays, row-major.
enum ComplexMatrix {
    /// `c` (m × n) ← `a` (m × k) · `b` (k × n), all row-major, interleaved complex.
    ///
    /// The corresponding C function is `cblas_cgemm`.
    static func multiply(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into c: UnsafeMutablePointer<Float>,
                         m: Int, n: Int, k: Int) {
        BLASThreads.configure()
        var alpha: (Float, Float) = (1, 0)
        var beta: (Float, Float) = (0, 0)
        withUnsafePointer(to: &alpha) { al in
            withUnsafePointer(to: &beta) { be in
                cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                            blasint(m), blasint(n), blasint(k),
                            UnsafeRawPointer(al), UnsafeRawPointer(a), blasint(k),
                            UnsafeRawPointer(b), blasint(n),
                            UnsafeRawPointer(be), UnsafeMutableRawPointer(c), blasint(n))
            }
        }
    }
}

/// OpenBLAS's own threading, set once per process.
///
/// Our matrices are small and we already run one registration per core, so
/// OpenBLAS's worker threads could only compete with ours, spinning in
/// `sched_yield` between calls. Unless the user set `OPENBLAS_NUM_THREADS`,
/// OpenBLAS is limited to the calling thread, and the pool it started when
/// it was loaded is stopped, so no idle thread spins on a core the first
/// decodes need.
public enum BLASThreads {
    private static let once: Void = {
        if getenv("OPENBLAS_NUM_THREADS") == nil {
            openblas_set_num_threads(1)
            _ = blas_thread_shutdown_()
        }
    }()

    /// Applies the policy (cheap after the first call). Executables call it
    /// first thing; the library calls it before its first BLAS call.
    ///
    /// The corresponding C functions are `openblas_set_num_threads` and
    /// `blas_thread_shutdown_`.
    public static func configure() { once }
}
