#if canImport(Glibc)
import Glibc
#endif

/// One phase-correlation level: a fixed patch size, its Hann window, the
/// reference patch's windowed spectrum (computed once), and the peak search
/// with Guizar-Sicairos upsampled-DFT refinement.
///
/// Sign convention: `correlate(patch)` returns `(dx, dy)` such that
/// `patch(x, y) ≈ reference(x + dx, y + dy)`. Derivation: then
/// `P(k) = R(k)·e^{+2πi k·d}`, so `R·conj(P)/|R·conj(P)| = e^{−2πi k·d}`,
/// whose inverse DFT (sign +1) is a delta at `+d`.
struct CorrelationStage: Sendable {
    /// Result of a correlation: shift in patch pixels and normalised peak height.
    struct Peak: Sendable {
        var dx: Double
        var dy: Double
        /// Peak of the normalised cross-power correlation surface, ≈1 for
        /// identical patches, ≈0 for unrelated ones.
        var height: Double
    }

    /// A patch whose windowed standard deviation is below this (in sample
    /// units, 0…1 images) is treated as blank: far below one 16-bit step's
    /// worth of texture, so only truly constant planes are caught.
    static let flatStandardDeviation: Double = 1e-5
    /// Cross-power bins whose magnitude is below this fraction of the mean
    /// magnitude are zeroed instead of normalised (their phase is rounding noise).
    static let spectrumEpsilon: Float = 1e-6
    /// Half-width, in pixels, of the neighbourhood the upsampled DFT samples
    /// around the integer peak (1.5 px region, as Guizar-Sicairos et al.).
    static let upsampleRegion: Double = 1.5

    let rows: Int
    let cols: Int
    let fft: RealFFT2D
    let windowX: [Float]
    let windowY: [Float]
    /// Windowed, mean-removed reference spectrum; nil when the reference patch is blank.
    let referenceSpectrum: FFTBuffer?

    /// Builds the stage from the reference patch (its size sets the FFT size).
    init(reference patch: Plane) throws {
        rows = patch.height
        cols = patch.width
        fft = try RealFFT2D.shared(rows: rows, cols: cols)
        windowX = CorrelationStage.hann(cols)
        windowY = CorrelationStage.hann(rows)
        let real = try fft.makeRealBuffer()
        if CorrelationStage.loadWindowed(patch, windowX: windowX, windowY: windowY, into: real) {
            let spec = try fft.makeSpectrumBuffer()
            fft.forward(real, into: spec)
            referenceSpectrum = spec
        } else {
            referenceSpectrum = nil
        }
    }

