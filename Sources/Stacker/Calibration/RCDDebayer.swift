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
/// at each other 7, at green 10), its inputs kept in rings of 16 rows, so
/// the working set beside the output is about 8 × 16 rows (for a 6000-wide
/// mosaic, 3 MB) and stays in cache. The steps' arithmetic is in
/// `RCDRowKernels`, SIMD over columns.
enum RCDDebayer: RowBandDebayer {
    static let eps: Float = 1e-5
    static let epsSquared: Float = 1e-10

    static let border = 4

    /// Steps 1–4 for the pixels 4 or more from the border of the planes
    /// `rgb` (`width` × `height`, at least 10 each, border already filled),
    /// from the mosaic `src`, `V.scalarCount` columns at a time (at most `width` − 8).
    static func interior<V: SIMD>(_: V.Type, _ src: UnsafePointer<Float>,
                                          _ rgb: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
                                          width w: Int, height h: Int, pattern: BayerPattern) where V.Scalar == Float {
        typealias K = RCDRowKernels
        func greenParity(_ y: Int) -> Int { pattern.greenParity(row: y) }
        func otherColour(_ y: Int) -> Int { pattern.otherColour(row: y) }
        func plane(_ c: Int) -> UnsafeMutablePointer<Float> { c == 0 ? rgb.0 : (c == 1 ? rgb.1 : rgb.2) }
        func row(_ c: Int, _ y: Int) -> UnsafeMutablePointer<Float> { plane(c) + y * w }
        func rows(_ c: Int, _ range: ClosedRange<Int>) -> [UnsafeMutablePointer<Float>] { range.map { row(c, $0) } }

        let cfa = RowRing(width: w, filledWith: 0), lpf = RowRing(width: w, filledWith: 0)
        let energyV = RowRing(width: w, filledWith: 0), energyP = RowRing(width: w, filledWith: 0)
        let energyQ = RowRing(width: w, filledWith: 0)
        let vh = RowRing(width: w, filledWith: 0.5), pq = RowRing(width: w, filledWith: 0.5)
        let energyH = UnsafeMutablePointer<Float>.allocate(capacity: w)
        energyH.initialize(repeating: 0, count: w)
        defer {
            for ring in [cfa, lpf, energyV, energyP, energyQ, vh, pq] { ring.deallocate() }
            energyH.deallocate()
        }

        for t in 0..<(h + 10) {
            if t < h {
                // The mosaic clamped at 0; interior red and blue sites keep
                // their own (clamped) sample (green ones get it in step 3).
                let m = cfa(t), s = src + t * w
                for x in 0..<w { m[x] = s[x] <= 0 ? 0 : s[x] }  // max(s, 0), as a select that vectorises
                if t >= 4 && t < h - 4 {
                    let other = row(otherColour(t), t)
                    for x in stride(from: 5 - greenParity(t), to: w - 4, by: 2) { other[x] = m[x] }
                }
            }
            let y1 = t - 1
            if y1 >= 2 && y1 < h - 2 {
                K.lowPass(V.self, up: cfa(y1 - 1), m0: cfa(y1), down: cfa(y1 + 1), into: lpf(y1), lo: 2, hi: w - 2)
            }
            let e = t - 3
            if e >= 3 && e < h - 3 {
                let m = cfa.rows((e - 3)...(e + 3))
                K.highPassEnergy(V.self, rows: m, shift: 0, into: energyV(e), lo: 3, hi: w - 3)
                K.highPassEnergy(V.self, rows: m, shift: 1, into: energyP(e), lo: 3, hi: w - 3)
                K.highPassEnergy(V.self, rows: m, shift: -1, into: energyQ(e), lo: 3, hi: w - 3)
            }
            let y4 = t - 4
            if y4 == 3 || y4 == h - 4 {
                vh(y4).update(repeating: 0.5, count: w)
                pq(y4).update(repeating: 0.5, count: w)
            } else if y4 > 3 && y4 < h - 4 {
                K.highPassEnergy(V.self, rows: Array(repeating: cfa(y4), count: 7), shift: 1, into: energyH, lo: 3, hi: w - 3)
                K.discrimination(V.self, a: (energyV(y4 - 1), energyV(y4), energyV(y4 + 1)), aShift: 0,
                                 b: (energyH, energyH, energyH), bShift: 1, into: vh(y4), lo: 4, hi: w - 4)
                K.discrimination(V.self, a: (energyP(y4 - 1), energyP(y4), energyP(y4 + 1)), aShift: 1,
                                 b: (energyQ(y4 - 1), energyQ(y4), energyQ(y4 + 1)), bShift: -1, into: pq(y4), lo: 4, hi: w - 4)
            }
            let y5 = t - 5
            if y5 >= 4 && y5 < h - 4 {
                K.green(V.self, m: cfa.rows((y5 - 4)...(y5 + 4)), lpf: lpf.rows((y5 - 2)...(y5 + 2)),
                        vh: (vh(y5 - 1), vh(y5), vh(y5 + 1)), into: row(1, y5),
                        parity: 1 - greenParity(y5), lo: 4, hi: w - 4)
            }
            let y7 = t - 7
            if y7 >= 4 && y7 < h - 4 {
                // Red at blue sites, blue at red sites.
                let missing = 2 - otherColour(y7)
                K.redAndBlueAtEachOther(V.self, g: rows(1, (y7 - 2)...(y7 + 2)), c: rows(missing, (y7 - 3)...(y7 + 3)),
                                        pq: (pq(y7 - 1), pq(y7), pq(y7 + 1)),
                                        parity: 1 - greenParity(y7), lo: 4, hi: w - 4)
            }
            let y10 = t - 10
            if y10 >= 4 && y10 < h - 4 {
                K.redAndBlueAtGreen(V.self, g: rows(1, (y10 - 2)...(y10 + 2)), r: rows(0, (y10 - 3)...(y10 + 3)),
                                    b: rows(2, (y10 - 3)...(y10 + 3)), vh: (vh(y10 - 1), vh(y10), vh(y10 + 1)),
                                    parity: greenParity(y10), lo: 4, hi: w - 4)
            }
        }
    }
}

// References
// - Luis Sanz Rodríguez, "Ratio Corrected Demosaicing" v2.3 (2017–2020),
//   as carried by RawTherapee (rtengine/rcd_demosaic.cc) and Siril
//   (src/algos/demosaicing_rtp.c); this is our own implementation of its steps.
