internal import CWarpKernels

/// The general warp's weighted sums over a square window of samples. Bytes
/// go through the C vector kernels of `CWarpKernels`, because Swift's
/// generic SIMD conversions compiled an 8-byte row into four 2-sample loads,
/// the C ones into one widening load and a fused multiply-add per row
/// (docs/performance.md, issue 26); floats are loaded as they are.
enum WindowSum {
    /// `Σ_j wy[j] · Σ_i wx[i] · s[j·stride + i]` over 6 × 6 samples,
    /// unscaled (8-bit samples as 0…255). Reads 8 samples of each of the 6
    /// rows (the caller guarantees they are readable) and the 8 weights at
    /// `wx` (the last 2 are ignored).
    @inline(__always)
    static func six<S: PlaneSample>(_ s: UnsafePointer<S>, _ stride: Int, _ wx: UnsafePointer<Float>,
                                    _ wy: UnsafePointer<Float>) -> Float {
        if S.self == UInt8.self {
            return warp_window6_u8(UnsafeRawPointer(s).assumingMemoryBound(to: UInt8.self), stride, wx, wy)
        }
        var acc = SIMD8<Float>()
        for j in 0..<6 { acc += wy[j] * UnsafeRawPointer(s + j * stride).loadUnaligned(as: SIMD8<Float>.self) }
        let p = acc * UnsafeRawPointer(wx).loadUnaligned(as: SIMD8<Float>.self)
        return p.lowHalf.sum() + p[4] + p[5]
    }

    /// The same over 4 × 4 samples (4 read per row, 4 weights each), in
    /// Swift: the bicubic kernel is not the default.
    @inline(__always)
    static func four<S: PlaneSample>(_ s: UnsafePointer<S>, _ stride: Int, _ wx: UnsafePointer<Float>,
                                     _ wy: UnsafePointer<Float>) -> Float {
        var acc = SIMD4<Float>()
        for j in 0..<4 {
            let r = s + j * stride
            acc += wy[j] * SIMD4(r[0].float, r[1].float, r[2].float, r[3].float)
        }
        return (acc * UnsafeRawPointer(wx).loadUnaligned(as: SIMD4<Float>.self)).sum()
    }
}
