/// The sky background and its noise over a plane, estimated robustly on a
/// coarse mesh and interpolated bilinearly between cell centres.
///
/// Each cell (`cellSize` px, the last row/column of cells absorbing the
/// ragged margin) contributes a regular subsample of at most about
/// `samplesPerCell` pixels; its level is the median and its noise
/// 1.4826 · MAD after iterated 3 σ clipping (stars and hot pixels fall
/// out). When the MAD is 0 (heavily quantised, almost flat data) the
/// clipped standard deviation is used instead. Both grids are then 3 × 3
/// median filtered so a cell lifted by a bright star or a nebula knot
/// takes its neighbours' value. Outside the outermost cell centres the
/// values are held constant.
struct BackgroundMesh: Sendable {
    /// Number of cells across and down.
    let cellsX: Int, cellsY: Int
    /// Cell size in pixels (real: the plane is split evenly).
    let cellWidth: Double, cellHeight: Double
    /// Per-cell sky level and noise σ, row-major `cellsY × cellsX`, sample units.
    let level: [Float], noise: [Float]

    /// Subsample size per cell: enough for a median good to ≈ 0.08 σ, and
    /// the mesh of a 24 MP plane costs tens of milliseconds.
    static let samplesPerCell = 256
    /// Clipping threshold in σ, and the most clipping rounds.
    static let clipSigma: Float = 3
    static let clipIterations = 5
    /// Noise floor (sample units) so a perfectly flat plane gives a
    /// finite, tiny σ rather than 0.
    static let minimumNoise: Float = 1e-7

    /// Measures `plane` (non-empty) with cells of about `cellSize` pixels.
    init(plane: Plane, cellSize: Int) {
        let w = plane.width, h = plane.height
        let nx = max(1, Int((Double(w) / Double(cellSize)).rounded())), ny = max(1, Int((Double(h) / Double(cellSize)).rounded()))
        cellsX = nx; cellsY = ny
        cellWidth = Double(w) / Double(nx); cellHeight = Double(h) / Double(ny)
        var level = [Float](repeating: 0, count: nx * ny), noise = [Float](repeating: 0, count: nx * ny)
        let stride = max(1, Int((Double(cellSize * cellSize) / Double(Self.samplesPerCell)).squareRoot().rounded()))
        var samples = [Float](), deviations = [Float]()
        samples.reserveCapacity(Self.samplesPerCell * 2)
        deviations.reserveCapacity(Self.samplesPerCell * 2)
        plane.pixels.withUnsafeBufferPointer { p in
            for cy in 0..<ny {
                let y0 = cy * h / ny, y1 = (cy + 1) * h / ny
                for cx in 0..<nx {
                    let x0 = cx * w / nx, x1 = (cx + 1) * w / nx
                    samples.removeAll(keepingCapacity: true)
                    var y = y0 + (stride - 1) / 2
                    while y < y1 {
                        var x = x0 + (stride - 1) / 2
                        while x < x1 { samples.append(p[y * w + x]); x += stride }
                        y += stride
                    }
                    if samples.isEmpty { samples.append(p[y0 * w + x0]) }
                    let (m, s) = Self.clippedStatistics(&samples, deviations: &deviations)
                    level[cy * nx + cx] = m
                    noise[cy * nx + cx] = s
                }
            }
        }
        self.level = Self.medianFiltered(level, nx: nx, ny: ny)
        self.noise = Self.medianFiltered(noise, nx: nx, ny: ny)
    }

    /// Median and robust σ of `samples` after iterated σ clipping
    /// (`samples` is reordered and shrunk; `deviations` is scratch).
    static func clippedStatistics(_ samples: inout [Float], deviations: inout [Float]) -> (Float, Float) {
        var median: Float = 0, sigma: Float = 0
        for _ in 0..<clipIterations {
            median = DirectRefinement.median(&samples)
            deviations.removeAll(keepingCapacity: true)
            for v in samples { deviations.append(abs(v - median)) }
            sigma = 1.4826 * DirectRefinement.median(&deviations)
            let limit = clipSigma * sigma
            let before = samples.count
            samples.removeAll { abs($0 - median) > limit }
            if samples.count == before || samples.isEmpty { break }
        }
        if sigma <= 0, samples.count > 1 {
            // Quantised, nearly flat data: the MAD is 0; use the plain σ.
            var s = 0.0, s2 = 0.0
            for v in samples { s += Double(v); s2 += Double(v) * Double(v) }
            let n = Double(samples.count)
            sigma = Float(max(0, s2 / n - (s / n) * (s / n)).squareRoot())
        }
        return (median, max(sigma, minimumNoise))
    }

