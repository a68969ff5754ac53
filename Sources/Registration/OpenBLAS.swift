internal import CBLAS
#if canImport(Glibc)
import Glibc
#endif

/// The one file that imports OpenBLAS (CBLAS, and the LAPACK routines the
/// library exports, declared in `CBLAS/shim.h`). Each routine the module
/// calls is wrapped here once, on Swift arrays and pointers; no C type
/// leaves the file. Every wrapper applies `BLASThreads` first.
enum OpenBLAS {
    /// `c` (m × n) ← `a` (m × k) · `b` (k × n), all row-major, interleaved
    /// complex single precision.
    ///
    /// The corresponding C function is `cblas_cgemm`.
    static func complexProduct(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into c: UnsafeMutablePointer<Float>,
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

    /// The singular values (descending, `min(rows, cols)` of them) and the
    /// column-major `cols` × `cols` matrix Vᵀ of the column-major `rows` ×
    /// `cols` matrix `a`, which it overwrites; U is not formed. Nil when
    /// LAPACK reports a failure. The workspace is sized by LAPACK's own query.
    ///
    /// The corresponding LAPACK routine is `dgesvd_`.
    static func singularValueDecomposition(_ a: inout [Double], rows: Int, cols: Int)
        -> (values: [Double], vt: [Double])? {
        BLASThreads.configure()
        precondition(rows > 0 && cols > 0 && a.count == rows * cols, "dgesvd: \(a.count) values for \(rows)×\(cols)")
        var s = [Double](repeating: 0, count: min(rows, cols))
        var vt = [Double](repeating: 0, count: cols * cols)
        var u = [Double](repeating: 0, count: 1)
        var jobu = CChar(UInt8(ascii: "N")), jobvt = CChar(UInt8(ascii: "A"))
        var mm = Int32(rows), nn = Int32(cols), lda = Int32(rows), ldu = Int32(1), ldvt = Int32(cols)
        var info: Int32 = 0
        // Workspace query, then the decomposition.
        var lwork: Int32 = -1
        var query = [Double](repeating: 0, count: 1)
        dgesvd_(&jobu, &jobvt, &mm, &nn, &a, &lda, &s, &u, &ldu, &vt, &ldvt, &query, &lwork, &info)
        guard info == 0 else { return nil }
        lwork = Int32(max(1, Int(query[0])))
        var work = [Double](repeating: 0, count: Int(lwork))
        dgesvd_(&jobu, &jobvt, &mm, &nn, &a, &lda, &s, &u, &ldu, &vt, &ldvt, &work, &lwork, &info)
        guard info == 0 else { return nil }
        return (s, vt)
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
