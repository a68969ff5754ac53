/// A second registration confidence, independent of the phase-correlation
/// peak height: the share of the overlap whose blocks confirm the shift on
/// their own. Moving objects only remove their own blocks, so it stays high
/// under heavy occlusion, where the peak height (which falls with the square
/// of the shared area) does not.
///
/// The overlap of `frame(x, y)` and `reference(x + dx, y + dy)` (bilinear) is
/// tiled into `blockSize`² blocks. In each block the frame is correlated with
/// the reference after removing, from both, the block's best-fitting plane
/// `a + b·x + c·y` (so offset, gain, vignetting and sky gradients, which
/// unrelated frames of one camera share, do not count). A block confirms the
/// shift when that correlation `c₀` is at least `blockCorrelation` and the
/// same block correlates at least `peakMargin` worse with the reference moved
/// by `probe` px in each of ±x, ±y: the block pins the shift down in both
/// directions. Without the second test, unrelated street scenes from
/// `SceneGen` (façade and kerb edges on the same rows, straight edges that
/// correlate at any shift along them) confirmed 9–18 % of their blocks; with
/// it ≤ 2 %. The measure is confirming blocks / overlap blocks, 0…1; flat
/// blocks (a blank frame, the inside of a flat object) never confirm.
///
/// Measured with the shift the registrar returned (`OverlapAgreementTests`
/// and `StreetLikeRegistrationTests` check the ends of these ranges):
/// - true matches: heavy occlusion (a third of reference and frame under flat
///   objects, shifts ±10 %, 320×240 and 640×480, also with noise σ = 0.05 or
///   gain 0.6) 0.27–0.47; half the frame covered 0.18–0.34; generated street
///   and crowd bursts after JPEG q90 (640×480, 1600×1200, also at half
///   exposure) 0.38–0.64; textured scenes with 3–8 pasted objects 0.77–0.94;
///   a half-occluded frame whose shift came out wrong (score 0.042) 0;
/// - unrelated scenes: other street/crowd scenes of the generator ≤ 0.022,
///   band-limited textures and block scenes ≤ 0.011, unrelated low-contrast
///   scenes under the same vignetting and sky gradient 0; pure noise and
///   blank frames 0.
struct OverlapAgreement {
    /// Block side in pixels of the plane measured on (the coarse search
    /// plane, ≤ 512 px: ≈ 250–800 blocks per overlap).
    static let blockSize = 16
    /// The displacement (px) at which a confirming block must correlate
    /// clearly worse: about the correlation length of detail on the search plane.
    static let probe = 2
    /// Detrended block correlation at which a block agrees. True unoccluded
    /// blocks are at 0.8–1 even with noise σ = 0.05 at full resolution.
    static let blockCorrelation: Float = 0.5
    /// How much lower the correlation must be at every `probe` displacement.
    static let peakMargin: Float = 0.1

    /// The share (0…1) of the `blockSize` blocks of the overlap of
    /// `frame(x, y)` and `reference(x + dx, y + dy)` that confirm the shift;
    /// 0 when the planes differ in size or the overlap holds no block.
    ///
    /// With fill masks (same size as the planes; `FillMask`), a block that
    /// reads any fill, in the frame or in the reference around its shifted
    /// place, is left out of both counts: a fill shared by both frames
    /// would otherwise confirm shift 0 with its edges.
    static func measure(frame: Plane, reference: Plane, dx: Double, dy: Double,
                        frameMask: FillMask? = nil, referenceMask: FillMask? = nil) -> Double {
        guard frame.width == reference.width, frame.height == reference.height,
              dx.isFinite, dy.isFinite else { return 0 }
        let w = frame.width, h = frame.height, b = blockSize, d = probe
        // Frame pixels whose bilinear reference neighbours lie inside the
        // reference, inset by `probe` for the displaced correlations.
        let x0 = max(0, Int((-dx).rounded(.up))), x1 = min(w - 2, Int((Double(w - 2) - dx).rounded(.down)))
        let y0 = max(0, Int((-dy).rounded(.up))), y1 = min(h - 2, Int((Double(h - 2) - dy).rounded(.down)))
        let ow = x1 - x0 + 1 - 2 * d, oh = y1 - y0 + 1 - 2 * d
        guard ow >= b, oh >= b else { return 0 }
        let bx = ow / b, by = oh / b
        let sx = x0 + d + (ow - bx * b) / 2, sy = y0 + d + (oh - by * b) / 2
        let ix = Int(dx.rounded(.down)), iy = Int(dy.rounded(.down))
        let fx = Float(dx - Double(ix)), fy = Float(dy - Double(iy))

        // The reference resampled onto the frame grid over the blocks, plus
        // `probe` px on every side.
        let rw = bx * b + 2 * d, rh = by * b + 2 * d
        var shifted = [Float](repeating: 0, count: rw * rh)
        reference.pixels.withUnsafeBufferPointer { r in
            shifted.withUnsafeMutableBufferPointer { out in
                for j in 0..<rh {
                    let row = (sy - d + j + iy) * w + sx - d + ix
                    for i in 0..<rw {
                        let k = row + i
                        let top = r[k] + fx * (r[k + 1] - r[k])
                        let bottom = r[k + w] + fx * (r[k + w + 1] - r[k + w])
                        out[j * rw + i] = top + fy * (bottom - top)
                    }
                }
            }
        }
        var confirmed = 0, considered = bx * by
        // Whether the block at (p, q) reads only data (always, without masks).
        func readsData(_ p: Int, _ q: Int) -> Bool {
            if let m = frameMask, m.width == w, m.height == h {
                for j in 0..<b { for i in 0..<b where m.valid[(sy + q * b + j) * w + sx + p * b + i] == 0 { return false } }
            }
            if let m = referenceMask, m.width == w, m.height == h {
                // The bilinear taps of the block and its `probe` neighbourhood.
                for j in 0...(b + 2 * d) {
                    let row = (sy + q * b - d + j + iy) * w + sx + p * b - d + ix
                    for i in 0...(b + 2 * d) where m.valid[row + i] == 0 { return false }
                }
            }
            return true
        }
        frame.pixels.withUnsafeBufferPointer { f in
            shifted.withUnsafeBufferPointer { s in
                for q in 0..<by {
                    for p in 0..<bx {
                        if (frameMask != nil || referenceMask != nil) && !readsData(p, q) {
                            considered -= 1
                            continue
                        }
                        let block = Block(frame: f, width: w, x: sx + p * b, y: sy + q * b)
                        let c0 = block.correlation(with: s, width: rw, x: p * b + d, y: q * b + d)
                        guard c0 >= blockCorrelation else { continue }
                        let limit = c0 - peakMargin
                        if block.correlation(with: s, width: rw, x: p * b + 2 * d, y: q * b + d) <= limit,
                           block.correlation(with: s, width: rw, x: p * b, y: q * b + d) <= limit,
                           block.correlation(with: s, width: rw, x: p * b + d, y: q * b + 2 * d) <= limit,
                           block.correlation(with: s, width: rw, x: p * b + d, y: q * b) <= limit {
                            confirmed += 1
                        }
                    }
                }
            }
        }
        return considered > 0 ? Double(confirmed) / Double(considered) : 0
    }