    /// 3 × 3 median filter of a `ny × nx` grid (fewer neighbours at edges).
    static func medianFiltered(_ grid: [Float], nx: Int, ny: Int) -> [Float] {
        guard nx * ny > 1 else { return grid }
        var out = grid
        var window = [Float]()
        window.reserveCapacity(9)
        for y in 0..<ny {
            for x in 0..<nx {
                window.removeAll(keepingCapacity: true)
                for j in max(0, y - 1)...min(ny - 1, y + 1) {
                    for i in max(0, x - 1)...min(nx - 1, x + 1) { window.append(grid[j * nx + i]) }
                }
                out[y * nx + x] = DirectRefinement.median(&window)
            }
        }
        return out
    }

    /// Grid position of pixel coordinate `t` along an axis of `cells`
    /// cells of size `size`: lower cell index and the fraction towards the
    /// next, clamped so the value is constant beyond the outer centres.
    @inline(__always)
    static func bracket(_ t: Double, size: Double, cells: Int) -> (Int, Double) {
        let g = (t + 0.5) / size - 0.5
        if g <= 0 || cells == 1 { return (0, 0) }
        if g >= Double(cells - 1) { return (cells - 1, 0) }
        let i = Int(g)
        return (i, g - Double(i))
    }

    /// Sky level and noise σ at pixel coordinate `(x, y)`, sample units.
    func value(x: Double, y: Double) -> (level: Double, noise: Double) {
        let (i, fx) = Self.bracket(x, size: cellWidth, cells: cellsX)
        let (j, fy) = Self.bracket(y, size: cellHeight, cells: cellsY)
        let i1 = min(i + 1, cellsX - 1), j1 = min(j + 1, cellsY - 1)
        func lerp(_ g: [Float]) -> Double {
            let a = Double(g[j * cellsX + i]), b = Double(g[j * cellsX + i1])
            let c = Double(g[j1 * cellsX + i]), d = Double(g[j1 * cellsX + i1])
            let top = a + fx * (b - a), bottom = c + fx * (d - c)
            return top + fy * (bottom - top)
        }
        return (lerp(level), lerp(noise))
    }

    /// For each mesh row, `level + k · noise` interpolated along x at every
    /// column of a `width`-pixel row: `cellsY` arrays of `width` values,
    /// row-major. A plane row's threshold is the linear blend of two of
    /// them (see `bracket`), so the detection scan costs one multiply-add
    /// per pixel.
    func thresholdRows(width: Int, sigmas k: Double) -> [Float] {
        var rows = [Float](repeating: 0, count: cellsY * width)
        for j in 0..<cellsY {
            for x in 0..<width {
                let (i, fx) = Self.bracket(Double(x), size: cellWidth, cells: cellsX)
                let i1 = min(i + 1, cellsX - 1)
                let a = Double(level[j * cellsX + i]) + k * Double(noise[j * cellsX + i])
                let b = Double(level[j * cellsX + i1]) + k * Double(noise[j * cellsX + i1])
                rows[j * width + x] = Float(a + fx * (b - a))
            }
        }
        return rows
    }
}

// References
// - E. Bertin and S. Arnouts, "SExtractor: Software for source extraction",
//   Astronomy and Astrophysics Supplement 117, 393–404, 1996 (§3: mesh
//   background, clipping, median filtering, bilinear interpolation).
// - P. J. Rousseeuw and C. Croux, "Alternatives to the median absolute
//   deviation", J. American Statistical Association 88(424), 1273–1283,
//   1993 (MAD consistency factor 1.4826).
