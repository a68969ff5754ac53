#if canImport(Glibc)
import Glibc
#endif

/// Robust direct refinement of a translation: Gauss–Newton (Lucas–Kanade)
/// on the intensities over (almost) the whole overlap, with iteratively
/// reweighted least squares (IRLS) so moving objects, hot pixels and JPEG
/// artefacts get little weight.
///
/// It minimises, over the shift `d` (full-resolution px),
///
///     Σₓ ρ( frame(x − d) − reference(x) )
///
/// for `x` on the reference grid (`frame(x, y)` shows `reference(x + dx, y + dy)`,
/// so `frame(x − d) = reference(x)`). The frame is resampled with a
/// separable 6-tap kernel (Lanczos-3 corrected to reproduce cubics, see
/// `kernelWeights`); for a pure translation the taps are the same at every
/// pixel, so one resampling costs 2 × 6 multiply-adds per pixel.
/// (Catmull-Rom cubic measured 2–3× the error on the street bursts: its
/// phase error biases the shift by up to 0.05 px at edges.)
///
/// The update uses the reference gradient (central differences), not the
/// resampled frame's: the inverse compositional form of Baker & Matthews,
/// which for a translation is the same to first order, and whose gradient
/// never needs resampling. With `r(x) = frame(x − d) − reference(x) ≈ ∇R·(d* − d)`,
/// `d ← d + H⁻¹ Σ w ∇R r`, `H = Σ w ∇R ∇Rᵀ`. The weights `w = ψ(r)/r` are
/// Huber's on residuals scaled by a MAD noise estimate recomputed each
/// iteration (see `huberK`).
///
/// Sampling: every row of the overlap up to `maxPixels`; beyond that, evenly
/// spread full-width bands of rows. The first iterations (from the coarse
/// peak, up to a pixel or so off) use a quarter of that budget; only the
/// last two or three, within 0.02 px, use all of it. Always full resolution: box-downscaling
/// (by 3 for 12 MP) aliases the texture, and the shift stops being a shift
/// (measured 0.066 px RMS at 4000×3000 against 0.009 px at full resolution).
///
/// Thread safety: immutable after `init`; `refine` allocates its own scratch,
/// so it may run concurrently.
///
/// Extending to homographies (later): the parameter vector grows to 8, the
/// Jacobian row per pixel becomes `∇R · ∂W/∂p` and the normal matrix 8×8;
/// the resampling taps then vary per pixel, so the separable row passes give
/// way to per-pixel kernels.
struct DirectRefinement: Sendable {
    /// Most pixels the refinement samples per iteration. Larger overlaps are
    /// covered by evenly spread bands of full-width rows. 1 MP: a 1280×960
    /// frame uses almost every row, a 12 MP one a band of 16 rows every ~45.
    static let maxPixels = 1_000_000
    /// Height in rows of one sampled band (when not every row is used).
    static let bandHeight = 16
    /// Gauss–Newton iterations at most (typically 3–6 are needed).
    static let maxIterations = 12
    /// Huber threshold in robust sigmas (95 % efficiency for Gaussian noise).
    /// Huber, not Tukey's biweight: the biweight rejects the large residuals
    /// of still-misaligned edges as outliers and then creeps (≈ 0.8× per
    /// iteration) towards its optimum; on the street bursts, Huber-only
    /// converged in 3–6 iterations and was as accurate or more (0.009 px RMS
    /// against 0.007–0.012 px with two or four biweight iterations appended).
    static let huberK: Float = 1.345
    /// Stop when an update moves the shift by less than this (px). The
    /// iteration contracts ≈ 0.3–0.5× per step, so the remaining error is
    /// then well under 0.001 px.
    static let convergence = 1e-3
    /// The first iterations use about `maxPixels / earlyFraction` samples
    /// (evenly spread bands, like the full set) until a step is below
    /// `earlyConvergence`; the full set then only has to move the shift by
    /// the difference of the two sets' optima (≤ 0.01–0.02 px), 2–3
    /// iterations.
    static let earlyFraction = 4
    /// Step (px) at which the early, sparser iterations hand over to the full set.
    static let earlyConvergence = 0.02
    /// Bounds of the over-relaxation factor (see `iterate`).
    static let relaxationRange = 0.5...3.0
    /// How far (px, per axis) the estimate may move from the starting shift;
    /// the sampled region keeps this margin inside the frame. Beyond it the
    /// start was wrong and the refinement gives up.
    static let slack = 2
    /// Residuals sampled (evenly strided) for the median absolute deviation.
    static let madSamples = 32_768
    /// Floor of the robust sigma (sample units): keeps the weights defined
    /// for noise-free, perfectly matching planes.
    static let minimumSigma: Float = 1e-6

