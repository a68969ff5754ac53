import Dispatch
import Synchronization

/// One pyramid level of the reference, prepared for inverse-compositional
/// Gauss–Newton: the selected sample points (normalised coordinates), their
/// mean-removed values and their gradients in normalised units. The
/// steepest-descent rows are formed on the fly from these five numbers (no
/// 8-plane image is stored). The weighted Hessian is accumulated on the
/// first and third iteration of a level (the robust weights settle) and
/// reused, rescaled for the gain, otherwise: only `Σ w Jᵀr` is accumulated
/// then, which leaves the IRLS fixed point unchanged.
struct HomographyLevel: Sendable {
    /// Box-downsampling factor of this level relative to full resolution.
    let factor: Int
    /// Level size in pixels.
    let width: Int, height: Int
    /// Normalised coordinates of the samples.
    let xs: [Float], ys: [Float]
    /// Reference value minus `mean` at each sample.
    let values: [Float]
    /// Mean reference value over the samples.
    let mean: Double
    /// Reference gradient per normalised unit (∂R/∂xn, ∂R/∂yn).
    let gxs: [Float], gys: [Float]
    /// Normalised coordinates → this level's pixels.
    let toPixels: Transform

    /// Separable binomial [1 2 1]/4 blur (edges clamped). Applied to the
    /// reference and frame levels alike so bilinear sampling and central
    /// differences see a band-limited signal (sharp edges otherwise make the
    /// linearisation poor: slow, biased convergence).
    static func smoothed(_ plane: Plane) -> Plane {
        guard plane.width >= 3, plane.height >= 3 else { return plane }
        return Plane(width: plane.width, height: plane.height, pixels: smoothedRows(plane, 0..<plane.height))
    }

    /// Rows `rows` of `smoothed(plane)` (bit for bit), row `rows.lowerBound`
    /// first, made from rows `rows ± 1` of `plane` only: the reference's
    /// full-resolution level is prepared a band at a time. Needs sides ≥ 3.
    static func smoothedRows(_ plane: Plane, _ rows: Range<Int>) -> [Float] {
        let w = plane.width, h = plane.height
        precondition(w >= 3 && h >= 3 && rows.lowerBound >= 0 && rows.upperBound <= h,
                     "smoothedRows: rows \(rows) of a \(w) × \(h) plane")
        // The horizontal pass of rows rows.lowerBound − 1 … rows.upperBound (clamped).
        let first = max(0, rows.lowerBound - 1), last = min(h - 1, rows.upperBound)
        var tmp = [Float](repeating: 0, count: w * (last - first + 1))
        var out = [Float](repeating: 0, count: w * rows.count)
        plane.pixels.withUnsafeBufferPointer { s in
            tmp.withUnsafeMutableBufferPointer { t in
                for y in first...last {
                    let r = y * w, q = (y - first) * w
                    t[q] = 0.75 * s[r] + 0.25 * s[r + 1]
                    for x in 1..<(w - 1) { t[q + x] = 0.5 * s[r + x] + 0.25 * (s[r + x - 1] + s[r + x + 1]) }
                    t[q + w - 1] = 0.75 * s[r + w - 1] + 0.25 * s[r + w - 2]
                }
            }
        }
        tmp.withUnsafeBufferPointer { t in
            out.withUnsafeMutableBufferPointer { o in
                for y in rows {
                    let q = (y - first) * w, r = (y - rows.lowerBound) * w
                    if y == 0 {
                        for x in 0..<w { o[r + x] = 0.75 * t[q + x] + 0.25 * t[q + x + w] }
                    } else if y == h - 1 {
                        for x in 0..<w { o[r + x] = 0.75 * t[q + x] + 0.25 * t[q + x - w] }
                    } else {
                        for x in 0..<w { o[r + x] = 0.5 * t[q + x] + 0.25 * (t[q + x - w] + t[q + x + w]) }
                    }
                }
            }
        }
        return out
    }

