/// Masked normalised cross-correlation over every shift at once, in the
/// Fourier domain (Padfield 2012): the translation search for frames with a
/// fill (`FillMask`), where the phase correlation locks onto the fill's edges.
///
/// For a reference `r` with validity mask `a` and a frame `f` with mask `b`
/// (1 = data), the correlation at shift `d` is the zero-mean normalised
/// cross-correlation of `f(x)` with `r(x + d)` over the pixels `x` where both
/// hold data, `b(x) a(x + d) = 1`. With `C[p, q](d) = Σₓ p(x) q(x + d)`:
///
///     N   = C[b, a]            overlap (pixels)
///     Sf  = C[b f, a]          Sr  = C[b, a r]
///     Sff = C[b f², a]         Srr = C[b, a r²]
///     Sfr = C[b f, a r]
///     ncc = (Sfr − Sf Sr / N) / √((Sff − Sf² / N)(Srr − Sr² / N))
///
/// Each `C` is one inverse FFT of `conj(P̂) Q̂`, zero-padded to at least
/// `2W − 1 × 2H − 1` so no shift wraps onto another: three forward FFTs per
/// side (the reference's computed once, in `init`) and six inverse ones per
/// frame. The samples are centred and scaled by the valid pixels' mean and
/// standard deviation first, so single-precision FFTs keep the differences
/// above accurate.
///
/// Shifts whose overlap is below `minimumOverlapShare` of the largest overlap
/// (or `minimumOverlapPixels`) are not considered: there a few pixels can
/// correlate by chance (Padfield's `overlapRatio`; scikit-image uses 0.3 by
/// default, its test of Padfield's data 0.1).
///
/// Sign convention as `CorrelationStage`: the peak `(dx, dy)` means
/// `frame(x, y) ≈ reference(x + dx, y + dy)`.
struct MaskedCorrelation: Sendable {
    /// Share of the largest overlap a shift must have to be considered.
    static let minimumOverlapShare = 0.1
    /// Fewest overlapping pixels a shift must have to be considered.
    static let minimumOverlapPixels = 256
    /// A shift whose overlap varies less than this (variance per pixel, in
    /// units of the plane's own variance) is flat there and scores 0.
    static let flatVariance = 1e-3

    /// The best shift: in plane pixels, refined by a parabola through the
    /// neighbouring correlations; its correlation (−1…1) and overlap (pixels).
    struct Peak: Sendable, Equatable {
        var dx: Double
        var dy: Double
        var correlation: Double
        var overlap: Int
    }

    let width: Int
    let height: Int
    let fft: RealFFT2D
    /// The spectra of `a`, `a r` and `a r²` (zero-padded).
    private let referenceSpectra: [FFTBuffer]

    /// Prepares the search against `reference` (validity `mask`, nil: all
    /// valid). Nil when the reference has no valid texture (blank, or all fill).
    init?(reference: Plane, mask: FillMask?) throws {
        width = reference.width
        height = reference.height
        let rows = CorrelationStage.fastSize(atLeast: 2 * height - 1)
        let cols = CorrelationStage.fastSize(atLeast: 2 * width - 1)
        fft = try RealFFT2D.shared(rows: rows, cols: cols)
        guard let spectra = try Self.spectra(reference, mask: mask, fft: fft) else { return nil }
        referenceSpectra = spectra
    }

    /// The spectra of `m`, `m v` and `m v²` with `v` the plane centred and
    /// scaled by its valid pixels' mean and standard deviation; nil when
    /// fewer than `minimumOverlapPixels` are valid or they are flat.
    private static func spectra(_ plane: Plane, mask: FillMask?, fft: RealFFT2D) throws -> [FFTBuffer]? {
        let w = plane.width, h = plane.height, cols = fft.size.cols
        var n = 0, sum = 0.0, sum2 = 0.0
        for i in 0..<(w * h) where mask?.valid[i] ?? 1 != 0 {
            let v = Double(plane.pixels[i])
            n += 1; sum += v; sum2 += v * v
        }
        guard n >= minimumOverlapPixels else { return nil }
        let mean = sum / Double(n), variance = sum2 / Double(n) - mean * mean
        guard variance.isFinite, variance > 0 else { return nil }
        let scale = 1 / variance.squareRoot()
        let real = try [fft.makeRealBuffer(), fft.makeRealBuffer(), fft.makeRealBuffer()]
        for y in 0..<h {
            for x in 0..<w where mask?.valid[y * w + x] ?? 1 != 0 {
                let v = Float((Double(plane.pixels[y * w + x]) - mean) * scale)
                real[0].pointer[y * cols + x] = 1
                real[1].pointer[y * cols + x] = v
                real[2].pointer[y * cols + x] = v * v
            }
        }
        return try real.map { r in
            let s = try fft.makeSpectrumBuffer()
            fft.forward(r, into: s)
            return s
        }
    }