    /// Reference width in pixels.
    let width: Int
    /// Reference height in pixels.
    let height: Int
    /// The reference (shares the caller's storage; never copied or mutated).
    let reference: Plane

    /// Keeps the reference; the gradient is formed on the fly from it.
    init(reference: Plane) {
        width = reference.width
        height = reference.height
        self.reference = reference
    }

    /// Half the number of interpolation taps (Lanczos-`taps` kernel, ≤ 4).
    static let taps = 3
    /// The corrected kernel reproduces polynomials up to this degree exactly
    /// (see `kernelWeights`).
    static let exactDegree = 3

    /// Lanczos-`taps` weights for taps at offsets `−taps + 1 … taps` and
    /// fraction `t` ∈ [0, 1), corrected by the least change (in the sense
    /// `w' = w + Σⱼ λⱼ xₖʲ`) that makes the kernel reproduce polynomials up to
    /// `exactDegree` exactly: `Σ w'ₖ = 1`, `Σ w'ₖ xₖʲ = 0` for `1 ≤ j ≤ 3`,
    /// `xₖ = k − taps + 1 − t`. Plain Lanczos-3 has a first moment of up to
    /// 0.02 px and biased the shift of smooth noise-free texture by
    /// 0.004–0.006 px; the cubic-exact kernel by ≤ 0.00015 px, and on the
    /// street bursts it also beat Lanczos-4 and the fully polynomial (Lagrange) kernel.
    static func kernelWeights(_ t: Double) -> SIMD8<Float> {
        let a = taps, n = 2 * a
        var w = [Double](repeating: 0, count: n)
        var x = [Double](repeating: 0, count: n)
        for k in 0..<n {
            x[k] = Double(k - a + 1) - t
            if abs(x[k]) < 1e-12 { w[k] = 1 } else {
                let px = Double.pi * x[k]
                w[k] = Double(a) * sin(px) * sin(px / Double(a)) / (px * px)
            }
        }
        // w' = w + Σⱼ λⱼ xʲ (j ≤ degree) with Σ w' xʲ = [j == 0]: a small
        // symmetric positive definite system, solved by Gaussian elimination.
        let m = Self.exactDegree + 1
        var g = [Double](repeating: 0, count: m * m), rhs = [Double](repeating: 0, count: m)
        for i in 0..<m {
            for j in 0..<m { for k in 0..<n { g[i * m + j] += pow(x[k], Double(i + j)) } }
            var mom = 0.0
            for k in 0..<n { mom += w[k] * pow(x[k], Double(i)) }
            rhs[i] = (i == 0 ? 1 : 0) - mom
        }
        for c in 0..<m {
            for r in (c + 1)..<m {
                let f = g[r * m + c] / g[c * m + c]
                for j in c..<m { g[r * m + j] -= f * g[c * m + j] }
                rhs[r] -= f * rhs[c]
            }
        }
        var lambda = [Double](repeating: 0, count: m)
        for r in stride(from: m - 1, through: 0, by: -1) {
            var v = rhs[r]
            for j in (r + 1)..<m { v -= g[r * m + j] * lambda[j] }
            lambda[r] = v / g[r * m + r]
        }
        var out = SIMD8<Float>()
        for k in 0..<n {
            var v = w[k]
            for j in 0..<m { v += lambda[j] * pow(x[k], Double(j)) }
            out[k] = Float(v)
        }
        return out
    }
    /// Refines the shift `(dx, dy)` (full-resolution px, within a pixel or so
    /// of the truth) of `frame`. Returns nil when the overlap is too small,
    /// the weighted normal matrix is singular (blank or one-dimensional
    /// texture) or the estimate runs off by more than `slack`; the caller
    /// then keeps its own estimate.
    ///
    /// `masks` (the masked path of `TranslationRegistrar`): pixels whose
    /// reference sample or gradient, or whose frame taps, touch a fill get no
    /// weight; nil keeps every pixel (and the arithmetic of the unmasked path).
    func refine<F: SamplePlane>(_ frame: F, dx: Double, dy: Double,
                                masks: Masks? = nil) -> (dx: Double, dy: Double)? {
        guard frame.width == width, frame.height == height else { return nil }
        // u = −d: the frame is sampled at x + u.
        let u0x = -dx, u0y = -dy
        let slack = Double(Self.slack), t = Double(Self.taps)
        // Taps floor(x + u) − taps + 1 … + taps must lie in the frame for
        // |u − u0| ≤ slack; the gradient needs 1 ≤ x ≤ W − 2.
        let x0 = max(1, Int((t - u0x + slack).rounded(.up)))
        let x1 = min(width - 2, Int((Double(width) - 1 - t - u0x - slack).rounded(.down)))
        let y0 = max(1, Int((t - u0y + slack).rounded(.up)))
        let y1 = min(height - 2, Int((Double(height) - 1 - t - u0y - slack).rounded(.down)))
        guard x1 - x0 >= 8, y1 - y0 >= 8 else { return nil }
        let rw = x1 - x0 + 1
        let full = Self.sampledRows(y0...y1, width: rw, budget: Self.maxPixels)
        let early = Self.sampledRows(y0...y1, width: rw, budget: Self.maxPixels / Self.earlyFraction)
        var state = Iterate(startX: u0x, startY: u0y, ux: u0x, uy: u0y)
        var residual = [Float](repeating: 0, count: full.count * rw)
        if early.count < full.count {
            guard iterate(frame, rows: early, x0: x0, width: rw, until: Self.earlyConvergence,
                          state: &state, residual: &residual, masks: masks) else { return nil }
            state.previous = nil        // the next sample set has its own optimum: no ratio across it
        }
        guard iterate(frame, rows: full, x0: x0, width: rw, until: Self.convergence,
                      state: &state, residual: &residual, masks: masks) else { return nil }
        return (-state.ux, -state.uy)
    }

