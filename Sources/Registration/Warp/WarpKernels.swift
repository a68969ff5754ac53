internal import CWarpKernels

// The one file that imports `CWarpKernels`: the general warp's window sums
// (`WindowSum`) and the two-pass warp's lane passes (`LanePass`).

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

/// The two-pass warp's 1-D passes in the C vector kernels of
/// `CWarpKernels` (`warp_column_pass_*`, `warp_row_pass`), each across 16
/// neighbouring outputs with per-lane weights computed from a
/// `LaneWeightPolynomials`' coefficients (`kernel`, its 6-tap frame: the
/// taps at `floor(position) − 2 …`); see `TwoPassWarp` for the geometry.
enum LanePass {
    /// Pass 1 for one output row: for each frame column `u` in `columns`
    /// (at least 16, within the frame), the column sampled at row `row + a +
    /// b·u` (taps clamped to the frame's rows), unscaled, into `lines[p][u]`.
    @inline(__always)
    static func columns<S: PlaneSample>(_ planes: UnsafePointer<UnsafePointer<S>?>, count: Int, frameWidth: Int,
                                        frameHeight: Int, into lines: UnsafePointer<UnsafeMutablePointer<Float>?>,
                                        _ columns: Range<Int>, row: Int, a: Float, b: Float,
                                        kernel: UnsafePointer<Float>) {
        if S.self == UInt8.self {
            planes.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: count) { bytes in
                warp_column_pass_u8(bytes, count, frameWidth, frameHeight, lines, columns.lowerBound, columns.upperBound,
                                    row, a, b, kernel)
            }
        } else {
            planes.withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: count) { floats in
                warp_column_pass_f32(floats, count, frameWidth, frameHeight, lines, columns.lowerBound,
                                     columns.upperBound, row, a, b, kernel)
            }
        }
    }

    /// Pass 2 for one output row: output `x` of `columns` (at least 16)
    /// sampled in each plane's pass-1 line at `u = x + (p0 + x·(p1 − m6·x))
    /// / (q0 + m6·x)`, times `scale`, into `outputs[p][x]`. The 8 loads of
    /// 16 floats start up to 2 px before the lowest tap and end up to 2 px
    /// past the highest, so every line must hold finite floats there
    /// (`TwoPassWarp.pad` each side).
    @inline(__always)
    static func row(_ lines: UnsafePointer<UnsafePointer<Float>?>, count: Int,
                    into outputs: UnsafePointer<UnsafeMutablePointer<Float>?>, _ columns: Range<Int>,
                    p0: Float, p1: Float, m6: Float, q0: Float, kernel: UnsafePointer<Float>, scale: Float) {
        warp_row_pass(lines, count, outputs, columns.lowerBound, columns.upperBound, p0, p1, m6, q0, kernel, scale)
    }

    /// Outputs per group of the passes (`WARP_LANES`).
    static let lanes = Int(WARP_LANES)
    /// Loads per plane and group at most (`WARP_LOADS`).
    static let loads = Int(WARP_LOADS)

    /// The weights the passes give 16 lanes at `offsets` (px from each
    /// lane's integer origin, spanning less than 2 px): `weights[16·t +
    /// lane]` for the 8 loads starting at the returned index (relative to
    /// each lane's origin), 0 past the loads the lanes need. For tests.
    static func weights(offsets: [Float], kernel: LaneWeightPolynomials) -> (first: Int, weights: [Float]) {
        precondition(offsets.count == lanes, "\(lanes) lanes")
        var w = [Float](repeating: 0, count: lanes * loads)
        let first = w.withUnsafeMutableBufferPointer { out in
            warp_lane_weights_at(offsets, kernel.coefficients, out.baseAddress!)
        }
        return (Int(first), w)
    }
}