    /// Number of samples.
    var count: Int { xs.count }

    /// The squared gradient magnitudes `gx² + gy²` (as `init` computes
    /// `gx`, `gy`: central differences times `unit / 2`) of the interior
    /// rows `1 … rows` of `band` (rows of `width` samples; its first and
    /// last rows are their neighbours) at `columns`, row by row, into
    /// `out`. A value that is not finite (a NaN or infinite reference
    /// sample nearby) counts as 0, the weakest.
    static func gradientMagnitudes(_ band: [Float], width w: Int, rows: Int, columns: Range<Int>, unit: Float,
                                   into out: inout [Float]) {
        precondition(rows >= 1 && columns.lowerBound >= 1 && columns.upperBound < w && band.count >= (rows + 2) * w,
                     "gradientMagnitudes: columns \(columns), \(rows) rows of a band of \(band.count) samples, width \(w)")
        let n = columns.count * rows
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(n)
        band.withUnsafeBufferPointer { bp in
            guard let b = bp.baseAddress else { return }
            out.append(contentsOf: repeatElement(0, count: n))
            out.withUnsafeMutableBufferPointer { op in
                guard let o = op.baseAddress else { return }
                var k = 0
                let half = 0.5 * unit
                for r in 1...rows {
                    let up = b + (r - 1) * w, row = b + r * w, down = b + (r + 1) * w
                    // 16 columns at a time (the same operations per lane as
                    // the scalar tail, so the same bits), then the rest.
                    var x = columns.lowerBound
                    while x + 16 <= columns.upperBound {
                        func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
                            UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
                        }
                        let gx = half * (load(row + x + 1) - load(row + x - 1)), gy = half * (load(down + x) - load(up + x))
                        let m = gx * gx + gy * gy
                        // Finite magnitudes are below infinity; NaN compares false.
                        UnsafeMutableRawPointer(o + k).storeBytes(
                            of: m.replacing(with: 0, where: .!(m .< Float.infinity)), as: SIMD16<Float>.self)
                        x += 16
                        k += 16
                    }
                    while x < columns.upperBound {
                        let gx = half * (row[x + 1] - row[x - 1]), gy = half * (down[x] - up[x])
                        let m = gx * gx + gy * gy
                        o[k] = m.isFinite ? m : 0
                        x += 1
                        k += 1
                    }
                }
            }
        }
    }

    /// How many of `values` exceed `threshold`.
    static func count(_ values: UnsafeBufferPointer<Float>, above threshold: Float) -> Int {
        guard let base = values.baseAddress else { return 0 }
        var lanes = SIMD16<Int32>(), i = 0
        let zero = SIMD16<Int32>()
        while i + 16 <= values.count {
            let v = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<Float>.self)
            lanes &+= zero.replacing(with: 1, where: v .> threshold)
            i += 16
        }
        var total = Int(lanes.wrappedSum())
        while i < values.count { if base[i] > threshold { total += 1 }; i += 1 }
        return total
    }

    /// Grid used to spread the gradient-ranked selection over the image.
    static let gridColumns = 16, gridRows = 12

    /// Prepares `plane` (the reference downsampled by `factor`), blurred by
    /// `smoothed`. Interior pixels (one pixel from the edge, where central
    /// differences exist) are all used when there are at most `maxSamples`;
    /// otherwise each grid cell keeps its share of the pixels with the
    /// largest gradient magnitude. The blur and the gradients are made one
    /// band of grid cells at a time, so a 12 MP level needs a few MB per
    /// band beyond `plane`, not four 48 MB planes. The bands are prepared
    /// concurrently (the reference's set-up holds up every frame's
    /// registration) and joined in order: the samples do not depend on the
    /// number of threads.
    init(plane: Plane, factor: Int, coordinates: NormalisedCoordinates, maxSamples: Int) {
        self.factor = factor
        width = plane.width
        height = plane.height
        let m = coordinates.levelMatrix(factor: factor)
        toPixels = m
        let w = plane.width, h = plane.height
        guard w >= 3, h >= 3, let inverse = m.inverse else {
            xs = []; ys = []; values = []; gxs = []; gys = []; mean = 0
            return
        }
        let grid = SampleGrid(plane: plane, inverse: inverse.matrix, unit: Float(m.matrix[0]), maxSamples: maxSamples)
        let prepared = Mutex([BandSamples?](repeating: nil, count: grid.rows))
        DispatchQueue.concurrentPerform(iterations: grid.rows) { cy in
            let band = grid.samples(band: cy)
            prepared.withLock { $0[cy] = band }
        }
        let bands = prepared.withLock { $0 }.compactMap { $0 }
        let sv = bands.flatMap(\.values)
        // Summed in sample order, as one pass over the whole level would.
        var total = 0.0
        for value in sv { total += Double(value) }
        let mu = sv.isEmpty ? 0 : total / Double(sv.count)
        mean = mu
        let muF = Float(mu)
        values = sv.map { $0 - muF }
        xs = bands.flatMap(\.xs); ys = bands.flatMap(\.ys)
        gxs = bands.flatMap(\.gxs); gys = bands.flatMap(\.gys)
    }

    /// One band of grid cells' samples, in scan order: normalised
    /// coordinates, blurred values (the mean not yet removed) and gradients.
    struct BandSamples: Sendable {
        var xs: [Float] = [], ys: [Float] = [], values: [Float] = [], gxs: [Float] = [], gys: [Float] = []
    }

    /// How `init` picks a level's samples: the grid of cells each keeping
    /// its share of the strongest gradients, or every interior pixel.
    struct SampleGrid: Sendable {
        let plane: Plane
        /// This level's pixels → normalised coordinates (row-major).
        let inverse: [Double]
        /// Pixels per normalised unit (gradient conversion).
        let unit: Float
        let maxSamples: Int
        let interior: Int
        /// Whether cells keep only their share (more interior pixels than `maxSamples`).
        let selects: Bool
        let columns: Int, rows: Int

        init(plane: Plane, inverse: [Double], unit: Float, maxSamples: Int) {
            self.plane = plane
            self.inverse = inverse
            self.unit = unit
            self.maxSamples = maxSamples
            let w = plane.width, h = plane.height
            interior = (w - 2) * (h - 2)
            selects = interior > maxSamples
            columns = min(HomographyLevel.gridColumns, w - 2)
            rows = selects ? min(HomographyLevel.gridRows, h - 2) : 1
        }

        /// The samples of grid band `cy` (interior rows `y0 ..< y1`, made
        /// from the blurred rows `y0 − 1 … y1`).
        func samples(band cy: Int) -> BandSamples {
            let w = plane.width, h = plane.height, unit = self.unit, im = inverse
            let y0 = 1 + cy * (h - 2) / rows, y1 = 1 + (cy + 1) * (h - 2) / rows
            var out = BandSamples()
            guard y0 < y1 else { return out }
            let band = HomographyLevel.smoothedRows(plane, (y0 - 1)..<(y1 + 1))
            @inline(__always) func at(_ x: Int, _ y: Int) -> Float { band[(y - y0 + 1) * w + x] }
            @inline(__always) func gradient(_ x: Int, _ y: Int) -> (Float, Float) {
                (0.5 * unit * (at(x + 1, y) - at(x - 1, y)), 0.5 * unit * (at(x, y + 1) - at(x, y - 1)))
            }
            var chosen = [Int](), magnitudes = [Float](), nearTop = [Float]()
            if !selects {
                for y in y0..<y1 { for x in 1..<(w - 1) { chosen.append(y * w + x) } }
            } else {
                for cx in 0..<columns {
                    let x0 = 1 + cx * (w - 2) / columns, x1 = 1 + (cx + 1) * (w - 2) / columns
                    let cellCount = (x1 - x0) * (y1 - y0)
                    let quota = min(cellCount, maxSamples * cellCount / interior)
                    guard quota > 0 else { continue }
                    // The `quota` largest magnitudes: their threshold is
                    // the value a sort would place there
                    // (`MagnitudeSelection.selectNearTop`), ties taken in
                    // scan order.
                    HomographyLevel.gradientMagnitudes(band, width: w, rows: y1 - y0, columns: x0..<x1, unit: unit,
                                                       into: &magnitudes)
                    let threshold = magnitudes.withUnsafeBufferPointer {
                        MagnitudeSelection.selectNearTop($0.baseAddress!, count: cellCount, rank: cellCount - quota,
                                                         scratch: &nearTop)
                    }
                    let cellWidth = x1 - x0
                    magnitudes.withUnsafeBufferPointer { mp in
                        let above = HomographyLevel.count(mp, above: threshold)
                        var ties = quota - above
                        // Scan order over the cell (its rows one after the other).
                        MagnitudeSelection.forEachIndex(of: mp.baseAddress!, count: cellCount, atOrAbove: threshold) { i in
                            let m = mp[i]
                            if m > threshold || ties > 0 {
                                if m == threshold { ties -= 1 }
                                chosen.append((y0 + i / cellWidth) * w + x0 + i % cellWidth)
                            }
                        }
                    }
                }
                chosen.sort()
            }
            out.xs.reserveCapacity(chosen.count); out.ys.reserveCapacity(chosen.count)
            out.values.reserveCapacity(chosen.count)
            out.gxs.reserveCapacity(chosen.count); out.gys.reserveCapacity(chosen.count)
            for i in chosen {
                let x = i % w, y = i / w
                let (gx, gy) = gradient(x, y)
                out.xs.append(Float(im[0] * Double(x) + im[2]))
                out.ys.append(Float(im[4] * Double(y) + im[5]))
                out.values.append(at(x, y))
                out.gxs.append(gx)
                out.gys.append(gy)
            }
            return out
        }
    }

    /// Outcome of refining on one level.
    struct Outcome: Sendable {
        /// Iterations run.
        var iterations: Int
        /// Weighted RMS residual of the last iteration (sample units).
        var residualRMS: Double
        /// True when the last update moved no corner by `threshold` or more
        /// (false when the level stopped at `maxIterations`).
        var converged: Bool
    }

    /// Robust inverse-compositional Gauss–Newton on this level.
    ///
    /// Model: `F(W(x)) ≈ gain · R(x) + offset` for every sample `x`, with
    /// `W` (`warp`, normalised reference → normalised frame coordinates) the
    /// homography, linearised as `R(W(Δp; x)) ≈ R(x) + ∇R · ∂W/∂p · Δp`
    /// (Baker & Matthews 2004, with the photometric terms of their
    /// "simultaneous" variant solved jointly: a 10 × 10 system). Each
    /// iteration samples `frame` at the warped points (bilinearly, as if
    /// blurred by `smoothed` first: `SmoothedBilinear`), estimates
    /// σ̂ from the median absolute residual, weights the samples by `loss`,
    /// solves the normal equations, and composes `W ← W ∘ W(Δp)⁻¹`.
    /// Samples warped outside the frame are skipped.
    ///
    /// - Parameters:
    ///   - corners: normalised image corners; the level stops when an update
    ///     moves none of them by more than `threshold` normalised units.
    /// - Returns: nil when the system is singular or the warp degenerates.
    func refine<Frame: SamplePlane>(frame: Frame, warp: inout Transform, gain: inout Double, offset: inout Double,
                loss: HomographyOptions.RobustLoss, maxIterations: Int, threshold: Double,
                corners: [(Double, Double)]) -> Outcome? {
        let n = count
        guard n >= 16, frame.width >= 2, frame.height >= 2 else { return nil }
        var residuals = [Float](repeating: 0, count: n)
        var scratch = [Float]()
        scratch.reserveCapacity(4096)
        var localOffset = offset + gain * mean      // offset for mean-removed values
        var rms = 0.0
        var iteration = 0
        var hessian = [Double](), hessianGain = 1.0
        var converged = false
        while iteration < maxIterations {
            iteration += 1
            let p = toPixels.concatenating(warp).matrix.map { Float($0) }
            let a = Float(gain), b = Float(localOffset)
            let valid = sampleResiduals(frame: frame, matrix: p, gain: a, offset: b, into: &residuals)
            guard valid >= 16 else { return nil }
            let sigma = max(1e-6, 1.4826 * Double(medianAbsolute(residuals, valid: valid, scratch: &scratch)))
            let full = iteration == 1 || iteration == 3 || hessian.isEmpty
            guard let (solved, wr2, wsum) = normalEquations(residuals: residuals, gain: a, loss: loss, sigma: Float(sigma),
                                                            hessian: full),
                  wsum > 0 else { return nil }
            var system = solved
            if full {
                hessian = system.matrix; hessianGain = gain
            } else {
                // Reuse the Hessian (IRLS fixed point unchanged), rescaled for the gain.
                let s = gain / hessianGain
                for k in 0..<10 { for l in 0..<10 {
                    let f = (k < 8 ? s : 1) * (l < 8 ? s : 1)
                    system.matrix[k * 10 + l] = hessian[k * 10 + l] * f
                } }
            }
            rms = (wr2 / wsum).squareRoot()
            guard let step = HomographyLinearAlgebra.solveSymmetric(system.matrix, system.rhs, n: 10) else { return nil }
            let d = Transform(matrix: [1 + step[0], step[1], step[2],
                                       step[3], 1 + step[4], step[5],
                                       step[6], step[7], 1])
            guard let dInverse = d.inverse else { return nil }
            let updated = warp.concatenating(dInverse)
            guard updated.matrix.allSatisfy(\.isFinite) else { return nil }
            var motion = 0.0
            for c in corners {
                let p0 = warp.apply(x: c.0, y: c.1), p1 = updated.apply(x: c.0, y: c.1)
                motion = max(motion, ((p1.x - p0.x) * (p1.x - p0.x) + (p1.y - p0.y) * (p1.y - p0.y)).squareRoot())
            }
            guard motion.isFinite else { return nil }
            warp = updated
            gain += step[8]
            localOffset += step[9]
            guard gain.isFinite, gain > 1e-3 else { return nil }
            if motion < threshold { converged = true; break }
        }
        offset = localOffset - gain * mean
        return Outcome(iterations: iteration, residualRMS: rms, converged: converged)
    }

    /// Samples `frame` at every warped sample point (`matrix`: normalised
    /// reference → frame level pixels, row-major Float), bilinearly as if
    /// blurred by `smoothed` first, and stores `F − gain·R − offset`, or NaN
    /// where the point falls outside the frame's pixel-centre extent.
    /// Returns how many are valid.
    private func sampleResiduals<Frame: SamplePlane>(frame: Frame, matrix m: [Float], gain: Float, offset: Float,
                                                     into residuals: inout [Float]) -> Int {
        let fw = frame.width, fh = frame.height
        let maxX = Float(fw - 1), maxY = Float(fh - 1)
        let n = count
        var valid = 0
        let m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5], m6 = m[6], m7 = m[7], m8 = m[8]
        frame.withSampleBuffer { f in
            let sampler = SmoothedBilinear(f, width: fw, height: fh)
            xs.withUnsafeBufferPointer { xp in
            ys.withUnsafeBufferPointer { yp in
            values.withUnsafeBufferPointer { vp in
            residuals.withUnsafeMutableBufferPointer { rp in
                for i in 0..<n {
                    let x = xp[i], y = yp[i]
                    let d = m6 * x + m7 * y + m8
                    let u = (m0 * x + m1 * y + m2) / d
                    let v = (m3 * x + m4 * y + m5) / d
                    guard u >= 0, u <= maxX, v >= 0, v <= maxY else { rp[i] = .nan; continue }
                    rp[i] = sampler.value(u: u, v: v) - gain * vp[i] - offset
                    valid += 1
                }
            }}}}
        }
        return valid
    }

    /// Median of |r| over (at most ≈ 4096 evenly strided) valid residuals,
    /// selected bit by bit (`MagnitudeSelection`: no data-dependent branch).
    private func medianAbsolute(_ residuals: [Float], valid: Int, scratch: inout [Float]) -> Float {
        scratch.removeAll(keepingCapacity: true)
        let stride = max(1, valid / 4096)
        var skip = 0
        for r in residuals where !r.isNaN {
            if skip == 0 { scratch.append(abs(r)); skip = stride }
            skip -= 1
        }
        guard !scratch.isEmpty else { return 0 }
        return scratch.withUnsafeBufferPointer { MagnitudeSelection.select($0.baseAddress!, count: $0.count, rank: $0.count / 2) }
    }

    /// Weighted normal equations `Σ w JᵀJ θ = Σ w Jᵀ r` with the Jacobian
    /// row `J = [gain · ∇R · ∂W/∂p (8), R − mean, 1]`. Also returns Σ w r²
    /// and Σ w. Sixteen samples at a time, one per lane: each entry of the
    /// upper triangle of `[J r]ᵀ W [J r]` (or, without the Hessian, its last
    /// column) is a 16-lane multiply-add per 16 samples, summed in `Float`
    /// over 512 samples and then across the lanes into `Double`. A NaN
    /// residual (a point outside the frame) and a sample the loss weights 0
    /// add nothing.
    private func normalEquations(residuals: [Float], gain: Float, loss: HomographyOptions.RobustLoss,
                                 sigma: Float, hessian: Bool) -> (system: (matrix: [Double], rhs: [Double]), Double, Double)? {
        typealias Lanes = SIMD16<Float>
        let n = count
        var wr2 = 0.0, wsum = 0.0
        var big = [Double](repeating: 0, count: 11 * 11)
        let (kind, tuning): (Int, Float) = {
            switch loss {
            case .none: return (0, 1)
            case .huber(let k): return (1, Float(max(1e-3, k)))
            case .tukey(let c): return (2, Float(max(1e-3, c)))
            }
        }()
        let c = tuning * sigma, cInv = 1 / (tuning * sigma)
        // acc[k · 11 + l], l ≥ k: Σ w J[k] J[l] per lane (the rest unused).
        let acc = UnsafeMutablePointer<Lanes>.allocate(capacity: 11 * 11), j = UnsafeMutablePointer<Lanes>.allocate(capacity: 11)
        defer { acc.deallocate(); j.deallocate() }
        acc.initialize(repeating: Lanes(), count: 11 * 11)
        j.initialize(repeating: Lanes(), count: 11)
        func flush() {
            for k in 0..<11 {
                for l in k..<11 where hessian || l == 10 || (k == 9 && l == 9) {
                    big[k * 11 + l] += Double(acc[k * 11 + l].sum())
                }
            }
            acc.update(repeating: Lanes(), count: 11 * 11)
        }
        let zero = Lanes(), one = Lanes(repeating: 1), g = Lanes(repeating: gain)
        xs.withUnsafeBufferPointer { xp in
        ys.withUnsafeBufferPointer { yp in
        values.withUnsafeBufferPointer { vp in
        gxs.withUnsafeBufferPointer { gxp in
        gys.withUnsafeBufferPointer { gyp in
        residuals.withUnsafeBufferPointer { rp in
            @inline(__always) func lanes(_ p: UnsafeBufferPointer<Float>, _ i: Int, _ valid: Int) -> Lanes {
                if valid == 16 { return UnsafeRawPointer(p.baseAddress! + i).loadUnaligned(as: Lanes.self) }
                var v = Lanes()
                for l in 0..<valid { v[l] = p[i + l] }
                return v
            }
            var i = 0, blocks = 0
            while i < n {
                let valid = min(16, n - i)
                var r = lanes(rp, i, valid)
                // NaN residuals (and the lanes past the end, 0 with weight 0) add nothing.
                let inside = (r .== r) .& (Lanes(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) .< Float(valid))
                r = zero.replacing(with: r, where: inside)
                var wt: Lanes
                switch kind {
                case 0: wt = one
                case 1:
                    let ar = r.replacing(with: zero - r, where: r .< zero)
                    wt = one.replacing(with: c / ar, where: ar .> c)
                default:
                    let q = r * cInv
                    let q2 = q * q
                    let u = one - q2
                    wt = zero.replacing(with: u * u, where: q2 .< one)
                }
                wt = zero.replacing(with: wt, where: inside)
                let x = lanes(xp, i, valid), y = lanes(yp, i, valid)
                let gx = lanes(gxp, i, valid) * g, gy = lanes(gyp, i, valid) * g
                let t = gx * x + gy * y
                (j[0], j[1], j[2], j[3], j[4], j[5]) = (gx * x, gx * y, gx, gy * x, gy * y, gy)
                (j[6], j[7], j[8], j[9], j[10]) = (zero - t * x, zero - t * y, lanes(vp, i, valid), one, r)
                if hessian {
                    for k in 0..<11 {
                        let wk = wt * j[k]
                        for l in k..<11 { acc[k * 11 + l] += wk * j[l] }
                    }
                } else {
                    // Only the last column (Σ w J r, Σ w r² at 10, 10) and Σ w at 9, 9.
                    let wr = wt * r
                    for k in 0..<11 { acc[k * 11 + 10] += wr * j[k] }
                    acc[9 * 11 + 9] += wt
                }
                i += 16
                blocks += 1
                if blocks == 32 { flush(); blocks = 0 }
            }
        }}}}}}
        flush()
        // Σ w r² and Σ w sit in the last row/column (J[9] = 1, J[10] = r).
        wr2 = big[10 * 11 + 10]
        wsum = big[9 * 11 + 9]
        var matrix = [Double](repeating: 0, count: 100), rhs = [Double](repeating: 0, count: 10)
        for k in 0..<10 {
            for l in 0..<10 { matrix[k * 10 + l] = k <= l ? big[k * 11 + l] : big[l * 11 + k] }
            rhs[k] = big[k * 11 + 10]
        }
        guard matrix.allSatisfy(\.isFinite), rhs.allSatisfy(\.isFinite) else { return nil }
        return ((matrix, rhs), wr2, wsum)
    }
}

// References
// - S. Baker and I. Matthews, "Lucas-Kanade 20 years on: a unifying
//   framework", International Journal of Computer Vision 56(3), 221–255,
//   2004 (inverse compositional algorithm; simultaneous appearance terms).
// - G. D. Evangelidis and E. Z. Psarakis, "Parametric image alignment using
//   enhanced correlation coefficient maximization", IEEE Trans. Pattern
//   Analysis and Machine Intelligence 30(10), 1858–1865, 2008 (photometric
//   invariance of direct alignment).
// - F. Dellaert and R. Collins, "Fast image-based tracking by selective
//   pixel integration", ICCV Workshop on Frame-Rate Vision, 1999 (using
//   only the highest-gradient pixels).
// - P. J. Huber, Robust Statistics, Wiley, 1981; P. W. Holland and
//   R. E. Welsch, "Robust regression using iteratively reweighted
//   least-squares", Communications in Statistics 6(9), 813–827, 1977
//   (Huber and Tukey weights, MAD scale).
