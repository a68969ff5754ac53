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
    /// solves the 2 × 2 normal equations for the update, sampling the frame
    /// bilinearly. Stays within 1 px of `start`; returns `start` when the
    /// tile's gradients give a singular system.
    func subpixel(x0: Int, y0: Int, from start: (dx: Double, dy: Double), iterations: Int) -> (dx: Double, dy: Double) {
        // Interior pixels only (central differences need both neighbours).
        let xs = max(1, x0), xe = min(width - 1, x0 + size), ys = max(1, y0), ye = min(height - 1, y0 + size)
        guard xe > xs, ye > ys else { return start }
        var hxx = 0.0, hxy = 0.0, hyy = 0.0
        for y in ys..<ye {
            for x in xs..<xe {
                let gx = Double(reference[y * width + x + 1] - reference[y * width + x - 1]) / 2
                let gy = Double(reference[(y + 1) * width + x] - reference[(y - 1) * width + x]) / 2
                hxx += gx * gx; hxy += gx * gy; hyy += gy * gy
            }
        }
        let det = hxx * hyy - hxy * hxy
        guard det > 1e-12 * max(1, (hxx + hyy) * (hxx + hyy)), det.isFinite else { return start }
        var d = start
        for _ in 0..<max(0, iterations) {
            var bx = 0.0, by = 0.0, n = 0
            for y in ys..<ye {
                for x in xs..<xe {
                    guard let g = sample(x: Double(x) + d.dx, y: Double(y) + d.dy) else { continue }
                    let e = Double(g - reference[y * width + x])
                    let gx = Double(reference[y * width + x + 1] - reference[y * width + x - 1]) / 2
                    let gy = Double(reference[(y + 1) * width + x] - reference[(y - 1) * width + x]) / 2
                    bx += gx * e; by += gy * e; n += 1
                }
            }
            guard 2 * n >= (xe - xs) * (ye - ys) else { return start }
            let ux = -(hyy * bx - hxy * by) / det, uy = -(hxx * by - hxy * bx) / det
            d.dx = min(max(d.dx + ux, start.dx - 1), start.dx + 1)
            d.dy = min(max(d.dy + uy, start.dy - 1), start.dy + 1)
            if abs(ux) < 0.01 && abs(uy) < 0.01 { break }
        }
        return d
    }

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
