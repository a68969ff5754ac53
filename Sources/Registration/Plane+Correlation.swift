/// Normalised cross-correlation of two planes under a translation.
extension SamplePlane {
    /// Zero-mean normalised cross-correlation of `self(x, y)` with
    /// `other(x + dx, y + dy)` (bilinear) over their overlap, on an even grid
    /// of about `samples` points; −1 when the sizes differ or the overlap is
    /// empty or flat.
    ///
    /// Unlike a phase-correlation peak height, it is comparable across
    /// shifts, so it ranks candidate shifts of the same frame. Cost: one
    /// pass over `samples` points (no allocation).
    func normalisedCorrelation(with other: Plane, dx: Double, dy: Double, samples: Int) -> Double {
        guard other.width == width, other.height == height, width >= 2, height >= 2 else { return -1 }
        let x0 = Swift.max(0, Int((-dx).rounded(.up))), x1 = Swift.min(width - 2, Int((Double(width - 2) - dx).rounded(.down)))
        let y0 = Swift.max(0, Int((-dy).rounded(.up))), y1 = Swift.min(height - 2, Int((Double(height - 2) - dy).rounded(.down)))
        guard x1 > x0, y1 > y0 else { return -1 }
        let area = Double((x1 - x0 + 1) * (y1 - y0 + 1))
        let step = Swift.max(1, Int((area / Double(Swift.max(1, samples))).squareRoot().rounded(.down)))
        let ix = Int(dx.rounded(.down)), iy = Int(dy.rounded(.down))
        let fx = Float(dx - Double(ix)), fy = Float(dy - Double(iy))
        let w = width, h = height
        var n = 0.0, sa = 0.0, sb = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0
        let unit = Sample.unit
        withSampleBuffer { f in
            other.pixels.withUnsafeBufferPointer { r in
                var y = y0
                while y <= y1 {
                    var ra: Float = 0, rb: Float = 0, raa: Float = 0, rbb: Float = 0, rab: Float = 0
                    var cnt = 0
                    let ry = y + iy
                    // x + ix ∈ [0, w − 2] and ry ∈ [0, h − 2] by the bounds above.
                    let lo = Swift.max(x0, -ix), hi = Swift.min(x1, w - 2 - ix)
                    if ry >= 0 && ry <= h - 2 && lo <= hi {
                        var x = lo
                        while x <= hi {
                            let a = f[y * w + x].float * unit
                            let k = ry * w + x + ix
                            let top = r[k] + fx * (r[k + 1] - r[k])
                            let bot = r[k + w] + fx * (r[k + w + 1] - r[k + w])
                            let b = top + fy * (bot - top)
                            ra += a; rb += b; raa += a * a; rbb += b * b; rab += a * b
                            cnt += 1
                            x += step
                        }
                    }
                    n += Double(cnt); sa += Double(ra); sb += Double(rb)
                    saa += Double(raa); sbb += Double(rbb); sab += Double(rab)
                    y += step
                }
            }
        }
        guard n > 1 else { return -1 }
        let va = saa - sa * sa / n, vb = sbb - sb * sb / n, cov = sab - sa * sb / n
        guard va > 0, vb > 0 else { return -1 }
        let c = cov / (va * vb).squareRoot()
        return c.isFinite ? c : -1
    }
}