    /// Periodic-offset Hann window `0.5 − 0.5 cos(2π (n + ½) / N)`: smooth,
    /// symmetric, never exactly zero, so edges never dominate the spectrum.
    static func hann(_ n: Int) -> [Float] {
        (0..<n).map { i in Float(0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / Double(n))) }
    }

    /// Writes `(patch − weighted mean) · window` into `buffer`; false when blank.
    ///
    /// The patch is the `windowX.count × windowY.count` rectangle of `plane`
    /// at `(x, y)`, which must lie inside it (no copy of the patch is made).
    /// Row sums in Float, 8 lanes at a time; the sums over rows in Double.
    static func loadWindowed(_ plane: Plane, x ox: Int = 0, y oy: Int = 0, windowX: [Float], windowY: [Float],
                             into buffer: FFTBuffer) -> Bool {
        let w = windowX.count, h = windowY.count, stride = plane.width
        precondition(ox >= 0 && oy >= 0 && ox + w <= plane.width && oy + h <= plane.height && buffer.count >= w * h,
                     "window \(w)×\(h) at (\(ox), \(oy)) outside \(plane.width)×\(plane.height)")
        let sumX = windowX.reduce(0.0) { $0 + Double($1) }, sumY = windowY.reduce(0.0) { $0 + Double($1) }
        let sumX2 = windowX.reduce(0.0) { $0 + Double($1) * Double($1) }
        let sumY2 = windowY.reduce(0.0) { $0 + Double($1) * Double($1) }
        let sw = sumX * sumY, weight2 = sumX2 * sumY2
        guard sw > 0, weight2 > 0 else { return false }
        var swx = 0.0, energy = 0.0
        plane.pixels.withUnsafeBufferPointer { pb in
            windowX.withUnsafeBufferPointer { wxb in
                guard let base = pb.baseAddress, let wx = wxb.baseAddress else { return }
                for y in 0..<h {
                    swx += Double(windowY[y]) * Double(Self.weightedSum(base + (oy + y) * stride + ox, wx, count: w))
                }
                let mean = Float(swx / sw)
                let out = buffer.pointer
                for y in 0..<h {
                    energy += Double(Self.windowRow(base + (oy + y) * stride + ox, wx, scale: windowY[y], minus: mean,
                                                    count: w, into: out + y * w))
                }
            }
        }
        guard energy.isFinite else { return false }
        return (energy / weight2).squareRoot() > flatStandardDeviation
    }

    /// `Σ p[i] · wx[i]`, `i < count`.
    @inline(__always)
    private static func weightedSum(_ p: UnsafePointer<Float>, _ wx: UnsafePointer<Float>, count: Int) -> Float {
        typealias V = SIMD8<Float>
        var acc = V(), i = 0
        while i + 8 <= count {
            acc += UnsafeRawPointer(p + i).loadUnaligned(as: V.self) * UnsafeRawPointer(wx + i).loadUnaligned(as: V.self)
            i += 8
        }
        var t = acc.sum()
        while i < count { t += p[i] * wx[i]; i += 1 }
        return t
    }

    /// `out[i] = (p[i] − minus) · wx[i] · scale`; returns `Σ out[i]²`.
    @inline(__always)
    private static func windowRow(_ p: UnsafePointer<Float>, _ wx: UnsafePointer<Float>, scale: Float, minus: Float,
                                  count: Int, into out: UnsafeMutablePointer<Float>) -> Float {
        typealias V = SIMD8<Float>
        var acc = V(), i = 0
        let m = V(repeating: minus), sc = V(repeating: scale)
        while i + 8 <= count {
            let v = (UnsafeRawPointer(p + i).loadUnaligned(as: V.self) - m) * (UnsafeRawPointer(wx + i).loadUnaligned(as: V.self) * sc)
            UnsafeMutableRawPointer(out + i).storeBytes(of: v, as: V.self)
            acc += v * v
            i += 8
        }
        var t = acc.sum()
        while i < count {
            let v = (p[i] - minus) * (wx[i] * scale)
            out[i] = v
            t += v * v
            i += 1
        }
        return t
    }

    /// Phase-correlates `patch` (same size as the reference patch) against the
    /// reference. `searchRadius` limits the integer peak to `|dx|, |dy| ≤ r`
    /// (nil: whole surface). `upsample` > 1 refines to `1/upsample` px.
    /// Returns nil when either patch is blank or the spectrum is degenerate.
    ///
    /// `exponent` sets the spectral normalisation `R·F̄ / |R·F̄|^exponent`:
    /// 1 is phase correlation (sharp peak, normalised height), 0 is plain
    /// cross-correlation (bins weighted by signal power, least noise-sensitive).
    func correlate(_ patch: Plane, searchRadius: Int?, upsample: Int, exponent: Float = 1) throws -> Peak? {
        guard let ref = referenceSpectrum, patch.width == cols, patch.height == rows else { return nil }
        let real = try fft.makeRealBuffer()
        guard CorrelationStage.loadWindowed(patch, windowX: windowX, windowY: windowY, into: real) else { return nil }
        let cross = try fft.makeSpectrumBuffer()
        fft.forward(real, into: cross)
        guard normaliseCrossPower(reference: ref, spectrum: cross, exponent: exponent) else { return nil }

        let work = try fft.makeSpectrumBuffer()
        work.copy(from: cross)
        fft.inverse(work, into: real)            // real ← correlation surface (unnormalised)
        let (py, px, value) = integerPeak(real, radius: searchRadius)
        let total = Double(rows * cols)
        guard value.isFinite else { return nil }
        if upsample <= 1 {
            return Peak(dx: Double(px), dy: Double(py), height: value / total)
        }
        return upsampledPeak(cross, aroundY: Double(py), x: Double(px), factor: upsample)
    }

    /// Like `correlate(_:searchRadius:nil, …)` (full phase normalisation) on
    /// the patch of `plane` at `origin` (inside it), but returns up to `count` peaks: the highest local maxima of the
    /// surface (3×3 neighbourhood, wrapped), highest first, each refined by
    /// the upsampled DFT. Peaks lower than `minimumRatio` × the highest are
    /// dropped. Empty when either patch is blank or the spectrum is degenerate.
    func correlateCandidates(_ plane: Plane, at origin: (x: Int, y: Int), count: Int, minimumRatio: Double,
                             upsample: Int) throws -> [Peak] {
        guard let ref = referenceSpectrum, origin.x >= 0, origin.y >= 0, origin.x + cols <= plane.width,
              origin.y + rows <= plane.height, count > 0 else { return [] }
        let real = try fft.makeRealBuffer()
        guard CorrelationStage.loadWindowed(plane, x: origin.x, y: origin.y, windowX: windowX, windowY: windowY,
                                            into: real) else { return [] }
        let cross = try fft.makeSpectrumBuffer()
        fft.forward(real, into: cross)
        guard normaliseCrossPower(reference: ref, spectrum: cross, exponent: 1) else { return [] }
        let work = try fft.makeSpectrumBuffer()
        work.copy(from: cross)
        fft.inverse(work, into: real)
        let maxima = localMaxima(real, count: count)
        guard let top = maxima.first, top.value.isFinite, top.value > 0 else { return [] }
        let total = Double(rows * cols)
        return maxima.filter { $0.value >= minimumRatio * top.value }.map { m in
            upsample <= 1 ? Peak(dx: Double(m.x), dy: Double(m.y), height: m.value / total)
                          : upsampledPeak(cross, aroundY: Double(m.y), x: Double(m.x), factor: upsample)
        }
    }

    /// The `count` highest strict local maxima (3×3, wrapped) of the
    /// surface, highest first, in signed coordinates.
    private func localMaxima(_ surface: FFTBuffer, count: Int) -> [(y: Int, x: Int, value: Double)] {
        let p = surface.pointer
        var best: [(y: Int, x: Int, value: Double)] = []
        for y in 0..<rows {
            let ym = (y + rows - 1) % rows * cols, y0 = y * cols, yp = (y + 1) % rows * cols
            for x in 0..<cols {
                let v = p[y0 + x]
                if best.count == count, Double(v) <= best[count - 1].value { continue }
                let xm = (x + cols - 1) % cols, xp = (x + 1) % cols
                // Strict on one side, ≥ on the other, so a flat top is counted once.
                guard v > p[y0 + xm], v >= p[y0 + xp], v > p[ym + x], v >= p[yp + x],
                      v > p[ym + xm], v >= p[yp + xp], v > p[ym + xp], v >= p[yp + xm] else { continue }
                let sy = y > rows / 2 ? y - rows : y, sx = x > cols / 2 ? x - cols : x
                var i = best.count
                while i > 0 && best[i - 1].value < Double(v) { i -= 1 }
                best.insert((sy, sx, Double(v)), at: i)
                if best.count > count { best.removeLast() }
            }
        }
        return best
    }

    /// `spectrum ← R·conj(F) / |R·conj(F)|`, with DC, Nyquist row/column and
    /// near-zero bins set to 0. False when every bin is (near) zero.
    private func normaliseCrossPower(reference: FFTBuffer, spectrum: FFTBuffer, exponent: Float) -> Bool {
        let n = rows * fft.spectrumCols
        let r = reference.pointer, s = spectrum.pointer
        var sumMag = 0.0
        for i in 0..<n {
            let rr = r[2 * i], ri = r[2 * i + 1], fr = s[2 * i], fi = s[2 * i + 1]
            let cr = rr * fr + ri * fi
            let ci = ri * fr - rr * fi
            s[2 * i] = cr
            s[2 * i + 1] = ci
            sumMag += Double((cr * cr + ci * ci).squareRoot())
        }
        guard sumMag.isFinite, sumMag > 0 else { return false }
        let meanMag = Float(sumMag / Double(n))
        let eps = meanMag * CorrelationStage.spectrumEpsilon
        for i in 0..<n {
            let cr = s[2 * i], ci = s[2 * i + 1]
            let m = (cr * cr + ci * ci).squareRoot()
            if m > eps {
                let scale: Float
                if exponent == 1 { scale = 1 / m }
                else if exponent == 0 { scale = 1 / meanMag }
                else if exponent == 0.5 { scale = 1 / (m * meanMag).squareRoot() }
                else { scale = 1 / (powf(m, exponent) * powf(meanMag, 1 - exponent)) }
                s[2 * i] = cr * scale
                s[2 * i + 1] = ci * scale
            } else {
                s[2 * i] = 0
                s[2 * i + 1] = 0
            }
        }
        let sc = fft.spectrumCols
        s[0] = 0; s[1] = 0                                   // DC: meaningless after mean removal
        if rows % 2 == 0 {                                   // Nyquist row: ambiguous sign for subpixel shifts
            let base = (rows / 2) * sc * 2
            for i in 0..<(2 * sc) { s[base + i] = 0 }
        }
        if cols % 2 == 0 {                                   // Nyquist column
            for y in 0..<rows { s[2 * (y * sc + cols / 2)] = 0; s[2 * (y * sc + cols / 2) + 1] = 0 }
        }
        return true
    }

    /// The maximum of the surface (wrapped signed coordinates), optionally
    /// restricted to a square of half-width `radius` around zero shift.
    private func integerPeak(_ surface: FFTBuffer, radius: Int?) -> (Int, Int, Double) {
        let p = surface.pointer
        var best = -Float.infinity, by = 0, bx = 0
        func scan(_ ys: [Int], _ xs: [Int]) {
            for y in ys {
                let row = ((y % rows) + rows) % rows * cols
                for x in xs {
                    let v = p[row + ((x % cols) + cols) % cols]
                    if v > best { best = v; by = y; bx = x }
                }
            }
        }
        if let r = radius {
            let ry = min(r, (rows - 1) / 2), rx = min(r, (cols - 1) / 2)
            scan(Array(-ry...ry), Array(-rx...rx))
        } else {
            // Signed range: y in [−⌊(N−1)/2⌋, ⌊N/2⌋].
            scan(Array((-(rows - 1) / 2)...(rows / 2)), Array((-(cols - 1) / 2)...(cols / 2)))
        }
        return (by, bx, Double(best))
    }

    /// Guizar-Sicairos et al. (2008) matrix-multiply DFT: evaluates the
    /// correlation surface `Re Σ_k C(k) e^{+2πi k·(y, x)}` on a
    /// `1/factor`-pixel grid spanning ±0.75 px around `(y, x)`, returns its
    /// maximum (with a final parabolic fit on the fine grid).
    ///
    /// Uses only the stored half spectrum: each column `0 < kx < M/2` stands
    /// for itself and its Hermitian mirror, so it gets weight 2.
    private func upsampledPeak(_ spectrum: FFTBuffer, aroundY y0: Double, x x0: Double, factor: Int) -> Peak {
        let n = rows, m = cols, mh = fft.spectrumCols
        let nOut = max(3, Int((CorrelationStage.upsampleRegion * Double(factor)).rounded(.up)))
        let centre = nOut / 2
        let us = Double(factor)
        // Ky: nOut × n, row j = sample y_j, column k = signed frequency.
        // The phase factors e^{2πi f y / N} are powers of one root each,
        // formed by recurrence in Double (error ~1e-16 per step, ~1e-13 after
        // N ≤ 1000 steps: far below Float), not by a cos/sin call per entry.
        var ky = [Float](repeating: 0, count: 2 * nOut * n)
        for j in 0..<nOut {
            let yj = y0 + Double(j - centre) / us
            let a = 2 * Double.pi * yj / Double(n)
            let (sr, si) = (cos(a), sin(a))
            var (pr, pi) = (1.0, 0.0)                  // e^{i a f}, f = 0, 1, …, n / 2
            for f in 0...(n / 2) {
                ky[2 * (j * n + f)] = Float(pr)
                ky[2 * (j * n + f) + 1] = Float(pi)
                if f > 0 && f < n - n / 2 {            // k = n − f stands for the negative frequency −f
                    ky[2 * (j * n + n - f)] = Float(pr)
                    ky[2 * (j * n + n - f) + 1] = Float(-pi)
                }
                (pr, pi) = (pr * sr - pi * si, pr * si + pi * sr)
            }
        }
        // KxT: mh × nOut, row k = non-negative frequency (with Hermitian weight).
        var kx = [Float](repeating: 0, count: 2 * mh * nOut)
        for j in 0..<nOut {
            let xj = x0 + Double(j - centre) / us
            let a = 2 * Double.pi * xj / Double(m)
            let (sr, si) = (cos(a), sin(a))
            var (pr, pi) = (1.0, 0.0)                  // e^{i a k}
            for k in 0..<mh {
                let weight: Double = (k == 0 || (m % 2 == 0 && k == m / 2)) ? 1 : 2
                kx[2 * (k * nOut + j)] = Float(weight * pr)
                kx[2 * (k * nOut + j) + 1] = Float(weight * pi)
                (pr, pi) = (pr * sr - pi * si, pr * si + pi * sr)
            }
        }
        var t = [Float](repeating: 0, count: 2 * nOut * mh)
        var out = [Float](repeating: 0, count: 2 * nOut * nOut)
        ky.withUnsafeBufferPointer { kyp in
            t.withUnsafeMutableBufferPointer { tp in
                // The buffers are non-empty, so base addresses exist.
                guard let a = kyp.baseAddress, let c = tp.baseAddress else { return }
                OpenBLAS.complexProduct(a, UnsafePointer(spectrum.pointer), into: c, m: nOut, n: mh, k: n)
            }
        }
        t.withUnsafeBufferPointer { tp in
            kx.withUnsafeBufferPointer { kxp in
                out.withUnsafeMutableBufferPointer { op in
                    guard let a = tp.baseAddress, let b = kxp.baseAddress, let c = op.baseAddress else { return }
                    OpenBLAS.complexProduct(a, b, into: c, m: nOut, n: nOut, k: mh)
                }
            }
        }
        var best = -Float.infinity, bj = centre, bi = centre
        for j in 0..<nOut {
            for i in 0..<nOut {
                let v = out[2 * (j * nOut + i)]
                if v > best { best = v; bj = j; bi = i }
            }
        }
        func re(_ j: Int, _ i: Int) -> Double { Double(out[2 * (j * nOut + i)]) }
        func vertex(_ a: Double, _ b: Double, _ c: Double) -> Double {
            let d = a - 2 * b + c
            guard d < 0 else { return 0 }
            return max(-0.5, min(0.5, 0.5 * (a - c) / d))
        }
        var fy = 0.0, fx = 0.0
        if bj > 0 && bj < nOut - 1 { fy = vertex(re(bj - 1, bi), re(bj, bi), re(bj + 1, bi)) }
        if bi > 0 && bi < nOut - 1 { fx = vertex(re(bj, bi - 1), re(bj, bi), re(bj, bi + 1)) }
        let total = Double(n * m)
        return Peak(dx: x0 + (Double(bi - centre) + fx) / us,
                    dy: y0 + (Double(bj - centre) + fy) / us,
                    height: Double(best) / total)
    }

    /// The smallest `n ≥ limit` whose only prime factors are 2, 3 and 5.
    static func fastSize(atLeast limit: Int) -> Int {
        var n = max(1, limit)
        while true {
            var r = n
            for p in [2, 3, 5] { while r % p == 0 { r /= p } }
            if r == 1 { return n }
            n += 1
        }
    }

    /// The largest `n ≤ limit` whose only prime factors are 2, 3 and 5 (fast FFT sizes).
    static func fastSize(atMost limit: Int) -> Int {
        var n = max(1, limit)
        while n > 1 {
            var r = n
            for p in [2, 3, 5] { while r % p == 0 { r /= p } }
            if r == 1 { return n }
            n -= 1
        }
        return 1
    }
}

// References
// - C. D. Kuglin and D. C. Hines, "The phase correlation image alignment
//   method", Proc. IEEE Int. Conf. on Cybernetics and Society, 1975, pp. 163–165.
// - M. Guizar-Sicairos, S. T. Thurman and J. R. Fienup, "Efficient subpixel
//   image registration algorithms", Optics Letters 33(2), 156–158, 2008.
// - F. J. Harris, "On the use of windows for harmonic analysis with the
//   discrete Fourier transform", Proc. IEEE 66(1), 51–83, 1978 (Hann window).
