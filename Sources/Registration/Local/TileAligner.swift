/// Local (tile) alignment of a frame already warped onto the reference grid
/// by a global transform: what the global transform leaves, parallax of
/// near things against far ones, measured per tile on a pyramid and
/// returned as a smooth `DisplacementField` (after Hasinoff et al. 2016,
/// HDR+).
///
/// 1. **Pyramid.** Reference and frame are halved (box average) up to
///    `levels − 1` times, while a level still holds two tiles a side.
/// 2. **Coarse to fine.** Each level is cut into `tileSize` tiles. A tile's
///    starting offsets are the coarser level's field at its centre (doubled;
///    interpolated), the displacements of the four coarser tiles around it,
///    and 0 (the global transform); the cheapest of them is searched
///    ±`searchRadius` (coarsest level) or ±`refineRadius` integer pixels,
///    never beyond `maximumDisplacement` (the parallax corrected).
///    The cost is the mean squared difference on coarser levels and the
///    mean absolute difference at full resolution (robust to the noise and
///    to small moving things).
/// 3. **Subpixel.** At full resolution `subpixelIterations` Lucas–Kanade
///    steps (reference gradients, bilinear frame samples) refine each
///    tile's integer offset, by at most one pixel.
/// 4. **Fallback.** A tile whose reference is flat (standard deviation below
///    `minimumContrast`) or that the frame does not cover keeps its coarser
///    estimate (0, the global transform, on the coarsest level). At full
///    resolution a tile keeps 0 unless its match lowers the global
///    transform's cost by `minimumImprovement`, goes to 0 when its best cost
///    is above `maximumCostRatio` times the median tile's (it matches
///    nothing: a passer-by, an occlusion edge), and takes the median of its
///    3 × 3 neighbourhood when it lies more than 1 px from it. A tile whose
///    refined displacement is not significant against its noise
///    (`minimumSignificance`) or shorter than `minimumDisplacement` keeps 0
///    too: on a scene without parallax the global transform, fitted on the
///    whole frame, is far more precise than a tile's own estimate, whose
///    noise and bias would jitter the warp. A tile whose cost under the
///    global transform is already within `noiseFloorRatio` of what aligned
///    tiles cost (measured on a sample of tiles) keeps 0 without a search.
///    All of these count as fallen back.
public struct TileAligner: Sendable {
    /// Reference width in pixels (frames must match).
    public let width: Int
    /// Reference height in pixels (frames must match).
    public let height: Int
    /// The options this aligner was built with.
    public let options: TileAlignmentOptions
    /// Reference pyramid, full resolution first.
    private let pyramid: [Plane]

    /// Prepares alignment against `reference` (a luma plane, 0…1).
    /// - Throws: `RegistrationError.tooSmall` when the reference does not
    ///   hold two tiles a side, or the tile size is below 4.
    public init(reference: Plane, options: TileAlignmentOptions = .init()) throws {
        let t = options.tileSize
        guard t >= 4, reference.width >= 2 * t, reference.height >= 2 * t else {
            throw RegistrationError.tooSmall(
                "Reference plane is \(reference.width)×\(reference.height); local alignment with \(t) px tiles needs at least \(2 * t)×\(2 * t) pixels.")
        }
        width = reference.width
        height = reference.height
        self.options = options
        pyramid = Self.pyramid(reference, levels: options.levels, tileSize: t)
    }

    /// The halving pyramid of `plane`: at most `levels` levels, each holding
    /// at least two `tileSize` tiles a side.
    static func pyramid(_ plane: Plane, levels: Int, tileSize: Int) -> [Plane] {
        var out = [plane]
        while out.count < max(1, levels), let last = out.last, min(last.width, last.height) / 2 >= 2 * tileSize {
            out.append(last.downsampled(by: 2))
        }
        return out
    }

