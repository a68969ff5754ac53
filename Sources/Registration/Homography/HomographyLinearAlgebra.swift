internal import CBLAS

/// Small dense linear algebra for the homography code: the only file of
/// `Homography/` that touches LAPACK. No C type leaves it.
enum HomographyLinearAlgebra {
    /// The right singular vector of the smallest singular value of the
    /// row-major `rows` × `cols` matrix `a` (the least-squares null vector),
    /// plus the two smallest singular values (ascending) so callers can
    /// detect rank deficiency. Rows are zero-padded to at least `cols`, so
    /// under-determined systems work. Nil when LAPACK reports a failure.
    ///
    /// The corresponding LAPACK routine is `dgesvd_`.
    static func nullVector(_ a: [Double], rows: Int, cols: Int) -> (vector: [Double], smallest: Double, secondSmallest: Double)? {
        BLASThreads.configure()
        guard rows > 0, cols > 1, a.count == rows * cols else { return nil }
        let m = max(rows, cols), n = cols
        // Column-major copy, zero rows appended.
        var colMajor = [Double](repeating: 0, count: m * n)
        for r in 0..<rows { for c in 0..<cols { colMajor[c * m + r] = a[r * cols + c] } }
        var s = [Double](repeating: 0, count: n)
        var vt = [Double](repeating: 0, count: n * n)
        var u = [Double](repeating: 0, count: 1)
        var jobu = CChar(UInt8(ascii: "N")), jobvt = CChar(UInt8(ascii: "A"))
        var mm = Int32(m), nn = Int32(n), lda = Int32(m), ldu = Int32(1), ldvt = Int32(n)
        var info: Int32 = 0
        // Workspace query, then the decomposition.
        var lwork: Int32 = -1
        var query = [Double](repeating: 0, count: 1)
        dgesvd_(&jobu, &jobvt, &mm, &nn, &colMajor, &lda, &s, &u, &ldu, &vt, &ldvt, &query, &lwork, &info)
        guard info == 0 else { return nil }
        lwork = Int32(max(1, Int(query[0])))
        var work = [Double](repeating: 0, count: Int(lwork))
        dgesvd_(&jobu, &jobvt, &mm, &nn, &colMajor, &lda, &s, &u, &ldu, &vt, &ldvt, &work, &lwork, &info)
        guard info == 0 else { return nil }
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