    /// Where the refinement may look (1 = data), full resolution, row-major;
    /// nil: everywhere. Build with `init(reference:frame:)`.
    struct Masks: Sendable {
        /// The reference's valid pixels, the fill grown by 1 px (central-difference gradient).
        let reference: [UInt8]?
        /// The frame's valid pixels, the fill grown by `taps` px (the
        /// interpolation reads `taps` px either side of a sample).
        let frame: [UInt8]?

        /// From the fill masks of the reference and the frame (either may be
        /// nil); `reference` already grown (`grownReference`, made once per reference).
        init(grownReference reference: [UInt8]?, frame: FillMask?) {
            self.reference = reference
            self.frame = frame?.dilated(by: DirectRefinement.taps).valid
        }

        /// The reference's validity as `reference` wants it: its fill grown by 1 px.
        static func grownReference(_ mask: FillMask?) -> [UInt8]? { mask?.dilated(by: 1).valid }
    }

    /// The Gauss–Newton state: the shift `u` (= −d) the frame is sampled
    /// at, the previous raw step and the over-relaxation factor.
    struct Iterate {
        /// The starting shift: the iteration may not leave ±`slack` around it.
        let startX: Double
        let startY: Double
        var ux: Double
        var uy: Double
        var previous: (Double, Double)?
        var relaxation = 1.0
    }

