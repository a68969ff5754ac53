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
    ///
    /// One pass over the input: each output row sums its `factor` input rows
    /// into a row accumulator (SIMD), then sums `factor` neighbours of it, so
    /// it costs about one read of the plane.
    public func downsampled(by factor: Int) -> Plane {
        guard factor > 1 else { return self }
        let ow = width / factor, oh = height / factor
        guard ow > 0, oh > 0 else { return Plane(width: ow, height: oh) }
        var accumulator = [Float](repeating: 0, count: ow * factor)
        let out = [Float](unsafeUninitializedCapacity: ow * oh) { dst, initialised in
            pixels.withUnsafeBufferPointer { src in
                accumulator.withUnsafeMutableBufferPointer { acc in
                    guard let s = src.baseAddress, let a = acc.baseAddress, let d = dst.baseAddress else { return }
                    for oy in 0..<oh {
                        Self.downsampleBand(s + oy * factor * width, width: width, factor: factor,
                                            accumulator: a, into: d + oy * ow)
                    }
                }
            }
            initialised = ow * oh
        }
        return Plane(width: ow, height: oh, pixels: out)
    }

    /// A `width × height` plane whose rows `produce` writes, `factor` rows
    /// at a time (`produce(rows, first)` fills rows `rows`, row
    /// `rows.lowerBound` at `first`), and that plane `downsampled(by:
    /// factor)`, bit for bit, each band shrunk while it is still in cache
    /// instead of read again from memory afterwards (a 12 MP plane is 48 MB).
    package static func producing(width: Int, height: Int, downsampledBy factor: Int,
                                 rows produce: (Range<Int>, UnsafeMutablePointer<Float>) -> Void)
        -> (full: Plane, small: Plane) {
        let f = max(1, factor)
        let ow = f > 1 ? width / f : width, oh = f > 1 ? height / f : height
        let shrinks = f > 1 && ow > 0 && oh > 0
        var accumulator = [Float](repeating: 0, count: shrinks ? ow * f : 0)
        var small = [Float](repeating: 0, count: shrinks ? ow * oh : 0)
        let full = [Float](unsafeUninitializedCapacity: width * height) { dst, initialised in
            guard let d = dst.baseAddress else { initialised = 0; return }
            var y = 0
            if shrinks {
                accumulator.withUnsafeMutableBufferPointer { acc in
                    small.withUnsafeMutableBufferPointer { out in
                        guard let a = acc.baseAddress, let o = out.baseAddress else { return }
                        for oy in 0..<oh {
                            produce(y..<(y + f), d + y * width)
                            downsampleBand(d + y * width, width: width, factor: f, accumulator: a, into: o + oy * ow)
                            y += f
                        }
                    }
                }
            }
            if y < height { produce(y..<height, d + y * width) }
            initialised = width * height
        }
        let plane = Plane(width: width, height: height, pixels: full)
        if f <= 1 { return (plane, plane) }
        return (plane, shrinks ? Plane(width: ow, height: oh, pixels: small) : Plane(width: ow, height: oh))
    }

    /// One output row of `downsampled(by: factor)`: the `factor` rows from
    /// `first` (row stride `width`) summed into `accumulator`, then groups of
    /// `factor` summed and scaled into `out` (`width / factor` values).
    @inline(__always)
    private static func downsampleBand(_ first: UnsafePointer<Float>, width: Int, factor: Int,
                                       accumulator a: UnsafeMutablePointer<Float>,
                                       into out: UnsafeMutablePointer<Float>) {
        let ow = width / factor, used = ow * factor
        a.update(from: first, count: used)
        for dy in 1..<factor { addRow(first + dy * width, into: a, count: used) }
        sumGroups(a, groups: ow, size: factor, scale: 1 / Float(factor * factor), into: out)
    }

    /// `acc[i] += row[i]` for `i < count` (8 lanes at a time).
    @inline(__always)
    private static func addRow(_ row: UnsafePointer<Float>, into acc: UnsafeMutablePointer<Float>, count: Int) {
        typealias V = SIMD8<Float>
        var i = 0
        while i + 8 <= count {
            let v = UnsafeRawPointer(acc + i).loadUnaligned(as: V.self) + UnsafeRawPointer(row + i).loadUnaligned(as: V.self)
            UnsafeMutableRawPointer(acc + i).storeBytes(of: v, as: V.self)
            i += 8
        }
        while i < count { acc[i] += row[i]; i += 1 }
    }

    /// `out[g] = scale · Σ_{k < size} acc[g · size + k]` for `g < groups`.
    @inline(__always)
    private static func sumGroups(_ acc: UnsafePointer<Float>, groups: Int, size: Int, scale: Float,
                                  into out: UnsafeMutablePointer<Float>) {
        if size == 8 {
            for g in 0..<groups { out[g] = UnsafeRawPointer(acc + 8 * g).loadUnaligned(as: SIMD8<Float>.self).sum() * scale }
            return
        }
        if size == 4 {
            for g in 0..<groups { out[g] = UnsafeRawPointer(acc + 4 * g).loadUnaligned(as: SIMD4<Float>.self).sum() * scale }
            return
        }
        for g in 0..<groups {
            let p = acc + g * size
            var t: Float = 0
            for k in 0..<size { t += p[k] }
            out[g] = t * scale
        }
    }

    /// Mean sample value (0 for an empty plane), accumulated in `Double`.
    public var mean: Double {
        guard count > 0 else { return 0 }
        var s = 0.0
        for v in pixels { s += Double(v) }
        return s / Double(count)
    }
}
