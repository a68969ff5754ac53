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
/// One pass over the rows: each step runs a few rows behind the one it
/// depends on (low-pass 1, energies 3, VH and PQ 4, green 5, red and blue
/// at each other 7, at green 10, then the row is written out), its inputs
/// kept in rings of 16 rows, so the working set beside the output is about
/// 11 × 16 rows (for a 6000-wide mosaic, 4 MB) and stays in cache. Every
/// ring row is split by column parity (`HalfRow`), so each step computes
/// only the sites it fills (green, P/Q and the low-pass only at red and
/// blue sites, red and blue at green sites only there); the last step
/// joins the three colours into the output rows block by block, while
/// they are in cache. The steps' arithmetic is in `RCDRowKernels`, SIMD
/// over the sites of one parity; it brings blended quotients over one
/// denominator, so results match the steps above within rounding.
enum RCDDebayer: RowBandDebayer {
    static let eps: Float = 1e-5
    static let epsSquared: Float = 1e-10

    static let border = 4

    /// Steps 1–4 for the pixels 4 or more from the border of the planes
    /// `rgb` (`width` × `height`, at least 10 each, border already filled),
    /// from the mosaic `src`, `V.scalarCount` sites at a time.
    static func interior<V: SIMD>(_: V.Type, _ src: UnsafePointer<Float>,
                                          _ rgb: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
                                          width w: Int, height h: Int, pattern: BayerPattern) where V.Scalar == Float {
        typealias K = RCDRowKernels
        func greenParity(_ y: Int) -> Int { pattern.greenParity(row: y) }
        func colourParity(_ y: Int) -> Int { 1 - pattern.greenParity(row: y) }
        func otherColour(_ y: Int) -> Int { pattern.otherColour(row: y) }
        func plane(_ c: Int) -> UnsafeMutablePointer<Float> { c == 0 ? rgb.0 : (c == 1 ? rgb.1 : rgb.2) }

        let cfa = HalfRowRing(width: w, filledWith: 0), lpf = HalfRowRing(width: w, filledWith: 0)
        let energyV = HalfRowRing(width: w, filledWith: 0), energyP = HalfRowRing(width: w, filledWith: 0)
        let energyQ = HalfRowRing(width: w, filledWith: 0), energyH = HalfRowRing(width: w, filledWith: 0)
        let vh = HalfRowRing(width: w, filledWith: 0.5), pq = HalfRowRing(width: w, filledWith: 0.5)
        // The output's rows while they are made: own samples, then green,
        // then red and blue; the border columns (and rows) are the bilinear fill's.
        let out = [HalfRowRing(width: w, filledWith: 0), HalfRowRing(width: w, filledWith: 0), HalfRowRing(width: w, filledWith: 0)]
        defer {
            for ring in [cfa, lpf, energyV, energyP, energyQ, energyH, vh, pq] + out { ring.deallocate() }
        }
        func halves(_ r: HalfRowRing, _ y: Int) -> (HalfRow, HalfRow, HalfRow) { (r(y - 1), r(y), r(y + 1)) }
        let both = 0...1

        for t in 0..<(h + 10) {
            if t < h {
                // The mosaic clamped at 0; interior rows keep their own
                // (clamped) samples, the border the bilinear fill's.
                K.deinterleave(src + t * w, count: w, into: cfa(t), clampingAtZero: true)
                if t >= 4 && t < h - 4 {
                    let gp = greenParity(t), cp = 1 - gp, m = cfa(t), count = (w + 1) / 2
                    out[1](t).half(gp).update(from: m.half(gp), count: count)
                    out[otherColour(t)](t).half(cp).update(from: m.half(cp), count: count)
                    for c in 0..<3 {
                        K.scatterColumns(plane(c) + t * w, into: out[c](t), lo: 0, hi: 4)
                        K.scatterColumns(plane(c) + t * w, into: out[c](t), lo: w - 4, hi: w)
                    }
                } else {
                    for c in 0..<3 { K.deinterleave(plane(c) + t * w, count: w, into: out[c](t), clampingAtZero: false) }
                }
            }
            let y1 = t - 1
            if y1 >= 2 && y1 < h - 2 {
                K.lowPass(V.self, up: cfa(y1 - 1), m0: cfa(y1), down: cfa(y1 + 1), into: lpf(y1),
                          parity: colourParity(y1), lo: 2, hi: w - 2)
            }
            let e = t - 3
            if e >= 3 && e < h - 3 {
                let m = cfa.rows((e - 3)...(e + 3))
                for p in both { K.highPassEnergy(V.self, rows: m, shift: 0, into: energyV(e), parity: p, lo: 3, hi: w - 3) }
                K.highPassEnergy(V.self, rows: m, shift: 1, into: energyP(e), parity: colourParity(e), lo: 3, hi: w - 3)
                K.highPassEnergy(V.self, rows: m, shift: -1, into: energyQ(e), parity: colourParity(e), lo: 3, hi: w - 3)
            }
            let y4 = t - 4
            if y4 == 3 || y4 == h - 4 {
                vh.fill(y4, with: 0.5)
                pq.fill(y4, with: 0.5)
            } else if y4 > 3 && y4 < h - 4 {
                let hRow = energyH(0), flat = energyH(0)
                for p in both {
                    K.highPassEnergy(V.self, rows: cfa.repeated(y4), shift: 1, into: hRow, parity: p, lo: 3, hi: w - 3)
                }
                for p in both {
                    K.discrimination(V.self, a: halves(energyV, y4), aShift: 0, b: (flat, flat, flat), bShift: 1,
                                     into: vh(y4), parity: p, lo: 4, hi: w - 4)
                }
                K.discrimination(V.self, a: halves(energyP, y4), aShift: 1, b: halves(energyQ, y4), bShift: -1,
                                 into: pq(y4), parity: colourParity(y4), lo: 4, hi: w - 4)
            }
            let y5 = t - 5
            if y5 >= 4 && y5 < h - 4 {
                K.green(V.self, m: cfa.rows((y5 - 4)...(y5 + 4)), lpf: lpf.rows((y5 - 2)...(y5 + 2)),
                        vh: halves(vh, y5), into: out[1](y5), parity: colourParity(y5), lo: 4, hi: w - 4)
            }
            let y7 = t - 7
            if y7 >= 4 && y7 < h - 4 {
                // Red at blue sites, blue at red sites.
                let missing = 2 - otherColour(y7)
                K.redAndBlueAtEachOther(V.self, g: out[1].rows((y7 - 2)...(y7 + 2)), c: out[missing].rows((y7 - 3)...(y7 + 3)),
                                        pq: halves(pq, y7), parity: colourParity(y7), lo: 4, hi: w - 4)
            }
            let y10 = t - 10
            if y10 >= 4 && y10 < h - 4 {
                let rowOut = (rgb.0 + y10 * w, rgb.1 + y10 * w, rgb.2 + y10 * w)
                let joined = K.redAndBlueAtGreen(V.self, g: out[1].rows((y10 - 2)...(y10 + 2)), r: out[0].rows((y10 - 3)...(y10 + 3)),
                                                 b: out[2].rows((y10 - 3)...(y10 + 3)), vh: halves(vh, y10), joiningInto: rowOut,
                                                 parity: greenParity(y10), lo: 4, hi: w - 4)
                for c in 0..<3 {
                    K.interleave(out[c](y10), into: plane(c) + y10 * w, lo: 4, hi: max(4, joined.lowerBound))
                    K.interleave(out[c](y10), into: plane(c) + y10 * w, lo: min(joined.upperBound, w - 4), hi: w - 4)
                }
            }
        }
    }
}

// References
// - Luis Sanz Rodríguez, "Ratio Corrected Demosaicing" v2.3 (2017–2020),
//   as carried by RawTherapee (rtengine/rcd_demosaic.cc) and Siril
//   (src/algos/demosaicing_rtp.c); this is our own implementation of its steps.