    /// The residual displacement field of `frame`, which the global
    /// transform has already put on the reference grid (reference size).
    /// Where `coverage` (same size, optional) is 0 the frame has no data;
    /// the reference is used there, so those pixels favour no displacement.
    /// - Throws: `RegistrationError.sizeMismatch` when a plane is not the reference's size.
    public func align(_ frame: Plane, coverage: Plane? = nil) throws -> DisplacementField {
        guard frame.width == width, frame.height == height,
              coverage.map({ $0.width == width && $0.height == height }) ?? true else {
            throw RegistrationError.sizeMismatch(
                "Frame is \(frame.width)×\(frame.height) but the reference is \(width)×\(height).")
        }
        var filled = frame
        Self.matchExposure(&filled, to: pyramid[0], coverage: coverage, tileSize: options.tileSize)
        if let coverage {
            let reference = pyramid[0]
            for i in 0..<filled.count where coverage.pixels[i] <= 0 { filled.pixels[i] = reference.pixels[i] }
        }
        let frames = Self.pyramid(filled, levels: pyramid.count, tileSize: options.tileSize)
        var coarser: DisplacementField?
        for level in pyramid.indices.reversed() {
            coarser = alignLevel(level, frame: frames[level], coarser: coarser)
        }
        guard var field = coarser else { return .zero }
        Self.rejectOutliers(&field, limit: 1)
        return field
    }

    /// Maps `frame` by the gain and offset that fit its tile means to the
    /// reference's, so that tiles compare structure, not exposure.
    /// Unmatched, a real frame 3 % brighter than the reference
    /// (auto-exposure drift) made tiles of a defocused background match
    /// darker blobs several pixels away.
    ///
    /// The fit is orthogonal (total least squares): where the global
    /// transform leaves a plane misaligned (parallax), both tile means
    /// scatter alike, and an ordinary fit's gain would shrink with the
    /// scatter (−0.6 dB on the parallax test's band). It is made twice, the
    /// second time without the tiles more than 3 robust σ off the first
    /// line: passers-by, which moved quantiles of the whole frame enough
    /// to cost 0.5 dB on generated streets. Tiles the frame does not
    /// wholly cover are left out; nothing changes with fewer than 8 tiles,
    /// means that hardly vary, or a gain outside 0.5…2.
    static func matchExposure(_ frame: inout Plane, to reference: Plane, coverage: Plane?, tileSize t: Int) {
        let (xs, ys) = Self.tileMeans(frame, reference, coverage: coverage, tileSize: t)
        guard var fit = Self.orthogonalFit(xs, ys, keep: { _ in true }) else { return }
        let norm = (1 + fit.gain * fit.gain).squareRoot()
        let distances = xs.indices.map { abs(ys[$0] - fit.gain * xs[$0] - fit.offset) / norm }
        let scale = 1.4826 * distances.sorted()[distances.count / 2]
        if scale > 0, let refit = Self.orthogonalFit(xs, ys, keep: { distances[$0] <= 3 * scale }) { fit = refit }
        guard fit.gain > 0.5, fit.gain < 2 else { return }
        let g = Float(fit.gain), o = Float(fit.offset)
        frame.pixels.withUnsafeMutableBufferPointer { p in
            for i in p.indices { p[i] = g * p[i] + o }
        }
    }

