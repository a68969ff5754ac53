import Registration

/// Ratio Corrected Demosaicing (RCD, Luis Sanz Rodríguez, version 2.3): a
/// Bayer mosaic to R, G, B that follows edges by the local direction of the
/// colour-difference high-pass energy, and fills green from ratios to a
/// low-pass filtered mosaic, so that fine detail keeps its colour where the
/// bilinear mean smears it.
///
/// Steps, on the mosaic `m` (each value clamped at 0 below, since the
/// ratios need non-negative data; nothing is clamped above):
/// 1. vertical / horizontal discrimination `VH = V / (V + H)`, where V and
///    H are 3-tap sums of the squared high-pass `(m₋₃ − m₋₁ − m₊₁ + m₊₃) −
///    3 (m₋₂ + m₊₂) + 6 m₀` along columns and rows;
/// 2. a low-pass `lpf` at red and blue sites (the pixel, its 4 orthogonal
///    neighbours by ½, its 4 diagonal ones by ¼);
/// 3. green at red and blue sites: each cardinal neighbour scaled by the
///    ratio of the low-pass here to the low-pass two pixels further, the
///    two of an axis weighted by the opposite side's gradient, the axes
///    blended by VH (or the mean VH of the 4 diagonal neighbours when that
///    is further from ½);
/// 4. red at blue sites and blue at red sites from the diagonal colour
///    differences, blended by the diagonal discrimination `P / (P + Q)`
///    built as in 1 on the diagonals; then red and blue at green sites from
///    the cardinal colour differences, blended by VH.
/// Pixels within 4 of the border, where the 9-pixel stencils do not fit,
/// take the bilinear values (`Debayer`). Exact on flat colour; the
/// constants are the author's (eps 1e-5, eps² 1e-10).
///
/// One pass per step over whole planes: about 9 planes of `Float` beside the
/// output (for a 24 MP mosaic, 0.9 GB).
enum RCDDebayer {
    static let eps: Float = 1e-5
    static let epsSquared: Float = 1e-10

    /// `mosaic` (of `pattern` at its top-left) as R, G, B planes.
    static func image(_ mosaic: Plane, pattern: BayerPattern) -> Image {
        let w = mosaic.width, h = mosaic.height
        var rgb = (0..<3).map { _ in [Float](repeating: 0, count: w * h) }
        // The border (everything, for a mosaic too small for the stencils) is bilinear.
        let small = w < 10 || h < 10
        Debayer.fillBilinear(mosaic, pattern: pattern, into: &rgb, border: small ? nil : 4)
        if small { return Image(width: w, height: h, planes: rgb.map { Plane(width: w, height: h, pixels: $0) }) }
        let cfa = mosaic.pixels.map { max($0, 0) }
        // The colour of each site (0 R, 1 G, 2 B), row parity × column parity.
        let colours = pattern.channels
        func colour(_ x: Int, _ y: Int) -> Int { colours[(y & 1) << 1 | (x & 1)] }
        // Sites of the mosaic keep their own sample.
        for c in 0..<3 {
            rgb[c].withUnsafeMutableBufferPointer { out in
                for y in 4..<(h - 4) {
                    var x = colour(4, y) == c ? 4 : 5
                    guard colour(4, y) == c || colour(5, y) == c else { continue }
                    while x < w - 4 {
                        out[y * w + x] = cfa[y * w + x]
                        x += 2
                    }
                }
            }
        }

        let vh = discrimination(cfa, width: w, height: h, step: (w, 1))
        let lpf = lowPass(cfa, width: w, height: h, colour: colour)
        cfa.withUnsafeBufferPointer { m in
            vh.withUnsafeBufferPointer { vh in
                lpf.withUnsafeBufferPointer { lpf in
                    rgb[1].withUnsafeMutableBufferPointer { g in
                        greenAtRedAndBlue(m, vh, lpf, g, width: w, height: h, colour: colour)
                    }
                }
            }
        }
        let pq = discrimination(cfa, width: w, height: h, step: (w + 1, w - 1))
        var red = rgb[0], blue = rgb[2]
        rgb[1].withUnsafeBufferPointer { g in
            pq.withUnsafeBufferPointer { pq in
                red.withUnsafeMutableBufferPointer { r in
                    blue.withUnsafeMutableBufferPointer { b in
                        redAndBlueAtEachOther(g, pq, r, b, width: w, height: h, colour: colour)
                    }
                }
            }
            vh.withUnsafeBufferPointer { vh in
                red.withUnsafeMutableBufferPointer { r in
                    blue.withUnsafeMutableBufferPointer { b in
                        redAndBlueAtGreen(g, vh, r, b, width: w, height: h, colour: colour)
                    }
                }
            }
        }
        rgb[0] = red
        rgb[2] = blue
        return Image(width: w, height: h, planes: rgb.map { Plane(width: w, height: h, pixels: $0) })
    }

