/// The pixel loops of `TileAligner` on one pyramid level: a reference and
/// a frame of the same size, read through pointers valid for the caller's
/// scope, and the square tiles of `size` pixels compared between them.
///
/// Tile rows are read eight floats at a time (`SIMD8<Float>`) with a
/// scalar tail, and summed per lane, so a cost or sum may differ from a
/// left-to-right scalar sum by float rounding. `scratch` holds
/// `scratchCount(size:)` floats for the subpixel steps; it belongs to the
/// caller and serves one tile at a time.
struct TilePatch {
    let reference: UnsafePointer<Float>
    let frame: UnsafePointer<Float>
    let width: Int, height: Int
    /// Tile side in pixels.
    let size: Int
    /// Working memory of `subpixel`: gradients, residuals and their magnitudes.
    let scratch: UnsafeMutablePointer<Float>

    /// Floats of scratch that tiles of side `size` need.
    static func scratchCount(size: Int) -> Int { 5 * size * size }

    typealias Lanes = SIMD8<Float>

    @inline(__always)
    private static func load(_ p: UnsafePointer<Float>) -> Lanes {
        UnsafeRawPointer(p).loadUnaligned(as: Lanes.self)
    }

    /// `|v|` per lane by clearing the sign bits (the standard library's
    /// `pointwiseMax(v, -v)` compiled to a call and a branch per lane).
    @inline(__always)
    private static func magnitude(_ v: Lanes) -> Lanes {
        unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF, to: Lanes.self)
    }

    /// The sum over rows `ys..<ye` and columns `xs..<xe` of `lanes(i)`
    /// (eight pixels from index `i = y · width + x`) and `scalar(i)` (one).
    @inline(__always)
    private func sum(xs: Int, xe: Int, ys: Int, ye: Int, lanes: (Int) -> Lanes, scalar: (Int) -> Float) -> Float {
        var acc = Lanes(), tail: Float = 0
        for y in ys..<ye {
            var i = y * width + xs
            let end = y * width + xe
            while i + Lanes.scalarCount <= end { acc += lanes(i); i += Lanes.scalarCount }
            while i < end { tail += scalar(i); i += 1 }
        }
        return acc.sum() + tail
    }

    /// Standard deviation of the reference over the tile at `(x0, y0)`
    /// (two passes: the mean, then the squared deviations from it).
    func deviation(x0: Int, y0: Int) -> Double {
        let xe = min(width, x0 + size), ye = min(height, y0 + size)
        guard xe > x0, ye > y0, (xe - x0) * (ye - y0) > 1 else { return 0 }
        let n = Float((xe - x0) * (ye - y0)), r = reference
        let mean = sum(xs: x0, xe: xe, ys: y0, ye: ye, lanes: { Self.load(r + $0) }, scalar: { r[$0] }) / n
        let squares = sum(xs: x0, xe: xe, ys: y0, ye: ye, lanes: { i in
            let d = Self.load(r + i) - mean
            return d * d
        }, scalar: { i in
            let d = r[i] - mean
            return d * d
        })
        return Double(squares / n).squareRoot()
    }

    /// Mean absolute (or, `squared`, squared) difference between the
    /// reference tile at `(x0, y0)` and the frame displaced by whole pixels
    /// `(dx, dy)`, over the tile's pixels whose displaced position lies in
    /// the frame; infinity when fewer than half of them do.
    func cost(x0: Int, y0: Int, dx: Int, dy: Int, squared: Bool) -> Float {
        let xs = max(x0, -dx), xe = min(x0 + size, width - dx, width)
        let ys = max(y0, -dy), ye = min(y0 + size, height - dy, height)
        guard xe > xs, ye > ys, 2 * (xe - xs) * (ye - ys) >= size * size else { return .infinity }
        let r = reference, f = frame + dy * width + dx
        let total = squared
            ? sum(xs: xs, xe: xe, ys: ys, ye: ye, lanes: { i in
                let d = Self.load(f + i) - Self.load(r + i)
                return d * d
            }, scalar: { i in
                let d = f[i] - r[i]
                return d * d
            })
            : sum(xs: xs, xe: xe, ys: ys, ye: ye, lanes: { i in
                Self.magnitude(Self.load(f + i) - Self.load(r + i))
            }, scalar: { i in abs(f[i] - r[i]) })
        return total / Float((xe - xs) * (ye - ys))
    }

    /// Lucas–Kanade steps from `start` (pixels): each linearises the frame
    /// around the reference tile (its central-difference gradients) and
    /// solves the 2 × 2 weighted normal equations for the update, sampling
    /// the frame bilinearly. The weights are Tukey's biweight of each
    /// residual at `tukeyC` robust σ (1.4826 · the median absolute
    /// residual), so a passer-by covering part of the tile does not pull
    /// the background's displacement. Stays within 1 px of `start`; returns
    /// `start` when the tile's gradients give a singular system.
    ///
    /// `significance` is the displacement's squared length against its own
    /// noise: `dᵀ H d / σₑ²`, with `H = Σ w ∇R ∇Rᵀ` over the tile and `σₑ²`
    /// the weighted mean squared residual of the last step. Where the true
    /// displacement is 0 it follows roughly a χ² law with 2 degrees of
    /// freedom (the step's covariance is `σₑ² H⁻¹`); infinity when no step
    /// could be measured.
    ///
    /// The tile's pixels are kept in `scratch` as columns of one array
    /// each (gradients, residuals), so each step is a pass of eight lanes.
    func subpixel(x0: Int, y0: Int, from start: (dx: Double, dy: Double),
                  iterations: Int) -> (dx: Double, dy: Double, significance: Double) {
        // Interior pixels only (central differences need both neighbours).
        let xs = max(1, x0), xe = min(width - 1, x0 + size), ys = max(1, y0), ye = min(height - 1, y0 + size)
        guard xe > xs, ye > ys else { return (start.dx, start.dy, .infinity) }
        let count = (xe - xs) * (ye - ys)
        let gx = scratch, gy = scratch + count, residuals = scratch + 2 * count, magnitudes = scratch + 3 * count
        var k = 0
        for y in ys..<ye {
            for x in xs..<xe {
                let i = y * width + x
                gx[k] = (reference[i + 1] - reference[i - 1]) * 0.5
                gy[k] = (reference[i + width] - reference[i - width]) * 0.5
                k += 1
            }
        }
        var d = start
        var last: (hxx: Double, hxy: Double, hyy: Double, variance: Double)?
        for _ in 0..<max(0, iterations) {
            residualsAt(d, xs: xs, xe: xe, ys: ys, ye: ye, into: residuals)
            // Magnitudes of the measured residuals (NaN: the frame has no sample there).
            var measured = 0
            for k in 0..<count where !residuals[k].isNaN {
                magnitudes[measured] = abs(residuals[k])
                measured += 1
            }
            guard 2 * measured >= count else { return (start.dx, start.dy, .infinity) }
            let median = MagnitudeSelection.select(magnitudes, count: measured, rank: measured / 2,
                                                   mantissaBits: Self.scaleMantissaBits)
            let c = Self.tukeyC * 1.4826 * Double(median)
            let h = Self.weightedSums(gx: gx, gy: gy, residuals: residuals, count: count,
                                      inverseC: c > 0 ? Float(1 / c) : 0)
            let det = h.hxx * h.hyy - h.hxy * h.hxy
            guard det > 1e-12 * max(1, (h.hxx + h.hyy) * (h.hxx + h.hyy)), det.isFinite, h.weights > 0 else {
                return (start.dx, start.dy, .infinity)
            }
            last = (h.hxx, h.hxy, h.hyy, h.squares / h.weights)
            let ux = -(h.hyy * h.bx - h.hxy * h.by) / det, uy = -(h.hxx * h.by - h.hxy * h.bx) / det
            d.dx = min(max(d.dx + ux, start.dx - 1), start.dx + 1)
            d.dy = min(max(d.dy + uy, start.dy - 1), start.dy + 1)
            if abs(ux) < 0.01 && abs(uy) < 0.01 { break }
        }
        guard let h = last, h.variance > 0 else { return (d.dx, d.dy, .infinity) }
        let quadratic = h.hxx * d.dx * d.dx + 2 * h.hxy * d.dx * d.dy + h.hyy * d.dy * d.dy
        return (d.dx, d.dy, quadratic / h.variance)
    }

    /// The tile's mean absolute difference with the frame sampled
    /// bilinearly at offset `d` (pixels), over the interior pixels that
    /// `subpixel` measures; infinity when fewer than half of them have a
    /// frame sample.
    func cost(x0: Int, y0: Int, at d: (dx: Double, dy: Double)) -> Float {
        let xs = max(1, x0), xe = min(width - 1, x0 + size), ys = max(1, y0), ye = min(height - 1, y0 + size)
        guard xe > xs, ye > ys else { return .infinity }
        let count = (xe - xs) * (ye - ys)
        let residuals = scratch + 2 * count
        residualsAt(d, xs: xs, xe: xe, ys: ys, ye: ye, into: residuals)
        var total: Float = 0, measured = 0
        for k in 0..<count where !residuals[k].isNaN {
            total += abs(residuals[k])
            measured += 1
        }
        return 2 * measured >= count ? total / Float(measured) : .infinity
    }

    /// Tukey's biweight constant of the subpixel steps, in robust σ (95 %
    /// efficiency on Gaussian noise).
    static let tukeyC = 4.685

    /// Mantissa bits of the residuals' median that set Tukey's scale: 8
    /// (within 0.4 %), half the selection's passes of a full-precision one.
    static let scaleMantissaBits = 8

    /// Frame minus reference over rows `ys..<ye`, columns `xs..<xe`, the
    /// frame sampled bilinearly at `(x + d.dx, y + d.dy)`, row by row into
    /// `out`; NaN where that lies outside the frame's pixel-centre extent.
    /// The displacement is the same for the whole tile, so are the
    /// bilinear weights: where every sample lies inside, rows are read
    /// eight at a time without a bounds test.
    private func residualsAt(_ d: (dx: Double, dy: Double), xs: Int, xe: Int, ys: Int, ye: Int,
                             into out: UnsafeMutablePointer<Float>) {
        let fx = d.dx.rounded(.down), fy = d.dy.rounded(.down)
        let ix = Int(fx), iy = Int(fy)
        guard xs + ix >= 0, xe + ix <= width - 1, ys + iy >= 0, ye + iy <= height - 1 else {
            var k = 0
            for y in ys..<ye {
                for x in xs..<xe {
                    out[k] = sample(x: Double(x) + d.dx, y: Double(y) + d.dy) - reference[y * width + x]
                    k += 1
                }
            }
            return
        }
        let tx = Float(d.dx - fx), ty = Float(d.dy - fy)
        let w00 = (1 - tx) * (1 - ty), w10 = tx * (1 - ty), w01 = (1 - tx) * ty, w11 = tx * ty
        let n = xe - xs
        var o = out
        for y in ys..<ye {
            let r = reference + y * width + xs, f = frame + (y + iy) * width + xs + ix
            var x = 0
            while x + Lanes.scalarCount <= n {
                let top = Self.load(f + x) * w00 + Self.load(f + x + 1) * w10
                let bottom = Self.load(f + x + width) * w01 + Self.load(f + x + width + 1) * w11
                UnsafeMutableRawPointer(o + x).storeBytes(of: top + bottom - Self.load(r + x), as: Lanes.self)
                x += Lanes.scalarCount
            }
            while x < n {
                o[x] = f[x] * w00 + f[x + 1] * w10 + f[x + width] * w01 + f[x + width + 1] * w11 - r[x]
                x += 1
            }
            o += n
        }
    }

    /// The Tukey-weighted normal equations of one step: `H = Σ w ∇R ∇Rᵀ`,
    /// `b = Σ w ∇R e`, `Σ w e²` and `Σ w` over `count` pixels, each weight
    /// `(1 − u²)²` for `u = e · inverseC` below 1, else 0 (also for NaN
    /// residuals). Summed in float lanes, then in `Double`.
    private static func weightedSums(gx: UnsafePointer<Float>, gy: UnsafePointer<Float>,
                                     residuals: UnsafePointer<Float>, count: Int, inverseC: Float)
        -> (hxx: Double, hxy: Double, hyy: Double, bx: Double, by: Double, squares: Double, weights: Double) {
        var hxx = Lanes(), hxy = Lanes(), hyy = Lanes(), bx = Lanes(), by = Lanes(), squares = Lanes(), weights = Lanes()
        @inline(__always) func add(_ gx: Lanes, _ gy: Lanes, _ e: Lanes) {
            let u = e * inverseC, u2 = u * u
            let inside = u2 .< 1
            let w = ((1 - u2) * (1 - u2)).replacing(with: 0, where: .!inside)
            let we = (w * e).replacing(with: 0, where: .!inside)
            hxx += w * gx * gx; hxy += w * gx * gy; hyy += w * gy * gy
            bx += we * gx; by += we * gy
            squares += we * e.replacing(with: 0, where: .!inside); weights += w
        }
        var k = 0
        while k + Lanes.scalarCount <= count {
            add(load(gx + k), load(gy + k), load(residuals + k))
            k += Lanes.scalarCount
        }
        if k < count {
            // The tail, padded with NaN residuals (weight 0).
            var a = Lanes(), b = Lanes(), e = Lanes(repeating: .nan)
            for j in 0..<(count - k) { a[j] = gx[k + j]; b[j] = gy[k + j]; e[j] = residuals[k + j] }
            add(a, b, e)
        }
        return (Double(hxx.sum()), Double(hxy.sum()), Double(hyy.sum()), Double(bx.sum()), Double(by.sum()),
                Double(squares.sum()), Double(weights.sum()))
    }

    /// The frame sampled bilinearly at `(x, y)`; NaN outside its pixel-centre extent.
    private func sample(x: Double, y: Double) -> Float {
        guard x >= 0, y >= 0, x <= Double(width - 1), y <= Double(height - 1) else { return .nan }
        let ix = min(Int(x), width - 2), iy = min(Int(y), height - 2)
        let tx = Float(x - Double(ix)), ty = Float(y - Double(iy))
        let o = iy * width + ix
        let top = frame[o] + tx * (frame[o + 1] - frame[o])
        let bottom = frame[o + width] + tx * (frame[o + width + 1] - frame[o + width])
        return top + ty * (bottom - top)
    }
}