    /// Gauss–Newton iterations on the sample rows `rows` (columns
    /// `x0 ..< x0 + rw`) until a step moves less than `until` px (or
    /// `maxIterations`); false when the normal matrix is singular or the
    /// shift leaves the `slack` box around `state`'s start.
    ///
    /// Over-relaxation: each raw step `e` is applied as `λ e`. Between
    /// successive steps the iteration contracts by `ρ = e_k·e_{k−1} / |e_{k−1}|²`
    /// (0.3–0.35 on the street bursts: the Huber-weighted pixels of moving
    /// objects enter `H` with the reference's gradient but change with the
    /// frame's), so `λ` is set to `1 / m` with `m = (1 − ρ) / λ_prev`, the
    /// step that would have landed on the fixed point; clamped to
    /// `relaxationRange`. The fixed point is the same; it is reached in 2–4
    /// iterations where plain steps take 4–8.
    private func iterate<F: SamplePlane>(_ frame: F, rows: [Int], x0: Int, width rw: Int, until tolerance: Double,
                         state: inout Iterate, residual: inout [Float], masks: Masks?) -> Bool {
        let a = Self.taps
        let count = rows.count * rw
        var column = [Float](repeating: 0, count: rw + 2 * a)
        let stride = max(1, count / Self.madSamples)
        var sample = [Float](repeating: 0, count: (count + stride - 1) / stride)
        let slack = Double(Self.slack)
        var validity: [Float]? = nil
        for _ in 0..<Self.maxIterations {
            let kx = Int(state.ux.rounded(.down)), ky = Int(state.uy.rounded(.down))
            let wx = Self.kernelWeights(state.ux - Double(kx))
            let wy = Self.kernelWeights(state.uy - Double(ky)) * F.Sample.unit
            let verticalWeights = (0..<(2 * a)).map { wy[$0] }
            // Tap pointers, rewritten per row rather than allocated per row.
            var taps = [UnsafePointer<F.Sample>]()
            taps.reserveCapacity(2 * a)
            // Pass 1: residuals r = frame(x + u) − reference(x).
            frame.withSampleBuffer { fbuf in
              verticalWeights.withUnsafeBufferPointer { vw in
                reference.pixels.withUnsafeBufferPointer { rbuf in
                    residual.withUnsafeMutableBufferPointer { res in
                        column.withUnsafeMutableBufferPointer { col in
                            guard let fp = fbuf.baseAddress, let rp = rbuf.baseAddress,
                                  let op = res.baseAddress, let cp = col.baseAddress else { return }
                            for (j, y) in rows.enumerated() {
                                // The 2·taps rows around y + ky, 8-bit samples
                                // unscaled (`unit` is in the weights).
                                let src = fp + (y + ky - a + 1) * width + (x0 + kx - a + 1)
                                taps.removeAll(keepingCapacity: true)
                                for t in 0..<(2 * a) { taps.append(src + t * width) }
                                TapSum.combine(taps, weights: vw, count: rw + 2 * a - 1, into: cp)
                                Self.horizontalTaps(cp, weights: wx, minus: rp + y * width + x0, count: rw, into: op + j * rw)
                            }
                        }
                    }
                }
              }
            }
            // Masked: no residual (and, below, no weight) where a fill is read.
            if let masks { validity = Self.validity(masks, rows: rows, x0: x0, width: rw, shift: (kx, ky),
                                                    planeWidth: width, zeroing: &residual) }
            // Robust scale: 1.4826 · median |r| over an even subsample.
            residual.withUnsafeBufferPointer { res in
                sample.withUnsafeMutableBufferPointer { sp in
                    for j in 0..<sp.count { sp[j] = abs(res[j * stride]) }
                }
            }
            let sigma = max(Self.minimumSigma, 1.4826 * Self.medianOfMagnitudes(&sample))
            // Pass 2: weighted normal equations with the reference gradient.
            var n = NormalEquations()
            column.withUnsafeMutableBufferPointer { scratch in
                residual.withUnsafeBufferPointer { res in
                    reference.pixels.withUnsafeBufferPointer { rbuf in
                        guard let op = res.baseAddress, let rp = rbuf.baseAddress, let sp = scratch.baseAddress else { return }
                        if let validity {
                            validity.withUnsafeBufferPointer { vb in
                                guard let vp = vb.baseAddress else { return }
                                for (j, y) in rows.enumerated() {
                                    n.accumulate(residuals: op + j * rw, reference: rp + y * width + x0, rowStride: width,
                                                 count: rw, inverseSigma: 1 / sigma, scratch: sp, validity: vp + j * rw)
                                }
                            }
                            return
                        }
                        for (j, y) in rows.enumerated() {
                            n.accumulate(residuals: op + j * rw, reference: rp + y * width + x0, rowStride: width,
                                         count: rw, inverseSigma: 1 / sigma, scratch: sp)
                        }
                    }
                }
            }
            guard let (ex, ey) = n.solve() else { return false }
            if let (px, py) = state.previous, px * px + py * py > Self.convergence * Self.convergence {
                let rho = (ex * px + ey * py) / (px * px + py * py)
                let m = (1 - rho) / state.relaxation
                state.relaxation = m > 0 ? min(Self.relaxationRange.upperBound, max(Self.relaxationRange.lowerBound, 1 / m)) : 1
            }
            state.previous = (ex, ey)
            // e = H⁻¹ b ≈ u + d*, so u ← u − λ e.
            let sx = state.relaxation * ex, sy = state.relaxation * ey
            state.ux -= sx
            state.uy -= sy
            guard abs(state.ux - state.startX) <= slack, abs(state.uy - state.startY) <= slack else { return false }
            if max(abs(sx), abs(sy)) < tolerance { break }
        }
        return true
    }

