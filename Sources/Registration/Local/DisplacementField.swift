/// A smooth field of residual displacements left after a global transform,
/// measured on a grid of tiles and interpolated between tile centres.
///
/// `displacement(x:y:)` at reference pixel `(x, y)` is where, relative to
/// `(x, y)`, the globally warped frame shows what the reference shows at
/// `(x, y)`: the frame is sampled at `T⁻¹(x + dx, y + dy)` (`T` the global
/// frame → reference transform). Between tile centres the field is
/// bilinear in both components, so a warp through it has no block seams;
/// outside the outermost centres it is held at the edge value.
public struct DisplacementField: Sendable, Equatable {
    /// Tile centres per row and per column of the grid.
    public let columns: Int, rows: Int
    /// Distance between neighbouring tile centres, in reference pixels.
    public let spacing: Double
    /// Reference coordinates of the first tile's centre.
    public let originX: Double, originY: Double
    /// Displacement per tile, row-major, in reference pixels.
    public var dx: [Float], dy: [Float]
    /// Per tile: true where alignment found nothing to trust (a flat tile,
    /// or no match better than the global transform's), so its displacement
    /// is the global transform's (0).
    public var fellBack: [Bool]

    /// A field of `columns` × `rows` tiles, all 0 and none fallen back.
    public init(columns: Int, rows: Int, spacing: Double, originX: Double, originY: Double) {
        precondition(columns > 0 && rows > 0 && spacing > 0,
                     "DisplacementField: \(columns)×\(rows) tiles at spacing \(spacing)")
        self.columns = columns
        self.rows = rows
        self.spacing = spacing
        self.originX = originX
        self.originY = originY
        dx = Array(repeating: 0, count: columns * rows)
        dy = dx
        fellBack = Array(repeating: false, count: columns * rows)
    }

    /// The zero field on a single tile: a warp through it is the global warp.
    public static let zero = DisplacementField(columns: 1, rows: 1, spacing: 1, originX: 0, originY: 0)

    /// The same field on a grid shrunk by `factor` whose pixel `c` has its
    /// centre at `factor · c + (factor − 1) / 2` of this one (the chroma
    /// grid of Y, Cb, Cr frames): centres, spacing and displacements
    /// divided alike.
    public func shrunk(by factor: Int) -> DisplacementField {
        guard factor > 1 else { return self }
        let f = Double(factor), o = (f - 1) / 2
        var out = DisplacementField(columns: columns, rows: rows, spacing: spacing / f,
                                    originX: (originX - o) / f, originY: (originY - o) / f)
        out.dx = dx.map { $0 / Float(f) }
        out.dy = dy.map { $0 / Float(f) }
        out.fellBack = fellBack
        return out
    }

    /// The interpolated displacement at reference point `(x, y)`.
    @inline(__always)
    public func displacement(x: Double, y: Double) -> (dx: Double, dy: Double) {
        let gx = min(max((x - originX) / spacing, 0), Double(columns - 1))
        let gy = min(max((y - originY) / spacing, 0), Double(rows - 1))
        let ix = min(Int(gx), max(0, columns - 2)), iy = min(Int(gy), max(0, rows - 2))
        let tx = columns > 1 ? gx - Double(ix) : 0, ty = rows > 1 ? gy - Double(iy) : 0
        let ix1 = min(ix + 1, columns - 1), iy1 = min(iy + 1, rows - 1)
        let a = iy * columns + ix, b = iy * columns + ix1, c = iy1 * columns + ix, d = iy1 * columns + ix1
        func mix(_ v: [Float]) -> Double {
            let top = Double(v[a]) + tx * (Double(v[b]) - Double(v[a]))
            let bottom = Double(v[c]) + tx * (Double(v[d]) - Double(v[c]))
            return top + ty * (bottom - top)
        }
        return (mix(dx), mix(dy))
    }

    /// Summary for the report: median and 95th percentile of the tiles'
    /// displacement lengths (pixels), and the share of tiles that fell back.
    public var summary: DisplacementSummary {
        let lengths = zip(dx, dy).map { (Double($0) * Double($0) + Double($1) * Double($1)).squareRoot() }.sorted()
        func percentile(_ p: Double) -> Double {
            guard !lengths.isEmpty else { return 0 }
            return lengths[min(lengths.count - 1, Int((p * Double(lengths.count - 1)).rounded()))]
        }
        let fallen = fellBack.reduce(0) { $0 + ($1 ? 1 : 0) }
        return DisplacementSummary(median: percentile(0.5), p95: percentile(0.95),
                                   fallbackShare: fellBack.isEmpty ? 0 : Double(fallen) / Double(fellBack.count))
    }
}

/// What a report says of a `DisplacementField`.
public struct DisplacementSummary: Sendable, Equatable {
    /// Median displacement length over the tiles, in pixels.
    public var median: Double
    /// 95th percentile of the displacement lengths, in pixels.
    public var p95: Double
    /// Share of tiles (0…1) that fell back to the global transform.
    public var fallbackShare: Double
}