    /// The means of `frame` and `reference` over each whole `t` × `t` tile
    /// (from the top-left corner) that `coverage` (when given) is positive
    /// all over.
    private static func tileMeans(_ frame: Plane, _ reference: Plane, coverage: Plane?,
                                  tileSize t: Int) -> (frame: [Double], reference: [Double]) {
        let w = reference.width, columns = reference.width / t, rows = reference.height / t
        var xs = [Double](), ys = [Double]()
        xs.reserveCapacity(columns * rows); ys.reserveCapacity(columns * rows)
        var sumF = [Float](repeating: 0, count: columns), sumR = [Float](repeating: 0, count: columns)
        var least = [Float](repeating: 1, count: columns)
        frame.pixels.withUnsafeBufferPointer { f in
        reference.pixels.withUnsafeBufferPointer { r in
            // Without a coverage plane, one row of 1s read for every row.
            (coverage?.pixels ?? [Float](repeating: 1, count: w)).withUnsafeBufferPointer { c in
                let coverageStride = coverage == nil ? 0 : w
                for row in 0..<rows {
                    for k in 0..<columns { sumF[k] = 0; sumR[k] = 0; least[k] = 1 }
                    for y in (row * t)..<(row * t + t) {
                        let o = y * w, co = y * coverageStride
                        for k in 0..<columns {
                            var a: Float = 0, b: Float = 0, m: Float = 1
                            for x in (k * t)..<(k * t + t) { a += f[o + x]; b += r[o + x]; m = min(m, c[co + x]) }
                            sumF[k] += a; sumR[k] += b; least[k] = min(least[k], m)
                        }
                    }
                    let area = Double(t * t)
                    for k in 0..<columns where least[k] > 0 {
                        xs.append(Double(sumF[k]) / area); ys.append(Double(sumR[k]) / area)
                    }
                }
            }
        }
        }
        return (xs, ys)
    }

    /// The total-least-squares line `y = gain · x + offset` through the
    /// points `i` that `keep` accepts (the principal axis of their
    /// covariance); nil for fewer than 8 of them, or when they hardly vary
    /// or the axis is vertical.
    private static func orthogonalFit(_ xs: [Double], _ ys: [Double], keep: (Int) -> Bool) -> (gain: Double, offset: Double)? {
        var n = 0.0, sx = 0.0, sy = 0.0
        for i in xs.indices where keep(i) { n += 1; sx += xs[i]; sy += ys[i] }
        guard n >= 8 else { return nil }
        let mx = sx / n, my = sy / n
        var cxx = 0.0, cyy = 0.0, cxy = 0.0
        for i in xs.indices where keep(i) {
            let dx = xs[i] - mx, dy = ys[i] - my
            cxx += dx * dx; cyy += dy * dy; cxy += dx * dy
        }
        guard cxx / n > 1e-8, abs(cxy) > 1e-12 else { return nil }
        let gain = (cyy - cxx + ((cyy - cxx) * (cyy - cxx) + 4 * cxy * cxy).squareRoot()) / (2 * cxy)
        return (gain, my - gain * mx)
    }

    /// The tile grid of a `width` × `height` level: whole tiles from the
    /// top-left corner, centres `tileSize` apart.
    private func grid(width: Int, height: Int) -> DisplacementField {
        let t = options.tileSize
        return DisplacementField(columns: max(1, width / t), rows: max(1, height / t), spacing: Double(t),
                                 originX: Double(t - 1) / 2, originY: Double(t - 1) / 2)
    }

