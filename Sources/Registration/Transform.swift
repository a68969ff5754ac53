/// A planar projective transform mapping **frame** coordinates to
/// **reference** coordinates: `(xr, yr, w)ᵀ = M · (xf, yf, 1)ᵀ`, then divide by `w`.
///
/// For a pure translation `(dx, dy)`, the pixel at `(x, y)` in the frame
/// shows what the reference shows at `(x + dx, y + dy)`; the matrix is
/// `[[1, 0, dx], [0, 1, dy], [0, 0, 1]]`.
public struct Transform: Sendable, Equatable, CustomStringConvertible {
    /// Row-major 3×3 matrix (9 elements).
    public var matrix: [Double]

    /// A transform from a row-major 3×3 matrix.
    public init(matrix: [Double]) {
        precondition(matrix.count == 9, "Transform needs 9 matrix elements, got \(matrix.count)")
        self.matrix = matrix
    }

    /// The identity transform.
    public static let identity = Transform(matrix: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// A pure translation: frame `(x, y)` maps to reference `(x + dx, y + dy)`.
    public static func translation(dx: Double, dy: Double) -> Transform {
        Transform(matrix: [1, 0, dx, 0, 1, dy, 0, 0, 1])
    }

    /// The translation part `(m02, m12)` (exact `(dx, dy)` for a translation).
    public var translation: (dx: Double, dy: Double) { (matrix[2], matrix[5]) }

    /// True when the matrix is a pure translation.
    public var isTranslation: Bool {
        matrix[0] == 1 && matrix[1] == 0 && matrix[3] == 0 && matrix[4] == 1
            && matrix[6] == 0 && matrix[7] == 0 && matrix[8] == 1
    }

    /// Maps a frame point to reference coordinates.
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        let m = matrix
        let w = m[6] * x + m[7] * y + m[8]
        return ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w)
    }

    /// The matrix product `self · other` (apply `other` first, then `self`).
    public func concatenating(_ other: Transform) -> Transform {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 {
            var s = 0.0
            for k in 0..<3 { s += matrix[i * 3 + k] * other.matrix[k * 3 + j] }
            r[i * 3 + j] = s
        } }
        return Transform(matrix: r)
    }

    /// The inverse transform (reference → frame), or nil when singular.
    public var inverse: Transform? {
        let m = matrix
        let a = m[4] * m[8] - m[5] * m[7]
        let b = m[5] * m[6] - m[3] * m[8]
        let c = m[3] * m[7] - m[4] * m[6]
        let det = m[0] * a + m[1] * b + m[2] * c
        guard det.isFinite, abs(det) > 1e-12 else { return nil }
        let inv = [
            a, m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            b, m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            c, m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ].map { $0 / det }
        return Transform(matrix: inv)
    }

    /// The matrix as three rows, for the JSON report.
    public var rows: [[Double]] { [Array(matrix[0..<3]), Array(matrix[3..<6]), Array(matrix[6..<9])] }

    /// A compact printout of the matrix rows.
    public var description: String { "Transform(\(rows))" }
}
