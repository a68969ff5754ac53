/// The pixel loops of `TileAligner` on one pyramid level: a reference and
/// a frame of the same size, read through pointers valid for the caller's
/// scope, and the square tiles of `size` pixels compared between them.
struct TilePatch {
    let reference: UnsafePointer<Float>
    let frame: UnsafePointer<Float>
    let width: Int, height: Int
    /// Tile side in pixels.
    let size: Int

    /// Standard deviation of the reference over the tile at `(x0, y0)`.
    func deviation(x0: Int, y0: Int) -> Double {
        var sum = 0.0, squares = 0.0, n = 0
        for y in y0..<min(height, y0 + size) {
            for x in x0..<min(width, x0 + size) {
                let v = Double(reference[y * width + x])
                sum += v; squares += v * v; n += 1
            }
        }
        guard n > 1 else { return 0 }
        let mean = sum / Double(n)
        return max(0, squares / Double(n) - mean * mean).squareRoot()
    }

    /// Mean absolute (or, `squared`, squared) difference between the
    /// reference tile at `(x0, y0)` and the frame displaced by whole pixels
    /// `(dx, dy)`, over the tile's pixels whose displaced position lies in
    /// the frame; infinity when fewer than half of them do.
    func cost(x0: Int, y0: Int, dx: Int, dy: Int, squared: Bool) -> Float {
        let xs = max(x0, -dx), xe = min(x0 + size, width - dx, width)
        let ys = max(y0, -dy), ye = min(y0 + size, height - dy, height)
        guard xe > xs, ye > ys, 2 * (xe - xs) * (ye - ys) >= size * size else { return .infinity }
        var total: Float = 0
        for y in ys..<ye {
            let r = reference + y * width, f = frame + (y + dy) * width + dx
            var row: Float = 0
            if squared {
                for x in xs..<xe { let d = f[x] - r[x]; row += d * d }
            } else {
                for x in xs..<xe { row += abs(f[x] - r[x]) }
            }
            total += row
        }
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
    func subpixel(x0: Int, y0: Int, from start: (dx: Double, dy: Double),
                  iterations: Int) -> (dx: Double, dy: Double, significance: Double) {
        // Interior pixels only (central differences need both neighbours).
        let xs = max(1, x0), xe = min(width - 1, x0 + size), ys = max(1, y0), ye = min(height - 1, y0 + size)
        guard xe > xs, ye > ys else { return (start.dx, start.dy, .infinity) }
        let count = (xe - xs) * (ye - ys)
        var gradients = [(x: Double, y: Double)](), residuals = [Double?]()
        gradients.reserveCapacity(count); residuals.reserveCapacity(count)
        for y in ys..<ye {
            for x in xs..<xe {
                gradients.append((Double(reference[y * width + x + 1] - reference[y * width + x - 1]) / 2,
                                  Double(reference[(y + 1) * width + x] - reference[(y - 1) * width + x]) / 2))
            }
        }
        var d = start
        var last: (hxx: Double, hxy: Double, hyy: Double, variance: Double)?
        for _ in 0..<max(0, iterations) {
            residuals.removeAll(keepingCapacity: true)
            for y in ys..<ye {
                for x in xs..<xe {
                    residuals.append(sample(x: Double(x) + d.dx, y: Double(y) + d.dy)
                        .map { Double($0 - reference[y * width + x]) })
                }
            }
            let measured = residuals.compactMap { $0 }
            guard 2 * measured.count >= count else { return (start.dx, start.dy, .infinity) }
            let absolute = measured.map(abs).sorted()
            let c = Self.tukeyC * 1.4826 * absolute[absolute.count / 2]
            var hxx = 0.0, hxy = 0.0, hyy = 0.0, bx = 0.0, by = 0.0, squares = 0.0, weights = 0.0
            for (g, r) in zip(gradients, residuals) {
                guard let e = r else { continue }
                let u = c > 0 ? e / c : 0
                guard u * u < 1 else { continue }
                let w = (1 - u * u) * (1 - u * u)
                hxx += w * g.x * g.x; hxy += w * g.x * g.y; hyy += w * g.y * g.y
                bx += w * g.x * e; by += w * g.y * e
                squares += w * e * e; weights += w
            }
            let det = hxx * hyy - hxy * hxy
            guard det > 1e-12 * max(1, (hxx + hyy) * (hxx + hyy)), det.isFinite, weights > 0 else {
                return (start.dx, start.dy, .infinity)
            }
            last = (hxx, hxy, hyy, squares / weights)
            let ux = -(hyy * bx - hxy * by) / det, uy = -(hxx * by - hxy * bx) / det
            d.dx = min(max(d.dx + ux, start.dx - 1), start.dx + 1)
            d.dy = min(max(d.dy + uy, start.dy - 1), start.dy + 1)
            if abs(ux) < 0.01 && abs(uy) < 0.01 { break }
        }
        guard let h = last, h.variance > 0 else { return (d.dx, d.dy, .infinity) }
        let quadratic = h.hxx * d.dx * d.dx + 2 * h.hxy * d.dx * d.dy + h.hyy * d.dy * d.dy
        return (d.dx, d.dy, quadratic / h.variance)
    }

    /// Tukey's biweight constant of the subpixel steps, in robust σ (95 %
    /// efficiency on Gaussian noise).
    static let tukeyC = 4.685

    /// The frame sampled bilinearly at `(x, y)`; nil outside its pixel-centre extent.
    private func sample(x: Double, y: Double) -> Float? {
        guard x >= 0, y >= 0, x <= Double(width - 1), y <= Double(height - 1) else { return nil }
        let ix = min(Int(x), width - 2), iy = min(Int(y), height - 2)
        let tx = Float(x - Double(ix)), ty = Float(y - Double(iy))
        let o = iy * width + ix
        let top = frame[o] + tx * (frame[o + 1] - frame[o])
        let bottom = frame[o + width] + tx * (frame[o + width + 1] - frame[o + width])
        return top + ty * (bottom - top)
    }
}
