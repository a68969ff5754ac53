/// The weighted sum of a few shifted rows, the inner loop of separable
/// resampling (the translation warp's two passes, chroma upsampling, the
/// direct refinement's resampling).
public enum TapSum {
    /// `out[i] = Σ_t weights[t] · inputs[t][i]` for `i < count` (8-bit
    /// inputs unscaled, as `PlaneSample.float`), summed in tap order (so
    /// every tap count gives the same floats as a loop per tap), with the
    /// 6- and 4-tap kernels kept in registers: one pass that loads each
    /// input once and stores once, instead of a pass per tap.
    ///
    /// Each term after the first is added with `accumulate`: fused
    /// (one rounding) in builds for CPUs with FMA, else a multiply and an
    /// add, so the sums' last bits depend on the build, never on the data's
    /// split into rows or threads.
    @inlinable @inline(__always)
    package static func combine<S: PlaneSample>(_ inputs: [UnsafePointer<S>], weights w: UnsafeBufferPointer<Float>,
                                              count: Int, into out: UnsafeMutablePointer<Float>) {
        switch inputs.count {
        case 6:
            let (p0, p1, p2, p3, p4, p5) = (inputs[0], inputs[1], inputs[2], inputs[3], inputs[4], inputs[5])
            let (w0, w1, w2, w3, w4, w5) = (w[0], w[1], w[2], w[3], w[4], w[5])
            for i in 0..<count {
                var a = w0 * p0[i].float
                accumulate(&a, w1, p1[i].float)
                accumulate(&a, w2, p2[i].float)
                accumulate(&a, w3, p3[i].float)
                accumulate(&a, w4, p4[i].float)
                accumulate(&a, w5, p5[i].float)
                out[i] = a
            }
        case 4:
            let (p0, p1, p2, p3) = (inputs[0], inputs[1], inputs[2], inputs[3])
            let (w0, w1, w2, w3) = (w[0], w[1], w[2], w[3])
            for i in 0..<count {
                var a = w0 * p0[i].float
                accumulate(&a, w1, p1[i].float)
                accumulate(&a, w2, p2[i].float)
                accumulate(&a, w3, p3[i].float)
                out[i] = a
            }
        default:
            for i in 0..<count { out[i] = w[0] * inputs[0][i].float }
            for t in 1..<inputs.count {
                let wt = w[t], p = inputs[t]
                for i in 0..<count { accumulate(&out[i], wt, p[i].float) }
            }
        }
    }

    /// `a += w · x`. Fused where the build targets a CPU with FMA (the
    /// Makefile defines `FUSED_MULTIPLY_ADD` with its AVX2 and AVX-512
    /// targets; every arm64 CPU has it), so the resampling issues half the
    /// floating-point instructions. Elsewhere it multiplies and adds, because
    /// Swift would call the C library's `fmaf` for each sample and the loops
    /// would stop vectorising (docs/performance.md).
    @inlinable @inline(__always)
    public static func accumulate(_ a: inout Float, _ w: Float, _ x: Float) {
        #if FUSED_MULTIPLY_ADD || arch(arm64)
        a.addProduct(w, x)
        #else
        a += w * x
        #endif
    }
}