    /// One level: every tile's displacement in this level's pixels.
    private func alignLevel(_ level: Int, frame: Plane, coarser: DisplacementField?) -> DisplacementField {
        let reference = pyramid[level]
        var field = grid(width: reference.width, height: reference.height)
        // Best full-resolution cost per tile (infinity: not measured).
        var costs = [Float](repeating: .infinity, count: field.dx.count)
        let t = options.tileSize
        let isFinest = level == 0
        let radius = coarser == nil ? options.searchRadius : options.refineRadius
        // The largest offset per axis, in this level's pixels.
        let bound = options.maximumDisplacement / Double(1 << level)
        func isWithinBound(_ a: Int, _ b: Int) -> Bool { Double(abs(a)) <= bound && Double(abs(b)) <= bound }
        withUnsafeTemporaryAllocation(of: Float.self, capacity: TilePatch.scratchCount(size: t)) { scratch in
        reference.pixels.withUnsafeBufferPointer { r in
            frame.pixels.withUnsafeBufferPointer { f in
                let patch = TilePatch(reference: r.baseAddress!, frame: f.baseAddress!,
                                      width: reference.width, height: reference.height, size: t,
                                      scratch: scratch.baseAddress!)
                var measured = OffsetCosts()
                // The integer search of the tile at (x0, y0) from `candidates`:
                // its cheapest offset, that offset's cost, and the global
                // transform's cost (full resolution only; else infinity).
                func search(x0: Int, y0: Int, candidates: [(Double, Double)])
                    -> (best: (dx: Double, dy: Double), cost: Float, global: Float) {
                    measured.removeAll()
                    let squared = !isFinest
                    let start = candidates.first ?? (0, 0)
                    var best = (dx: start.0.rounded(), dy: start.1.rounded())
                    var bestCost = Float.infinity
                    // An offset measured before cannot beat `bestCost`
                    // (the least so far), so skipping it changes nothing.
                    for c in candidates {
                        let a = Int(c.0.rounded()), b = Int(c.1.rounded())
                        guard isWithinBound(a, b) else { continue }
                        let (cost, isNew) = measured.cost(patch, x0: x0, y0: y0, dx: a, dy: b, squared: squared)
                        if isNew, cost < bestCost { bestCost = cost; best = (Double(a), Double(b)) }
                    }
                    // The global transform's cost, which a full-resolution match must beat.
                    let global = isFinest ? measured.cost(patch, x0: x0, y0: y0, dx: 0, dy: 0, squared: squared).cost
                                          : .infinity
                    let centre = (Int(best.dx), Int(best.dy))
                    for b in -radius...radius {
                        for a in -radius...radius where (a != 0 || b != 0) && isWithinBound(centre.0 + a, centre.1 + b) {
                            let (cost, isNew) = measured.cost(patch, x0: x0, y0: y0, dx: centre.0 + a, dy: centre.1 + b,
                                                              squared: squared)
                            if isNew, cost < bestCost { bestCost = cost; best = (Double(centre.0 + a), Double(centre.1 + b)) }
                        }
                    }
                    return (best, bestCost, global)
                }
                // At full resolution: the global transform's cost of every
                // tile with contrast (NaN: none), and the burst's noise floor,
                // the median cost of every fourth tile each way after the
                // search and the subpixel steps (what a tile costs once
                // aligned, whatever the global transform aligned). A tile
                // whose global cost is within `noiseFloorRatio` of that
                // floor keeps 0 without a search.
                let globalCosts = isFinest ? Self.globalCosts(patch, field: field, tileSize: t,
                                                             minimumContrast: options.minimumContrast) : []
                var floorLimit = -Float.infinity
                if isFinest && options.noiseFloorRatio > 0 {
                    var aligned = [Float]()
                    for row in stride(from: 0, to: field.rows, by: 4) {
                        for column in stride(from: 0, to: field.columns, by: 4)
                        where !globalCosts[row * field.columns + column].isNaN {
                            let candidates = Self.candidates(column: column, row: row, tileSize: t, coarser: coarser)
                            let x0 = column * t, y0 = row * t
                            let found = search(x0: x0, y0: y0, candidates: candidates)
                            guard found.cost.isFinite else { continue }
                            let refined = patch.subpixel(x0: x0, y0: y0, from: found.best,
                                                         iterations: options.subpixelIterations)
                            let cost = patch.cost(x0: x0, y0: y0, at: (refined.dx, refined.dy))
                            if cost.isFinite { aligned.append(cost) }
                        }
                    }
                    if let floor = Self.median(aligned) { floorLimit = Float(options.noiseFloorRatio) * floor }
                }
                for row in 0..<field.rows {
                    for column in 0..<field.columns {
                        let index = row * field.columns + column
                        let x0 = column * t, y0 = row * t
                        let candidates = Self.candidates(column: column, row: row, tileSize: t, coarser: coarser)
                        let start = candidates.first ?? (0, 0)
                        let hasContrast = isFinest ? !globalCosts[index].isNaN
                                                   : patch.deviation(x0: x0, y0: y0) >= options.minimumContrast
                        guard hasContrast else {
                            field.dx[index] = Float(start.0); field.dy[index] = Float(start.1)
                            field.fellBack[index] = true
                            continue
                        }
                        // Within the noise floor: nothing a displacement could mend.
                        if isFinest, globalCosts[index] <= floorLimit {
                            costs[index] = globalCosts[index]
                            field.fellBack[index] = true
                            continue
                        }
                        var (best, bestCost, global) = search(x0: x0, y0: y0, candidates: candidates)
                        guard bestCost.isFinite else {
                            field.dx[index] = Float(start.0); field.dy[index] = Float(start.1)
                            field.fellBack[index] = true
                            continue
                        }
                        if isFinest, best != (0, 0), Double(bestCost) > (1 - options.minimumImprovement) * Double(global) {
                            best = (0, 0)
                            bestCost = global
                            field.fellBack[index] = true
                        }
                        if isFinest { costs[index] = bestCost }
                        if isFinest {
                            let refined = patch.subpixel(x0: x0, y0: y0, from: best, iterations: options.subpixelIterations)
                            best = (min(max(refined.dx, -bound), bound), min(max(refined.dy, -bound), bound))
                            // A displacement the tile's noise could have made, or one
                            // below its estimate's systematic error, is no displacement.
                            if refined.significance < options.minimumSignificance
                                || (best.dx * best.dx + best.dy * best.dy).squareRoot() < options.minimumDisplacement {
                                best = (0, 0)
                                field.fellBack[index] = true
                            }
                        }
                        field.dx[index] = Float(best.dx); field.dy[index] = Float(best.dy)
                    }
                }
            }
        }
        }
        if isFinest { Self.dropUnmatched(&field, costs: costs, ratio: Float(options.maximumCostRatio)) }
        return field
    }

