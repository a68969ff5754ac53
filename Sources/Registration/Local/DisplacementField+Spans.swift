extension DisplacementField {
    /// The field along reference row `y` from column `first`, where it is
    /// one straight line: the columns `first..<end` (`end ≤ limit`, and
    /// `end > first` when `limit > first`) hold no tile centre's column
    /// strictly inside them, so the field there is exactly
    /// `(dx + slopeX · (x − first), dy + slopeY · (x − first))`.
    ///
    /// Between two neighbouring centres' columns (and beyond the outer
    /// ones, where it is held) the bilinear field is linear in `x` along a
    /// row; it bends only at the centres.
    func linearPiece(row y: Double, from first: Int, limit: Int)
        -> (end: Int, dx: Double, dy: Double, slopeX: Double, slopeY: Double) {
        var end = limit
        // The first centre column to the right of `first`.
        var k = ((Double(first) - originX) / spacing).rounded(.down) + 1
        if originX + k * spacing <= Double(first) { k += 1 }
        if k <= Double(columns - 1) {
            let bend = originX + max(k, 0) * spacing
            end = min(end, Int(bend.rounded(.down)) + 1)
        }
        let a = displacement(x: Double(first), y: y)
        guard end - 1 > first else { return (end, a.dx, a.dy, 0, 0) }
        let b = displacement(x: Double(end - 1), y: y)
        let n = Double(end - 1 - first)
        return (end, a.dx, a.dy, (b.dx - a.dx) / n, (b.dy - a.dy) / n)
    }

    /// The map from reference column `x` of row `y` to frame coordinates
    /// through this field and then `m` (row-major 3×3, reference → frame):
    /// `m · (x + dx, y + dy, 1)`, as one projective matrix in `(x, y, 1)`
    /// valid for the columns `first..<end` of `linearPiece(row:from:limit:)`
    /// (there the displaced point moves along a line as `x` does).
    func projectiveMap(_ m: (Double, Double, Double, Double, Double, Double, Double, Double, Double),
                       row y: Double, from first: Int, limit: Int)
        -> (matrix: (Double, Double, Double, Double, Double, Double, Double, Double, Double), end: Int) {
        let p = linearPiece(row: y, from: first, limit: limit)
        // (x, y, 1) ↦ ((1 + sx) x + cx, sy x + y + cy, 1) is the displaced point.
        let f = Double(first)
        let a = 1 + p.slopeX, cx = p.dx - p.slopeX * f
        let sy = p.slopeY, cy = p.dy - p.slopeY * f
        // m · [[a, 0, cx], [sy, 1, cy], [0, 0, 1]]
        let product = (m.0 * a + m.1 * sy, m.1, m.0 * cx + m.1 * cy + m.2,
                       m.3 * a + m.4 * sy, m.4, m.3 * cx + m.4 * cy + m.5,
                       m.6 * a + m.7 * sy, m.7, m.6 * cx + m.7 * cy + m.8)
        return (product, p.end)
    }
}