    /// One frame block's detrended sums, correlated against reference blocks.
    /// Coordinates inside the block are centred (`u, v ∈ −(b−1)/2 … (b−1)/2`),
    /// so the constant, `u` and `v` terms of the plane fit are orthogonal.
    private struct Block {
        let frame: UnsafeBufferPointer<Float>
        let width: Int
        let x: Int, y: Int
        /// Subtracted from every sample before summing (the block's first):
        /// the sums then hold the variation, not the level, so a flat block
        /// sums to exactly 0 and no cancellation eats small contrasts.
        let pivot: Float
        let sum: Float, sumU: Float, sumV: Float
        /// Residual sum of squares after the plane fit.
        let variance: Float

        static let n = Float(blockSize * blockSize)
        static let half = Float(blockSize - 1) / 2
        /// Σ u² over the block (= Σ v²).
        static let sumUU: Float = {
            var s: Float = 0
            for i in 0..<blockSize { let u = Float(i) - half; s += u * u }
            return s * Float(blockSize)
        }()

        init(frame: UnsafeBufferPointer<Float>, width: Int, x: Int, y: Int) {
            self.frame = frame
            self.width = width
            self.x = x
            self.y = y
            let pivot = frame[y * width + x]
            self.pivot = pivot
            var s: Float = 0, ss: Float = 0, su: Float = 0, sv: Float = 0
            for j in 0..<blockSize {
                let v = Float(j) - Self.half, row = (y + j) * width + x
                var rs: Float = 0, ru: Float = 0
                for i in 0..<blockSize {
                    let a = frame[row + i] - pivot
                    rs += a; ss += a * a; ru += (Float(i) - Self.half) * a
                }
                s += rs; su += ru; sv += v * rs
            }
            sum = s; sumU = su; sumV = sv
            variance = ss - s * s / Self.n - (su * su + sv * sv) / Self.sumUU
        }

        /// Detrended correlation with the `blockSize`² block of `other` (row
        /// length `otherWidth`) whose top-left sample is `(ox, oy)`; 0 when
        /// either block is flat after the plane fit.
        func correlation(with other: UnsafeBufferPointer<Float>, width otherWidth: Int, x ox: Int, y oy: Int) -> Float {
            let otherPivot = other[oy * otherWidth + ox]
            var s: Float = 0, ss: Float = 0, su: Float = 0, sv: Float = 0, cross: Float = 0
            for j in 0..<blockSize {
                let v = Float(j) - Self.half
                let row = (oy + j) * otherWidth + ox, frow = (y + j) * width + x
                var rs: Float = 0, ru: Float = 0
                for i in 0..<blockSize {
                    let c = other[row + i] - otherPivot
                    rs += c; ss += c * c; ru += (Float(i) - Self.half) * c
                    cross += (frame[frow + i] - pivot) * c
                }
                s += rs; su += ru; sv += v * rs
            }
            let otherVariance = ss - s * s / Self.n - (su * su + sv * sv) / Self.sumUU
            let covariance = cross - sum * s / Self.n - (sumU * su + sumV * sv) / Self.sumUU
            // Below this (a 16² block varying by < 1e-7) it is rounding, not texture.
            guard variance > 1e-12, otherVariance > 1e-12 else { return 0 }
            let c = covariance / (variance * otherVariance).squareRoot()
            return c.isFinite ? c : 0
        }
    }
}