    /// Starting offsets of a tile, in its level's pixels: the coarser
    /// field interpolated at the tile's centre, the four coarser tiles
    /// around it, and 0; all doubled from the coarser level. Only 0 on the
    /// coarsest level.
    private static func candidates(column: Int, row: Int, tileSize t: Int,
                                   coarser: DisplacementField?) -> [(Double, Double)] {
        guard let coarser else { return [(0, 0)] }
        // A level pixel X sits at 2X + 0.5 of the level below.
        let cx = (Double(column * t) + Double(t - 1) / 2 - 0.5) / 2
        let cy = (Double(row * t) + Double(t - 1) / 2 - 0.5) / 2
        let d = coarser.displacement(x: cx, y: cy)
        var out = [(2 * d.dx, 2 * d.dy)]
        let gx = (cx - coarser.originX) / coarser.spacing, gy = (cy - coarser.originY) / coarser.spacing
        for (i, j) in [(gx.rounded(.down), gy.rounded(.down)), (gx.rounded(.up), gy.rounded(.down)),
                       (gx.rounded(.down), gy.rounded(.up)), (gx.rounded(.up), gy.rounded(.up))] {
            let ci = min(max(Int(i), 0), coarser.columns - 1), cj = min(max(Int(j), 0), coarser.rows - 1)
            let k = cj * coarser.columns + ci
            out.append((2 * Double(coarser.dx[k]), 2 * Double(coarser.dy[k])))
        }
        out.append((0, 0))
        return out
    }

    /// The full-resolution cost (mean absolute difference) of each tile of
    /// `field`'s grid at offset 0, the global transform's; NaN for a tile
    /// whose reference has less than `minimumContrast`.
    private static func globalCosts(_ patch: TilePatch, field: DisplacementField, tileSize t: Int,
                                    minimumContrast: Double) -> [Float] {
        var out = [Float](repeating: .nan, count: field.dx.count)
        for row in 0..<field.rows {
            for column in 0..<field.columns where patch.deviation(x0: column * t, y0: row * t) >= minimumContrast {
                out[row * field.columns + column] = patch.cost(x0: column * t, y0: row * t, dx: 0, dy: 0, squared: false)
            }
        }
        return out
    }

