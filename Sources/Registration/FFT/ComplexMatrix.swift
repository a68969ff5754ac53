internal import CBLAS

/// The one place that talks to OpenBLAS: complex single-precision matrix
/// products on interleaved `(re, im)` float arrays, row-major.
enum ComplexMatrix {
    /// `c` (m × n) ← `a` (m × k) · `b` (k × n), all row-major, interleaved complex.
    ///
    /// The corresponding C function is `cblas_cgemm`.
    static func multiply(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into c: UnsafeMutablePointer<Float>,
                         m: Int, n: Int, k: Int) {
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
