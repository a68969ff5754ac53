/// Simple resampling helpers on planes.
extension Plane {
    /// The plane shrunk by an integer `factor` with a box (area) average:
    /// output pixel `(X, Y)` is the mean of input pixels
    /// `[factor·X, factor·X + factor) × [factor·Y, factor·Y + factor)`.
    ///
    /// The output is `width / factor` × `height / factor` (rounded down; a
    /// ragged right/bottom margin is dropped). `factor <= 1` returns `self`.
    /// A pixel centre `X` of the output sits at input coordinate
    /// `factor·X + (factor − 1) / 2`.
    public func downsampled(by factor: Int) -> Plane {
        guard factor > 1 else { return self }
        let ow = width / factor, oh = height / factor
        var out = Plane(width: ow, height: oh)
        guard ow > 0, oh > 0 else { return out }
        let scale = 1 / Float(factor * factor)
        let w = width
        pixels.withUnsafeBufferPointer { src in
            out.pixels.withUnsafeMutableBufferPointer { dst in
                for oy in 0..<oh {
                    let orow = oy * ow
                    for dy in 0..<factor {
                        let srow = (oy * factor + dy) * w
                        for ox in 0..<ow {
                            var s: Float = 0
                            let base = srow + ox * factor
                            for dx in 0..<factor { s += src[base + dx] }
                            dst[orow + ox] += s
                        }
                    }
                    for ox in 0..<ow { dst[orow + ox] *= scale }
                }
            }
        }
        return out
    }

    /// The sub-plane `[x, x + width) × [y, y + height)`; samples outside
    /// `self` take the nearest edge value (clamp). An empty `self` gives zeros.
    public func cropped(x: Int, y: Int, width cw: Int, height ch: Int) -> Plane {
        var out = Plane(width: max(0, cw), height: max(0, ch))
        guard width > 0, height > 0, cw > 0, ch > 0 else { return out }
        let w = width, h = height
        pixels.withUnsafeBufferPointer { src in
            out.pixels.withUnsafeMutableBufferPointer { dst in
                for r in 0..<ch {
                    let sy = Swift.min(Swift.max(y + r, 0), h - 1) * w
                    for c in 0..<cw {
                        dst[r * cw + c] = src[sy + Swift.min(Swift.max(x + c, 0), w - 1)]
                    }
                }
            }
        }
        return out
    }

    /// Mean sample value (0 for an empty plane), accumulated in `Double`.
    public var mean: Double {
        guard count > 0 else { return 0 }
        var s = 0.0
        for v in pixels { s += Double(v) }
        return s / Double(count)
    }
}
