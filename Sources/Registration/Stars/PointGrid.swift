/// A uniform hash grid over 2-D points (compressed rows: one sorted index
/// array plus cell offsets), for "which points lie near (x, y)" queries in
/// constant time. Used for reference stars in pixels and for triangle
/// invariants in ratio space.
struct PointGrid: Sendable {
    /// Cell side, in the points' units.
    let cell: Double
    /// Lower corner of the grid and its size in cells.
    let originX: Double, originY: Double
    let columns: Int, rows: Int
    /// `offsets[c] ..< offsets[c + 1]` index `members` for cell `c`.
    let offsets: [Int]
    /// Point indices sorted by cell.
    let members: [Int]

    /// A grid covering `points` whose cells are at least `radius` (> 0)
    /// wide, so `forEachNear` sees every point within `radius`, and at
    /// least the mean point spacing, so there are about as many cells as
    /// points (never more than (2√n + 2)² cells). Coordinates must be finite.
    init(points: [SIMD2<Double>], radius: Double) {
        let minX = points.map(\.x).min() ?? 0, minY = points.map(\.y).min() ?? 0
        let maxX = points.map(\.x).max() ?? 0, maxY = points.map(\.y).max() ?? 0
        let spacing = ((maxX - minX) * (maxY - minY) / Double(max(1, points.count))).squareRoot()
        // Points along a line have no area: bound the cells per side too.
        let perSide = 2 * Double(points.count).squareRoot() + 2
        let cell = max(radius, spacing, max(maxX - minX, maxY - minY) / perSide, 1e-12)
        self.cell = cell
        originX = minX; originY = minY
        columns = max(1, Int(((maxX - minX) / cell).rounded(.down)) + 1)
        rows = max(1, Int(((maxY - minY) / cell).rounded(.down)) + 1)
        var counts = [Int](repeating: 0, count: columns * rows + 1)
        var cellOf = [Int](repeating: 0, count: points.count)
        for (k, p) in points.enumerated() {
            let i = min(columns - 1, max(0, Int((p.x - minX) / cell)))
            let j = min(rows - 1, max(0, Int((p.y - minY) / cell)))
            cellOf[k] = j * columns + i
            counts[cellOf[k] + 1] += 1
        }
        for c in 0..<(columns * rows) { counts[c + 1] += counts[c] }
        var fill = counts
        var members = [Int](repeating: 0, count: points.count)
        for k in 0..<points.count {
            members[fill[cellOf[k]]] = k
            fill[cellOf[k]] += 1
        }
        offsets = counts
        self.members = members
    }

    /// Calls `body` with the index of every point in the 3 × 3 cells around
    /// `(x, y)`: a superset of the points within `cell` of it.
    @inline(__always)
    func forEachNear(_ x: Double, _ y: Double, _ body: (Int) -> Void) {
        let gx = (x - originX) / cell, gy = (y - originY) / cell
        guard gx.isFinite, gy.isFinite, gx >= -1, gy >= -1,
              gx < Double(columns + 1), gy < Double(rows + 1) else { return }
        let i = Int(gx.rounded(.down)), j = Int(gy.rounded(.down))
        for r in max(0, j - 1)...min(rows - 1, j + 1) {
            for c in max(0, i - 1)...min(columns - 1, i + 1) {
                let cellIndex = r * columns + c
                for k in offsets[cellIndex]..<offsets[cellIndex + 1] { body(members[k]) }
            }
        }
    }
}
