/// Bilinear sampling of a plane as if it had first been blurred by the
/// separable binomial [1 2 1]/4 with clamped edges (`HomographyLevel.smoothed`),
/// without making the blurred plane: the two filters fold into one 4 × 4
/// separable tap set per point,
/// `[(1 − t)/4, (2 − t)/4, (1 + t)/4, t/4]` on columns (rows) `i − 1 … i + 2`
/// for `u = i + t`. So a frame level is read only at the refinement's sample
/// points (16 loads each) and a 12 MP level costs the same as a 1 MP one.
///
/// Contract: for `u ∈ [0, width − 1]`, `v ∈ [0, height − 1]`, the value
/// equals bilinear sampling of `HomographyLevel.smoothed(plane)` at `(u, v)`
/// up to float rounding (`HomographyTests` measures ≤ 1e-6 of the range),
/// in the plane's values (`PlaneSample.unit` folded in). Planes need sides ≥ 2.
struct SmoothedBilinear<Sample: PlaneSample> {
    private let base: UnsafeBufferPointer<Sample>
    private let width: Int, height: Int

    /// Reads `base` (row-major, `width × height`) for as long as it lives.
    init(_ base: UnsafeBufferPointer<Sample>, width: Int, height: Int) {
        precondition(width >= 2 && height >= 2 && base.count >= width * height,
                     "SmoothedBilinear needs a plane of at least 2 × 2 (got \(width) × \(height), \(base.count) samples)")
        self.base = base
        self.width = width
        self.height = height
    }

    /// The four taps for fraction `t` (they sum to 1).
    @inline(__always)
    private static func taps(_ t: Float) -> SIMD4<Float> {
        SIMD4<Float>(1 - t, 2 - t, 1 + t, t) * 0.25
    }

    /// Samples `i … i + 3` of the row at `p` as floats, unscaled: one
    /// vector load for floats and bytes (the branch folds away once
    /// specialised), four scalar loads for any other sample type.
    @inline(__always)
    private static func four(_ p: UnsafePointer<Sample>) -> SIMD4<Float> {
        if Sample.self == Float.self {
            return UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
        } else if Sample.self == UInt8.self {
            return SIMD4<Float>(UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self))
        }
        return SIMD4<Float>(p[0].float, p[1].float, p[2].float, p[3].float)
    }

    /// The smoothed bilinear value at `(u, v)`; the caller keeps
    /// `0 ≤ u ≤ width − 1` and `0 ≤ v ≤ height − 1`. Inside the plane the
    /// four rows are weighted as vectors and summed across once.
    @inline(__always)
    func value(u: Float, v: Float) -> Float {
        let ix = Swift.min(Int(u), width - 2), iy = Swift.min(Int(v), height - 2)
        let wx = Self.taps(u - Float(ix)), wy = Self.taps(v - Float(iy))
        let interior = ix >= 1 && ix + 2 < width && iy >= 1 && iy + 2 < height
        if interior, let origin = base.baseAddress {
            let p = origin + ((iy - 1) * width + ix - 1)
            var rows = wy[0] * Self.four(p)
            rows += wy[1] * Self.four(p + width)
            rows += wy[2] * Self.four(p + 2 * width)
            rows += wy[3] * Self.four(p + 3 * width)
            return (rows * wx).sum() * Sample.unit
        }
        var sum: Float = 0
        for k in 0..<4 {
            let y = Swift.min(Swift.max(iy - 1 + k, 0), height - 1) * width
            var s = SIMD4<Float>()
            for j in 0..<4 { s[j] = base[y + Swift.min(Swift.max(ix - 1 + j, 0), width - 1)].float }
            sum += wy[k] * (s * wx).sum()
        }
        return sum * Sample.unit
    }
}