    /// 1 where sample `(x0 + i, rows[j])` of the reference and the frame taps
    /// around `(x0 + i + kx, rows[j] + ky)` lie outside every fill, else 0
    /// (and its residual set to 0), for `i < width`, row-major by `j`.
    private static func validity(_ masks: Masks, rows: [Int], x0: Int, width rw: Int, shift: (Int, Int),
                                 planeWidth w: Int, zeroing residual: inout [Float]) -> [Float] {
        var out = [Float](repeating: 1, count: rows.count * rw)
        for (j, y) in rows.enumerated() {
            for i in 0..<rw {
                let x = x0 + i
                let ok = (masks.reference?[y * w + x] ?? 1) != 0
                    && (masks.frame?[(y + shift.1) * w + x + shift.0] ?? 1) != 0
                if !ok { out[j * rw + i] = 0; residual[j * rw + i] = 0 }
            }
        }
        return out
    }

    /// At most `budget / width` rows of `range`, as evenly spread bands of
    /// `bandHeight` rows (all rows when they fit).
    static func sampledRows(_ range: ClosedRange<Int>, width: Int, budget: Int) -> [Int] {
        let maxRows = max(bandHeight, budget / max(1, width))
        guard range.count > maxRows else { return Array(range) }
        let bands = max(1, maxRows / bandHeight)
        let span = range.count - bandHeight
        var rows: [Int] = []
        rows.reserveCapacity(bands * bandHeight)
        for b in 0..<bands {
            let start = range.lowerBound + (bands == 1 ? span / 2 : b * span / (bands - 1))
            rows += start..<(start + bandHeight)
        }
        return rows
    }