    /// The median (the value of rank ⌊n/2⌋) of `costs` (finite,
    /// non-negative); nil when there are none.
    static func median(_ costs: [Float]) -> Float? {
        guard !costs.isEmpty else { return nil }
        return costs.withUnsafeBufferPointer {
            MagnitudeSelection.select($0.baseAddress!, count: $0.count, rank: $0.count / 2)
        }
    }

    /// Sets to 0 (the global transform), fallen back, each tile whose best
    /// cost is above `ratio` times the median of the measured tiles' (it
    /// matches nothing: something moved there, or it straddles an
    /// occlusion). Giving such tiles their neighbours' median instead cost
    /// 2 dB on Samples/street, whose passers-by then dragged the frame.
    static func dropUnmatched(_ field: inout DisplacementField, costs: [Float], ratio: Float) {
        guard let median = Self.median(costs.filter(\.isFinite)) else { return }
        let limit = ratio * median
        for i in costs.indices where costs[i].isFinite && costs[i] > limit {
            field.dx[i] = 0; field.dy[i] = 0
            field.fellBack[i] = true
        }
    }

    /// Replaces each tile lying more than `limit` px from the median of its
    /// 3 × 3 neighbourhood (per component) by that median, marking it
    /// fallen back.
    static func rejectOutliers(_ field: inout DisplacementField, limit: Float) {
        let source = field
        var xs = [Float](), ys = [Float]()
        for row in 0..<source.rows {
            for column in 0..<source.columns {
                xs.removeAll(keepingCapacity: true); ys.removeAll(keepingCapacity: true)
                for j in max(0, row - 1)...min(source.rows - 1, row + 1) {
                    for i in max(0, column - 1)...min(source.columns - 1, column + 1) {
                        xs.append(source.dx[j * source.columns + i]); ys.append(source.dy[j * source.columns + i])
                    }
                }
                guard xs.count >= 4 else { continue }
                xs.sort(); ys.sort()
                let mx = xs[xs.count / 2], my = ys[ys.count / 2]
                let k = row * source.columns + column
                if abs(source.dx[k] - mx) > limit || abs(source.dy[k] - my) > limit {
                    field.dx[k] = mx; field.dy[k] = my
                    field.fellBack[k] = true
                }
            }
        }
    }
}

/// The costs of one tile's offsets, each measured once: candidates from a
/// smooth coarser field often repeat, and the neighbours of the best one
/// include some of them.
private struct OffsetCosts {
    private var measured: [(dx: Int, dy: Int, cost: Float)] = []

    init() { measured.reserveCapacity(16) }

    /// Forgets every offset (the next tile's).
    mutating func removeAll() { measured.removeAll(keepingCapacity: true) }

    /// The tile's cost at offset `(dx, dy)`, and whether it was measured
    /// now (false: an earlier call measured it).
    mutating func cost(_ patch: TilePatch, x0: Int, y0: Int, dx: Int, dy: Int, squared: Bool) -> (cost: Float, isNew: Bool) {
        if let known = measured.first(where: { $0.dx == dx && $0.dy == dy }) { return (known.cost, false) }
        let c = patch.cost(x0: x0, y0: y0, dx: dx, dy: dy, squared: squared)
        measured.append((dx, dy, c))
        return (c, true)
    }
}

// References
// - S. W. Hasinoff, D. Sharlet, R. Geiss, A. Adams, J. T. Barron, F. Kainz,
//   J. Chen and M. Levoy, "Burst photography for high dynamic range and
//   low-light imaging on mobile cameras", ACM Trans. Graphics 35(6), 2016
//   (tile alignment on a pyramid, L2 coarse and L1 fine costs).
// - B. D. Lucas and T. Kanade, "An iterative image registration technique
//   with an application to stereo vision", IJCAI 1981 (subpixel steps).
