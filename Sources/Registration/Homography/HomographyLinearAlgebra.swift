/// Small dense linear algebra for the homography code (LAPACK's SVD through
/// `OpenBLAS`, and a Cholesky solve).
enum HomographyLinearAlgebra {
    /// The right singular vector of the smallest singular value of the
    /// row-major `rows` × `cols` matrix `a` (the least-squares null vector),
    /// plus the two smallest singular values (ascending) so callers can
    /// detect rank deficiency. Rows are zero-padded to at least `cols`, so
    /// under-determined systems work. Nil when LAPACK reports a failure.
    ///
    /// The corresponding LAPACK routine is `dgesvd_`.
    static func nullVector(_ a: [Double], rows: Int, cols: Int) -> (vector: [Double], smallest: Double, secondSmallest: Double)? {
        guard rows > 0, cols > 1, a.count == rows * cols else { return nil }
        let m = max(rows, cols), n = cols
        // Column-major copy, zero rows appended.
        var colMajor = [Double](repeating: 0, count: m * n)
        for r in 0..<rows { for c in 0..<cols { colMajor[c * m + r] = a[r * cols + c] } }
        guard let (s, vt) = OpenBLAS.singularValueDecomposition(&colMajor, rows: m, cols: n) else { return nil }
        // VT is column-major n × n; its last row is the wanted vector.
        let v = (0..<n).map { vt[$0 * n + (n - 1)] }
        return (v, s[n - 1], s[n - 2])
    }

    /// Solves the symmetric positive-definite system `a · x = b` (`a`
    /// row-major `n` × `n`) by Cholesky factorisation in `Double`. A ridge of
    /// 1e-12 · (mean diagonal) keeps a barely definite system solvable.
    /// Nil when `a` is not positive definite or the result is not finite.
    static func solveSymmetric(_ a: [Double], _ b: [Double], n: Int) -> [Double]? {
        guard n > 0, a.count == n * n, b.count == n else { return nil }
        var trace = 0.0
        for i in 0..<n { trace += a[i * n + i] }
        guard trace.isFinite, trace > 0 else { return nil }
        let ridge = 1e-12 * trace / Double(n)
        var l = [Double](repeating: 0, count: n * n)
        for j in 0..<n {
            var d = a[j * n + j] + ridge
            for k in 0..<j { d -= l[j * n + k] * l[j * n + k] }
            guard d > 0, d.isFinite else { return nil }
            let ljj = d.squareRoot()
            l[j * n + j] = ljj
            for i in (j + 1)..<max(j + 1, n) {
                var s = a[i * n + j]
                for k in 0..<j { s -= l[i * n + k] * l[j * n + k] }
                l[i * n + j] = s / ljj
            }
        }
        var y = b
        for i in 0..<n {
            var s = y[i]
            for k in 0..<i { s -= l[i * n + k] * y[k] }
            y[i] = s / l[i * n + i]
        }
        var x = y
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = x[i]
            for k in (i + 1)..<max(i + 1, n) { s -= l[k * n + i] * x[k] }
            x[i] = s / l[i * n + i]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}

// References
// - E. Anderson et al., LAPACK Users' Guide, 3rd ed., SIAM, 1999 (dgesvd).
// - G. H. Golub and C. F. Van Loan, Matrix Computations, 4th ed., Johns
//   Hopkins University Press, 2013, §4.2 (Cholesky factorisation).