    /// The directional discrimination `A / (A + B)` for pixels 4 or more
    /// from the border (0.5 elsewhere), where A and B are 3-tap sums of the
    /// squared colour-difference high-pass along the strides `step.0`
    /// (vertical, or the NW–SE diagonal) and `step.1` (horizontal, or the
    /// NE–SW diagonal).
    private static func discrimination(_ cfa: [Float], width w: Int, height h: Int, step: (Int, Int)) -> [Float] {
        let a = highPassEnergy(cfa, width: w, height: h, stride: step.0)
        let b = highPassEnergy(cfa, width: w, height: h, stride: step.1)
        var out = [Float](repeating: 0.5, count: w * h)
        let s = step.0, t = step.1
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                out.withUnsafeMutableBufferPointer { out in
                    for y in 4..<(h - 4) {
                        for x in 4..<(w - 4) {
                            let i = y * w + x
                            let sa = max(epsSquared, a[i - s] + a[i] + a[i + s])
                            let sb = max(epsSquared, b[i - t] + b[i] + b[i + t])
                            out[i] = sa / (sa + sb)
                        }
                    }
                }
            }
        }
        return out
    }

    /// The squared colour-difference high-pass `(m₋₃ − m₋₁ − m₊₁ + m₊₃) −
    /// 3 (m₋₂ + m₊₂) + 6 m₀` along `stride`, for pixels 3 or more from the
    /// border (0 elsewhere).
    private static func highPassEnergy(_ cfa: [Float], width w: Int, height h: Int, stride s: Int) -> [Float] {
        var energy = [Float](repeating: 0, count: w * h)
        cfa.withUnsafeBufferPointer { m in
            energy.withUnsafeMutableBufferPointer { e in
                for y in 3..<(h - 3) {
                    for x in 3..<(w - 3) {
                        let i = y * w + x
                        e[i] = square(m[i - 3 * s] - m[i - s] - m[i + s] + m[i + 3 * s] - 3 * (m[i - 2 * s] + m[i + 2 * s]) + 6 * m[i])
                    }
                }
            }
        }
        return energy
    }

    /// The low-pass mosaic at red and blue sites (0 at green sites and the border).
    private static func lowPass(_ cfa: [Float], width w: Int, height h: Int, colour: (Int, Int) -> Int) -> [Float] {
        var lpf = [Float](repeating: 0, count: w * h)
        cfa.withUnsafeBufferPointer { m in
            lpf.withUnsafeMutableBufferPointer { lpf in
                for y in 2..<(h - 2) {
                    var x = 2 + (colour(2, y) == 1 ? 1 : 0)
                    while x < w - 2 {
                        let i = y * w + x
                        lpf[i] = m[i] + 0.5 * (m[i - w] + m[i + w] + m[i - 1] + m[i + 1])
                            + 0.25 * (m[i - w - 1] + m[i - w + 1] + m[i + w - 1] + m[i + w + 1])
                        x += 2
                    }
                }
            }
        }
        return lpf
    }

    /// VH, or the mean VH of the 4 diagonal neighbours when that is further from ½.
    @inline(__always)
    private static func refined(_ d: UnsafeBufferPointer<Float>, _ i: Int, _ w: Int) -> Float {
        let centre = d[i]
        let around = 0.25 * (d[i - w - 1] + d[i - w + 1] + d[i + w - 1] + d[i + w + 1])
        return abs(0.5 - centre) < abs(0.5 - around) ? around : centre
    }

    /// Step 3: green at red and blue sites.
    private static func greenAtRedAndBlue(_ m: UnsafeBufferPointer<Float>, _ vh: UnsafeBufferPointer<Float>,
                                          _ lpf: UnsafeBufferPointer<Float>, _ g: UnsafeMutableBufferPointer<Float>,
                                          width w: Int, height h: Int, colour: (Int, Int) -> Int) {
        let w2 = 2 * w, w3 = 3 * w, w4 = 4 * w
        for y in 4..<(h - 4) {
            var x = 4 + (colour(4, y) == 1 ? 1 : 0)
            while x < w - 4 {
                let i = y * w + x
                let nGrad = eps + abs(m[i - w] - m[i + w]) + abs(m[i] - m[i - w2]) + abs(m[i - w] - m[i - w3]) + abs(m[i - w2] - m[i - w4])
                let sGrad = eps + abs(m[i - w] - m[i + w]) + abs(m[i] - m[i + w2]) + abs(m[i + w] - m[i + w3]) + abs(m[i + w2] - m[i + w4])
                let wGrad = eps + abs(m[i - 1] - m[i + 1]) + abs(m[i] - m[i - 2]) + abs(m[i - 1] - m[i - 3]) + abs(m[i - 2] - m[i - 4])
                let eGrad = eps + abs(m[i - 1] - m[i + 1]) + abs(m[i] - m[i + 2]) + abs(m[i + 1] - m[i + 3]) + abs(m[i + 2] - m[i + 4])
                let here = 2 * lpf[i]
                let nEst = m[i - w] * here / (eps + lpf[i] + lpf[i - w2])
                let sEst = m[i + w] * here / (eps + lpf[i] + lpf[i + w2])
                let wEst = m[i - 1] * here / (eps + lpf[i] + lpf[i - 2])
                let eEst = m[i + 1] * here / (eps + lpf[i] + lpf[i + 2])
                let vEst = (sGrad * nEst + nGrad * sEst) / (nGrad + sGrad)
                let hEst = (wGrad * eEst + eGrad * wEst) / (eGrad + wGrad)
                let d = refined(vh, i, w)
                g[i] = d * hEst + (1 - d) * vEst
                x += 2
            }
        }
    }

    /// Step 4.2: red at blue sites and blue at red sites.
    private static func redAndBlueAtEachOther(_ g: UnsafeBufferPointer<Float>, _ pq: UnsafeBufferPointer<Float>,
                                              _ r: UnsafeMutableBufferPointer<Float>, _ b: UnsafeMutableBufferPointer<Float>,
                                              width w: Int, height h: Int, colour: (Int, Int) -> Int) {
        let w2 = 2 * w, w3 = 3 * w
        for y in 4..<(h - 4) {
            var x = 4 + (colour(4, y) == 1 ? 1 : 0)
            while x < w - 4 {
                let i = y * w + x
                // Fill the colour this site lacks (red at blue, blue at red).
                let c: UnsafeMutableBufferPointer<Float> = colour(x, y) == 0 ? b : r
                let nwGrad = eps + abs(c[i - w - 1] - c[i + w + 1]) + abs(c[i - w - 1] - c[i - w3 - 3]) + abs(g[i] - g[i - w2 - 2])
                let neGrad = eps + abs(c[i - w + 1] - c[i + w - 1]) + abs(c[i - w + 1] - c[i - w3 + 3]) + abs(g[i] - g[i - w2 + 2])
                let swGrad = eps + abs(c[i - w + 1] - c[i + w - 1]) + abs(c[i + w - 1] - c[i + w3 - 3]) + abs(g[i] - g[i + w2 - 2])
                let seGrad = eps + abs(c[i - w - 1] - c[i + w + 1]) + abs(c[i + w + 1] - c[i + w3 + 3]) + abs(g[i] - g[i + w2 + 2])
                let nwEst = c[i - w - 1] - g[i - w - 1]
                let neEst = c[i - w + 1] - g[i - w + 1]
                let swEst = c[i + w - 1] - g[i + w - 1]
                let seEst = c[i + w + 1] - g[i + w + 1]
                let pEst = (nwGrad * seEst + seGrad * nwEst) / (nwGrad + seGrad)
                let qEst = (neGrad * swEst + swGrad * neEst) / (neGrad + swGrad)
                let d = refined(pq, i, w)
                c[i] = g[i] + d * qEst + (1 - d) * pEst
                x += 2
            }
        }
    }

    /// Step 4.3: red and blue at green sites.
    private static func redAndBlueAtGreen(_ g: UnsafeBufferPointer<Float>, _ vh: UnsafeBufferPointer<Float>,
                                          _ r: UnsafeMutableBufferPointer<Float>, _ b: UnsafeMutableBufferPointer<Float>,
                                          width w: Int, height h: Int, colour: (Int, Int) -> Int) {
        let w2 = 2 * w, w3 = 3 * w
        /// Colour `c` at green site `i` from the cardinal colour differences, blended by `d`.
        @inline(__always) func fill(_ c: UnsafeMutableBufferPointer<Float>, _ i: Int, _ d: Float) {
            let nGrad = eps + abs(g[i] - g[i - w2]) + abs(c[i - w] - c[i + w]) + abs(c[i - w] - c[i - w3])
            let sGrad = eps + abs(g[i] - g[i + w2]) + abs(c[i + w] - c[i - w]) + abs(c[i + w] - c[i + w3])
            let wGrad = eps + abs(g[i] - g[i - 2]) + abs(c[i - 1] - c[i + 1]) + abs(c[i - 1] - c[i - 3])
            let eGrad = eps + abs(g[i] - g[i + 2]) + abs(c[i + 1] - c[i - 1]) + abs(c[i + 1] - c[i + 3])
            let nEst = c[i - w] - g[i - w]
            let sEst = c[i + w] - g[i + w]
            let wEst = c[i - 1] - g[i - 1]
            let eEst = c[i + 1] - g[i + 1]
            let vEst = (nGrad * sEst + sGrad * nEst) / (nGrad + sGrad)
            let hEst = (eGrad * wEst + wGrad * eEst) / (eGrad + wGrad)
            c[i] = g[i] + d * hEst + (1 - d) * vEst
        }
        for y in 4..<(h - 4) {
            var x = 4 + (colour(4, y) == 1 ? 0 : 1)
            while x < w - 4 {
                let i = y * w + x
                let d = refined(vh, i, w)
                fill(r, i, d)
                fill(b, i, d)
                x += 2
            }
        }
    }

    @inline(__always)
    private static func square(_ v: Float) -> Float { v * v }
}

// References
// - Luis Sanz Rodríguez, "Ratio Corrected Demosaicing" v2.3 (2017–2020),
//   as carried by RawTherapee (rtengine/rcd_demosaic.cc) and Siril
//   (src/algos/demosaicing_rtp.c); this is our own implementation of its steps.