    /// The shift of `frame` (validity `mask`, nil: all valid) with the
    /// highest masked correlation; nil when the frame has no valid texture or
    /// no shift overlaps enough.
    func correlate(_ frame: Plane, mask: FillMask?) throws -> Peak? {
        guard frame.width == width, frame.height == height,
              let f = try Self.spectra(frame, mask: mask, fft: fft) else { return nil }
        let a = referenceSpectra
        // C[b, a], C[b f, a], C[b, a r], C[b f², a], C[b, a r²], C[b f, a r].
        let pairs = [(f[0], a[0]), (f[1], a[0]), (f[0], a[1]), (f[2], a[0]), (f[0], a[2]), (f[1], a[1])]
        let surfaces = try pairs.map { (p, q) in try crossCorrelation(p, q) }
        let rows = fft.size.rows, cols = fft.size.cols
        let total = Float(rows * cols)
        func at(_ s: Int, _ i: Int) -> Double { Double(surfaces[s].pointer[i] / total) }
        var maxOverlap = 0.0
        for i in 0..<(rows * cols) { maxOverlap = max(maxOverlap, at(0, i)) }
        let floor = max(Double(Self.minimumOverlapPixels), Self.minimumOverlapShare * maxOverlap)
        // The correlation at signed shift (dx, dy), or nil where not considered.
        func ncc(_ dx: Int, _ dy: Int) -> Double? {
            guard abs(dx) < width, abs(dy) < height else { return nil }
            let i = ((dy + rows) % rows) * cols + (dx + cols) % cols
            let n = at(0, i).rounded()
            guard n >= floor else { return nil }
            let sf = at(1, i), sr = at(2, i)
            let vf = at(3, i) - sf * sf / n, vr = at(4, i) - sr * sr / n
            guard vf > Self.flatVariance * n, vr > Self.flatVariance * n else { return 0 }
            let c = (at(5, i) - sf * sr / n) / (vf * vr).squareRoot()
            return c.isFinite ? min(1, max(-1, c)) : 0
        }
        var best: (dx: Int, dy: Int, c: Double)?
        for dy in (1 - height)..<height {
            for dx in (1 - width)..<width {
                if let c = ncc(dx, dy), best == nil || c > best!.c { best = (dx, dy, c) }
            }
        }
        guard let b = best, b.c > 0 else { return nil }
        func vertex(_ m: Double?, _ c: Double, _ p: Double?) -> Double {
            guard let m, let p else { return 0 }
            let d = m - 2 * c + p
            guard d < 0 else { return 0 }
            return max(-0.5, min(0.5, 0.5 * (m - p) / d))
        }
        let fx = vertex(ncc(b.dx - 1, b.dy), b.c, ncc(b.dx + 1, b.dy))
        let fy = vertex(ncc(b.dx, b.dy - 1), b.c, ncc(b.dx, b.dy + 1))
        let i = ((b.dy + rows) % rows) * cols + (b.dx + cols) % cols
        return Peak(dx: Double(b.dx) + fx, dy: Double(b.dy) + fy, correlation: b.c, overlap: Int(at(0, i).rounded()))
    }

    /// `C[p, q]` (unnormalised: × rows · cols) from the spectra `P̂`, `Q̂`:
    /// the inverse FFT of `conj(P̂) Q̂`.
    private func crossCorrelation(_ p: FFTBuffer, _ q: FFTBuffer) throws -> FFTBuffer {
        let product = try fft.makeSpectrumBuffer()
        let a = p.pointer, b = q.pointer, o = product.pointer
        for k in 0..<(fft.spectrumFloats / 2) {
            let ar = a[2 * k], ai = a[2 * k + 1], br = b[2 * k], bi = b[2 * k + 1]
            o[2 * k] = ar * br + ai * bi
            o[2 * k + 1] = ar * bi - ai * br
        }
        let out = try fft.makeRealBuffer()
        fft.inverse(product, into: out)
        return out
    }
}

// References
// - D. Padfield, "Masked object registration in the Fourier domain", IEEE
//   Transactions on Image Processing 21(5), 2706–2718, 2012.
// - J. P. Lewis, "Fast normalized cross-correlation", Vision Interface 1995,
//   pp. 120–123 (running sums for the normalisation).