    /// `out[i] = Σₖ weights[k] · src[i + k] − minus[i]`, `i < count`.
    @inline(__always)
    static func horizontalTaps(_ src: UnsafePointer<Float>, weights: SIMD8<Float>, minus: UnsafePointer<Float>,
                               count: Int, into out: UnsafeMutablePointer<Float>) {
        let taps = 2 * DirectRefinement.taps
        var i = 0
        while i + 8 <= count {
            var acc = -UnsafeRawPointer(minus + i).loadUnaligned(as: SIMD8<Float>.self)
            for k in 0..<taps {
                acc += weights[k] * UnsafeRawPointer(src + i + k).loadUnaligned(as: SIMD8<Float>.self)
            }
            UnsafeMutableRawPointer(out + i).storeBytes(of: acc, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            var acc = -minus[i]
            for k in 0..<taps { acc += weights[k] * src[i + k] }
            out[i] = acc
            i += 1
        }
    }

    /// Huber IRLS weights `min(1, kσ/|r|)` of `count` residuals
    /// (`k = huberK`), written to `w`.
    @inline(__always)
    static func huberWeights(_ res: UnsafePointer<Float>, count: Int, inverseSigma: Float,
                             into w: UnsafeMutablePointer<Float>) {
        let k = huberK
        for i in 0..<count {
            let z = abs(res[i] * inverseSigma)
            w[i] = k / (z > k ? z : k)
        }
    }

    /// The 2×2 weighted normal equations `H e = b` of the translation,
    /// `H = Σ w ∇R∇Rᵀ`, `b = Σ w ∇R r`, accumulated row by row in `Double`.
    struct NormalEquations {
        var hxx = 0.0, hxy = 0.0, hyy = 0.0, bx = 0.0, by = 0.0

        /// Adds one row: residuals `res[i]`, reference row `ref` (the
        /// gradient is the central difference, so `ref[-1]`, `ref[count]` and
        /// the rows `±rowStride` must exist); Huber weights with threshold
        /// `huberK·σ`, `σ = 1 / inverseSigma`; `weights` is scratch space for
        /// `count` of them.
        @inline(__always)
        mutating func accumulate(residuals res: UnsafePointer<Float>, reference ref: UnsafePointer<Float>,
                                 rowStride: Int, count: Int, inverseSigma: Float,
                                 scratch weights: UnsafeMutablePointer<Float>,
                                 validity: UnsafePointer<Float>? = nil) {
            typealias V = SIMD8<Float>
            var sxx = V(), sxy = V(), syy = V(), sbx = V(), sby = V()
            let half = V(repeating: 0.5)
            // Weights first, in a plain elementwise loop (vectorised by the compiler).
            DirectRefinement.huberWeights(res, count: count, inverseSigma: inverseSigma, into: weights)
            if let validity { for i in 0..<count { weights[i] *= validity[i] } }
            func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
            var i = 0
            while i + 8 <= count {
                let r = load(res + i), w = load(weights + i)
                let gx = half * (load(ref + i + 1) - load(ref + i - 1))
                let gy = half * (load(ref + i + rowStride) - load(ref + i - rowStride))
                let wgx = w * gx, wgy = w * gy
                sxx += wgx * gx
                sxy += wgx * gy
                syy += wgy * gy
                sbx += wgx * r
                sby += wgy * r
                i += 8
            }
            var txx = sxx.sum(), txy = sxy.sum(), tyy = syy.sum(), tbx = sbx.sum(), tby = sby.sum()
            while i < count {
                let r = res[i], w = weights[i]
                let gx = 0.5 * (ref[i + 1] - ref[i - 1]), gy = 0.5 * (ref[i + rowStride] - ref[i - rowStride])
                txx += w * gx * gx; txy += w * gx * gy; tyy += w * gy * gy
                tbx += w * gx * r; tby += w * gy * r
                i += 1
            }
            hxx += Double(txx); hxy += Double(txy); hyy += Double(tyy)
            bx += Double(tbx); by += Double(tby)
        }

        /// `H⁻¹ b`, or nil when `H` is (numerically) singular.
        func solve() -> (Double, Double)? {
            let det = hxx * hyy - hxy * hxy
            guard hxx > 0, hyy > 0, det.isFinite, det > 1e-9 * hxx * hyy else { return nil }
            let ex = (hyy * bx - hxy * by) / det, ey = (hxx * by - hxy * bx) / det
            guard ex.isFinite, ey.isFinite else { return nil }
            return (ex, ey)
        }
    }

    /// The median of `values` (reorders them); 0 for an empty array.
    /// Quickselect (Hoare partition), expected linear time.
    static func median(_ values: inout [Float]) -> Float {
        let n = values.count
        guard n > 0 else { return 0 }
        return values.withUnsafeMutableBufferPointer { select($0, n / 2) }
    }

    /// The element of rank `k` (0-based, `k < v.count`) of `v`, which is
    /// reordered. Quickselect (Hoare partition), expected linear time.
    static func select(_ v: UnsafeMutableBufferPointer<Float>, _ k: Int) -> Float {
        var lo = 0, hi = v.count - 1
        while lo < hi {
            let pivot = v[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while v[i] < pivot { i += 1 }
                while v[j] > pivot { j -= 1 }
                if i <= j { v.swapAt(i, j); i += 1; j -= 1 }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
        return v[k]
    }

    /// Histogram buckets of `medianOfMagnitudes`: the top 11 bits of a
    /// non-negative float (the exponent and 3 mantissa bits).
    static let magnitudeBuckets = 2048

    /// The median of `values`, every one ≥ 0 (absolute values), exactly as
    /// `median` finds it; `values` may be reordered. 0 for an empty array.
    ///
    /// For non-negative floats the bit pattern grows with the value, so one
    /// histogram of its top 11 bits finds the bucket that holds the median,
    /// and quickselect runs only on that bucket's few hundred values: a
    /// partition over all 32 768 MAD samples would branch on the data and
    /// mispredict, while the histogram pass has no data-dependent branch.
    static func medianOfMagnitudes(_ values: inout [Float]) -> Float {
        let n = values.count
        guard n > 0 else { return 0 }
        let k = n / 2
        let shift: UInt32 = 20
        var counts = [Int32](repeating: 0, count: magnitudeBuckets)
        return values.withUnsafeMutableBufferPointer { v in
            counts.withUnsafeMutableBufferPointer { c in
                for x in v { c[Int(min(x.bitPattern >> shift, UInt32(magnitudeBuckets - 1)))] &+= 1 }
                var below = 0, bucket = 0
                while below + Int(c[bucket]) <= k { below += Int(c[bucket]); bucket += 1 }
                // Gather the bucket's values to the front, then select among them.
                var m = 0
                for i in 0..<n where Int(min(v[i].bitPattern >> shift, UInt32(magnitudeBuckets - 1))) == bucket {
                    v.swapAt(i, m)
                    m += 1
                }
                return select(UnsafeMutableBufferPointer(rebasing: v[0..<m]), k - below)
            }
        }
    }
}

// References
// - B. D. Lucas and T. Kanade, "An iterative image registration technique
//   with an application to stereo vision", Proc. IJCAI 1981, pp. 674–679.
// - S. Baker and I. Matthews, "Lucas-Kanade 20 years on: a unifying
//   framework", International Journal of Computer Vision 56(3), 221–255, 2004
//   (inverse compositional algorithm; robust weighting in part 2).
// - P. J. Huber, "Robust estimation of a location parameter", Annals of
//   Mathematical Statistics 35(1), 73–101, 1964.
// - A. E. Beaton and J. W. Tukey, "The fitting of power series, meaning
//   polynomials, illustrated on band-spectroscopic data", Technometrics 16(2),
//   147–185, 1974 (the biweight, measured and not used: see `huberK`).
// - C. E. Duchon, "Lanczos filtering in one and two dimensions", Journal of
//   Applied Meteorology 18(8), 1016–1022, 1979 (the Lanczos kernel).
// - R. G. Keys, "Cubic convolution interpolation for digital image
//   processing", IEEE Trans. ASSP 29(6), 1153–1160, 1981 (Catmull-Rom,
//   measured and not used).
