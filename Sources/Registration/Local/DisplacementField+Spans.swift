extension DisplacementField {
    /// The field along reference row `y`: its values at every tile centre's
    /// column, interpolated once between the two rows of centres around `y`,
    /// so that each piece of the row reads two of them instead of four grid
    /// values. The same bilinear field as `displacement(x:y:)` (mixed in the
    /// other order, so equal to rounding).
    func row(_ y: Double) -> FieldRow {
        let gy = min(max((y - originY) / spacing, 0), Double(rows - 1))
        let iy = min(Int(gy), max(0, rows - 2)), iy1 = min(iy + 1, rows - 1)
        let ty = rows > 1 ? gy - Double(iy) : 0
        func mixed(_ v: [Float]) -> [Double] {
            (0..<columns).map { c in
                let top = Double(v[iy * columns + c]), bottom = Double(v[iy1 * columns + c])
                return top + ty * (bottom - top)
            }
        }
        return FieldRow(originX: originX, spacing: spacing, dx: mixed(dx), dy: mixed(dy))
    }
}

/// A `DisplacementField` along one reference row (`DisplacementField.row`):
/// linear in `x` between two neighbouring centres' columns, held beyond the
/// outer ones.
struct FieldRow {
    let originX: Double, spacing: Double
    /// The displacement at each tile centre's column of the row.
    let dx: [Double], dy: [Double]

    /// The parts of columns `0..<width` where the field is exactly 0 (both
    /// components), each at least `minimum` columns long, ascending: between
    /// two neighbouring centres that are both 0 it is 0 all the way (it is
    /// linear there), and beyond an outer centre that is 0.
    func zeroParts(width: Int, minimum: Int) -> [Range<Int>] {
        let n = dx.count
        var parts: [Range<Int>] = []
        var c = 0
        while c < n {
            guard dx[c] == 0 && dy[c] == 0 else { c += 1; continue }
            var last = c
            while last + 1 < n && dx[last + 1] == 0 && dy[last + 1] == 0 { last += 1 }
            // Zero on [centre c, centre last], and past an outer centre.
            let low = c == 0 ? 0 : Int((originX + Double(c) * spacing).rounded(.up))
            let high = last == n - 1 ? width : Int((originX + Double(last) * spacing).rounded(.down)) + 1
            let part = max(0, low)..<min(width, high)
            if part.count >= minimum { parts.append(part) }
            c = last + 1
        }
        return parts
    }

    /// `0..<width` less `parts` (ascending, disjoint, within it), ascending.
    static func complement(of parts: [Range<Int>], width: Int) -> [Range<Int>] {
        var out: [Range<Int>] = [], x = 0
        for part in parts {
            if part.lowerBound > x { out.append(x..<part.lowerBound) }
            x = part.upperBound
        }
        if x < width { out.append(x..<width) }
        return out
    }

    /// The displacement at column `x` of the row.
    func displacement(x: Double) -> (dx: Double, dy: Double) {
        let columns = dx.count
        let gx = min(max((x - originX) / spacing, 0), Double(columns - 1))
        let ix = min(Int(gx), max(0, columns - 2)), ix1 = min(ix + 1, columns - 1)
        let tx = columns > 1 ? gx - Double(ix) : 0
        return (dx[ix] + tx * (dx[ix1] - dx[ix]), dy[ix] + tx * (dy[ix1] - dy[ix]))
    }

    /// The field from column `first`, where it is one straight line: the
    /// columns `first..<end` (`end ≤ limit`, and `end > first` when
    /// `limit > first`) hold no tile centre's column strictly inside them,
    /// so the field there is exactly
    /// `(dx + slopeX · (x − first), dy + slopeY · (x − first))`.
    ///
    /// Between two neighbouring centres' columns (and beyond the outer
    /// ones, where it is held) the bilinear field is linear in `x` along a
    /// row; it bends only at the centres.
    func linearPiece(from first: Int, limit: Int)
        -> (end: Int, dx: Double, dy: Double, slopeX: Double, slopeY: Double) {
        var end = limit
        // The first centre column to the right of `first`.
        var k = ((Double(first) - originX) / spacing).rounded(.down) + 1
        if originX + k * spacing <= Double(first) { k += 1 }
        if k <= Double(dx.count - 1) {
            let bend = originX + max(k, 0) * spacing
            end = min(end, Int(bend.rounded(.down)) + 1)
        }
        let a = displacement(x: Double(first))
        guard end - 1 > first else { return (end, a.dx, a.dy, 0, 0) }
        let b = displacement(x: Double(end - 1))
        let n = Double(end - 1 - first)
        return (end, a.dx, a.dy, (b.dx - a.dx) / n, (b.dy - a.dy) / n)
    }

    /// The map from reference column `x` of row `y` (this row) to frame
    /// coordinates through the field and then `m` (row-major 3×3, reference
    /// → frame): `m · (x + dx, y + dy, 1)`, as one projective matrix in
    /// `(x, y, 1)` valid for the columns `first..<end` of
    /// `linearPiece(from:limit:)` (there the displaced point moves along a
    /// line as `x` does).
    func projectiveMap(_ m: (Double, Double, Double, Double, Double, Double, Double, Double, Double),
                       row y: Double, from first: Int, limit: Int)
        -> (matrix: (Double, Double, Double, Double, Double, Double, Double, Double, Double), end: Int) {
        let p = linearPiece(from: first, limit: limit)
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
