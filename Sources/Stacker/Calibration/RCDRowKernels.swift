/// The row kernels of `RCDDebayer`: each computes one row of one RCD step
/// at the sites of one column parity `p` (the step's rows split by parity,
/// `HalfRow`; site `i` is column `2i + p`), from rows of its inputs,
/// `V.scalarCount` sites at a time. Green sites and red or blue sites each
/// fill whole vectors, so no step computes values it throws away. A kernel
/// reads its stencil's columns and rows around each site (callers keep
/// those inside the rows) and covers the sites in columns `lo..<hi` by
/// `halfBlocks`, the last block moved back (recomputing some sites, which
/// is harmless since no kernel reads what it writes). Every lane runs the
/// same arithmetic in the same order, so results depend neither on `V`
/// nor on the split. Where a step blends quotients (green's four ratio
/// estimates, the two directional estimates of red and blue), they are
/// brought over one denominator first: 8 divisions per 2 pixels instead of
/// 15, the result within rounding (1e-5 on `RCDHalfRowTests`' mosaics) of
/// the statement in `RCDDebayer`'s documentation.
///
/// Pointer code stays here (and in `SIMDRowKernel`); `RCDDebayer` only hands out rows.
enum RCDRowKernels: SIMDRowKernel {
    static let eps = RCDDebayer.eps
    static let epsSquared = RCDDebayer.epsSquared

    // MARK: steps

    /// Step 2: the low-pass at the sites of parity `p` in `lo..<hi` (rows `m0 ± 1` of the clamped mosaic).
    static func lowPass<V: SIMD>(_: V.Type, up: HalfRow, m0: HalfRow, down: HalfRow, into out: HalfRow,
                                 parity p: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let c0 = m0.tap(p, 0), w1 = m0.tap(p, -1), e1 = m0.tap(p, 1)
        let u0 = up.tap(p, 0), uW = up.tap(p, -1), uE = up.tap(p, 1)
        let d0 = down.tap(p, 0), dW = down.tap(p, -1), dE = down.tap(p, 1)
        let o = out.tap(p, 0)
        let (starts, keep) = halfBlocks(V.self, parity: p, lo, hi)
        for i in starts {
            let c: V = load(c0, i)
            let cross: V = load(u0, i) + load(d0, i) + load(w1, i) + load(e1, i)
            let diag: V = load(uW, i) + load(uE, i) + load(dW, i) + load(dE, i)
            put(c + 0.5 * cross + 0.25 * diag, o, i, keep)
        }
    }

    /// The squared high-pass `(m₋₃ − m₋₁ − m₊₁ + m₊₃) − 3 (m₋₂ + m₊₂) + 6 m₀`
    /// whose samples `m₋₃ … m₊₃` are `rows[k]` at column `x + shift · (k − 3)`
    /// (shift 0 vertical, 1 the NW–SE diagonal, −1 the NE–SW one; with one
    /// row repeated 7 times and shift 1, horizontal), at the sites of parity `p`.
    static func highPassEnergy<V: SIMD>(_: V.Type, rows r: HalfRowWindow, shift s: Int, into out: HalfRow,
                                        parity p: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let t0 = r[0].tap(p, -3 * s), t1 = r[1].tap(p, -2 * s), t2 = r[2].tap(p, -s), t3 = r[3].tap(p, 0)
        let t4 = r[4].tap(p, s), t5 = r[5].tap(p, 2 * s), t6 = r[6].tap(p, 3 * s)
        let o = out.tap(p, 0)
        let (starts, keep) = halfBlocks(V.self, parity: p, lo, hi)
        for i in starts {
            let m3: V = load(t0, i), m2: V = load(t1, i), m1: V = load(t2, i)
            let c: V = load(t3, i)
            let p1: V = load(t4, i), p2: V = load(t5, i), p3: V = load(t6, i)
            let v = m3 - m1 - p1 + p3 - 3 * (m2 + p2) + 6 * c
            put(v * v, o, i, keep)
        }
    }

    /// Step 1: `A / (A + B)` at the sites of parity `p`, A the 3-tap sum of
    /// `a` (rows above, here, below, at columns shifted by `−aShift, 0,
    /// +aShift`), B that of `b` (shifted by `−bShift, 0, +bShift`), each at least eps².
    static func discrimination<V: SIMD>(_: V.Type, a: (HalfRow, HalfRow, HalfRow), aShift: Int,
                                        b: (HalfRow, HalfRow, HalfRow), bShift: Int,
                                        into out: HalfRow, parity p: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let floor = V(repeating: epsSquared)
        let a0 = a.0.tap(p, -aShift), a1 = a.1.tap(p, 0), a2 = a.2.tap(p, aShift)
        let b0 = b.0.tap(p, -bShift), b1 = b.1.tap(p, 0), b2 = b.2.tap(p, bShift)
        let o = out.tap(p, 0)
        let (starts, keep) = halfBlocks(V.self, parity: p, lo, hi)
        for i in starts {
            let sa = atLeast(floor, load(a0, i) + load(a1, i) + load(a2, i) as V)
            let sb = atLeast(floor, load(b0, i) + load(b1, i) + load(b2, i) as V)
            put(sa / (sa + sb), o, i, keep)
        }
    }

    /// The taps `refined` reads for the sites of parity `p`: the row here at
    /// the site, the rows above and below one column left and right.
    typealias RefineTaps = (here: Row, upW: Row, upE: Row, downW: Row, downE: Row)

    static func refineTaps(_ rows: (HalfRow, HalfRow, HalfRow), parity p: Int) -> RefineTaps {
        (rows.1.tap(p, 0), rows.0.tap(p, -1), rows.0.tap(p, 1), rows.2.tap(p, -1), rows.2.tap(p, 1))
    }

    /// VH (or PQ) at site `i`, or the mean of its 4 diagonal neighbours when that is further from ½.
    @inline(__always)
    static func refined<V: SIMD>(_ t: RefineTaps, _ i: Int) -> V where V.Scalar == Float {
        let centre: V = load(t.here, i)
        let around: V = 0.25 * (load(t.upW, i) + load(t.upE, i) + load(t.downW, i) + load(t.downE, i))
        let half = V(repeating: 0.5)
        return select(around, ifNegative: mag(half - centre) - mag(half - around), else: centre)
    }

    /// Step 3: green at the red and blue sites of a row (parity `p`) into
    /// `g`, from the clamped mosaic rows `m[0...8]` (the row is `m[4]`), the
    /// low-pass rows `lpf[0...4]` (the row is `lpf[2]`, every other row:
    /// `lpf[1]`, `lpf[3]` are unused) and the VH rows above, here, below.
    static func green<V: SIMD>(_: V.Type, m: HalfRowWindow, lpf: HalfRowWindow, vh: (HalfRow, HalfRow, HalfRow), into g: HalfRow,
                               parity p: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let n4 = m[0].tap(p, 0), n3 = m[1].tap(p, 0), n2 = m[2].tap(p, 0), n1 = m[3].tap(p, 0)
        let s1 = m[5].tap(p, 0), s2 = m[6].tap(p, 0), s3 = m[7].tap(p, 0), s4 = m[8].tap(p, 0)
        let c0 = m[4].tap(p, 0), w1 = m[4].tap(p, -1), e1 = m[4].tap(p, 1), w2 = m[4].tap(p, -2), e2 = m[4].tap(p, 2)
        let w3 = m[4].tap(p, -3), e3 = m[4].tap(p, 3), w4 = m[4].tap(p, -4), e4 = m[4].tap(p, 4)
        let lN = lpf[0].tap(p, 0), l0 = lpf[2].tap(p, 0), lS = lpf[4].tap(p, 0)
        let lW = lpf[2].tap(p, -2), lE = lpf[2].tap(p, 2)
        let d = refineTaps(vh, parity: p)
        let o = g.tap(p, 0)
        let e = V(repeating: eps)
        let (starts, keep) = halfBlocks(V.self, parity: p, lo, hi)
        for i in starts {
            let c: V = load(c0, i)
            let mN1: V = load(n1, i), mS1: V = load(s1, i), mN2: V = load(n2, i), mS2: V = load(s2, i)
            let mW1: V = load(w1, i), mE1: V = load(e1, i), mW2: V = load(w2, i), mE2: V = load(e2, i)
            let vertical = mag(mN1 - mS1), horizontal = mag(mW1 - mE1)
            let nGrad = e + vertical + mag(c - mN2) + mag(mN1 - load(n3, i)) + mag(mN2 - load(n4, i))
            let sGrad = e + vertical + mag(c - mS2) + mag(mS1 - load(s3, i)) + mag(mS2 - load(s4, i))
            let wGrad = e + horizontal + mag(c - mW2) + mag(mW1 - load(w3, i)) + mag(mW2 - load(w4, i))
            let eGrad = e + horizontal + mag(c - mE2) + mag(mE1 - load(e3, i)) + mag(mE2 - load(e4, i))
            let lc: V = load(l0, i)
            let here = 2 * lc
            // The ratios' low-pass sums: nEst = mN1 · here / nLow, and so on.
            let nLow = e + lc + load(lN, i), sLow = e + lc + load(lS, i)
            let wLow = e + lc + load(lW, i), eLow = e + lc + load(lE, i)
            // vEst = (sGrad · nEst + nGrad · sEst) / (nGrad + sGrad) over one denominator; hEst alike.
            let vEst = here * (sGrad * mN1 * sLow + nGrad * mS1 * nLow) / ((nGrad + sGrad) * (nLow * sLow))
            let hEst = here * (wGrad * mE1 * wLow + eGrad * mW1 * eLow) / ((eGrad + wGrad) * (eLow * wLow))
            let dd: V = refined(d, i)
            put(dd * hEst + (1 - dd) * vEst, o, i, keep)
        }
    }

    /// Step 4.2: the missing one of red and blue at the red or blue sites
    /// of a row (parity `p`), into `c` (rows `c[0...6]`, the row `c[3]`),
    /// from green rows `g[0...4]` (the row `g[2]`) and PQ rows.
    static func redAndBlueAtEachOther<V: SIMD>(_: V.Type, g gr: HalfRowWindow, c cr: HalfRowWindow, pq: (HalfRow, HalfRow, HalfRow),
                                               parity p: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let g0 = gr[2].tap(p, 0)
        let gN2W = gr[0].tap(p, -2), gN2E = gr[0].tap(p, 2), gS2W = gr[4].tap(p, -2), gS2E = gr[4].tap(p, 2)
        let gN1W = gr[1].tap(p, -1), gN1E = gr[1].tap(p, 1), gS1W = gr[3].tap(p, -1), gS1E = gr[3].tap(p, 1)
        let cN3W = cr[0].tap(p, -3), cN3E = cr[0].tap(p, 3), cS3W = cr[6].tap(p, -3), cS3E = cr[6].tap(p, 3)
        let cN1W = cr[2].tap(p, -1), cN1E = cr[2].tap(p, 1), cS1W = cr[4].tap(p, -1), cS1E = cr[4].tap(p, 1)
        let d = refineTaps(pq, parity: p)
        let o = cr[3].tap(p, 0)
        let e = V(repeating: eps)
        let (starts, keep) = halfBlocks(V.self, parity: p, lo, hi)
        for i in starts {
            let g: V = load(g0, i)
            let cNW: V = load(cN1W, i), cNE: V = load(cN1E, i), cSW: V = load(cS1W, i), cSE: V = load(cS1E, i)
            let nwGrad = e + mag(cNW - cSE) + mag(cNW - load(cN3W, i)) + mag(g - load(gN2W, i))
            let neGrad = e + mag(cNE - cSW) + mag(cNE - load(cN3E, i)) + mag(g - load(gN2E, i))
            let swGrad = e + mag(cNE - cSW) + mag(cSW - load(cS3W, i)) + mag(g - load(gS2W, i))
            let seGrad = e + mag(cNW - cSE) + mag(cSE - load(cS3E, i)) + mag(g - load(gS2E, i))
            let nwEst = cNW - load(gN1W, i)
            let neEst = cNE - load(gN1E, i)
            let swEst = cSW - load(gS1W, i)
            let seEst = cSE - load(gS1E, i)
            // g + dd · qEst + (1 − dd) · pEst, where pEst = pNum / pDen and qEst = qNum / qDen, over one denominator.
            let pNum = nwGrad * seEst + seGrad * nwEst, pDen = nwGrad + seGrad
            let qNum = neGrad * swEst + swGrad * neEst, qDen = neGrad + swGrad
            let dd: V = refined(d, i)
            put(g + (dd * qNum * pDen + (1 - dd) * pNum * qDen) / (pDen * qDen), o, i, keep)
        }
    }

    /// Step 4.3: red and blue at the green sites of a row (parity `p`),
    /// into the rows `r[3]` and `b[3]` (of `r[0...6]`, `b[0...6]`), from
    /// green rows `g[0...4]` (the row `g[2]`) and VH rows; then, block by
    /// block while the rows are in cache, the row's R, G and B joined into
    /// the output rows `planes` (`joinBlock`), whose other colour sites the
    /// rows must already hold. Returns the columns written to `planes`
    /// (`lo..<hi` or a little more, whose extra columns the rows hold as the
    /// planes do; empty for a row with fewer sites than lanes): the caller
    /// joins the rest of `lo..<hi`.
    static func redAndBlueAtGreen<V: SIMD>(_: V.Type, g gr: HalfRowWindow, r: HalfRowWindow, b: HalfRowWindow, vh: (HalfRow, HalfRow, HalfRow),
                                           joiningInto planes: (Row, Row, Row),
                                           parity p: Int, lo: Int, hi: Int) -> Range<Int> where V.Scalar == Float {
        let g0 = gr[2].tap(p, 0), gW = gr[2].tap(p, -1), gE = gr[2].tap(p, 1), gW2 = gr[2].tap(p, -2), gE2 = gr[2].tap(p, 2)
        let gN1 = gr[1].tap(p, 0), gS1 = gr[3].tap(p, 0), gN2 = gr[0].tap(p, 0), gS2 = gr[4].tap(p, 0)
        let d = refineTaps(vh, parity: p)
        let e = V(repeating: eps)
        /// One colour's taps: the rows 3 and 1 above and below at the site, the row here 1 and 3 left and right, the output.
        typealias Taps = (n3: Row, n1: Row, s1: Row, s3: Row, w1: Row, e1: Row, w3: Row, e3: Row, out: Row)
        func taps(_ c: HalfRowWindow) -> Taps {
            (c[0].tap(p, 0), c[2].tap(p, 0), c[4].tap(p, 0), c[6].tap(p, 0),
             c[3].tap(p, -1), c[3].tap(p, 1), c[3].tap(p, -3), c[3].tap(p, 3), c[3].tap(p, 0))
        }
        let rt = taps(r), bt = taps(b)
        let rRow = r[3], gRow = gr[2], bRow = b[3]
        let (starts, keep) = halfBlocks(V.self, parity: p, lo, hi)
        let joining = keep == nil
        for i in starts {
            let g: V = load(g0, i)
            let gN: V = load(gN1, i), gS: V = load(gS1, i), gWv: V = load(gW, i), gEv: V = load(gE, i)
            let nG = mag(g - load(gN2, i)), sG = mag(g - load(gS2, i))
            let wG = mag(g - load(gW2, i)), eG = mag(g - load(gE2, i))
            let dd: V = refined(d, i)
            /// One colour at this block's green sites, stored and returned.
            @inline(__always) func fill(_ t: Taps) -> V {
                let cN: V = load(t.n1, i), cS: V = load(t.s1, i), cW: V = load(t.w1, i), cE: V = load(t.e1, i)
                let nGrad = e + nG + mag(cN - cS) + mag(cN - load(t.n3, i))
                let sGrad = e + sG + mag(cS - cN) + mag(cS - load(t.s3, i))
                let wGrad = e + wG + mag(cW - cE) + mag(cW - load(t.w3, i))
                let eGrad = e + eG + mag(cE - cW) + mag(cE - load(t.e3, i))
                let nEst = cN - gN, sEst = cS - gS, wEst = cW - gWv, eEst = cE - gEv
                // g + dd · hEst + (1 − dd) · vEst, where vEst = vNum / vDen and hEst = hNum / hDen, over one denominator.
                let vNum = nGrad * sEst + sGrad * nEst, vDen = nGrad + sGrad
                let hNum = eGrad * wEst + wGrad * eEst, hDen = eGrad + wGrad
                let value = g + (dd * hNum * vDen + (1 - dd) * vNum * hDen) / (vDen * hDen)
                put(value, t.out, i, keep)
                return value
            }
            let rv = fill(rt), bv = fill(bt)
            if joining {
                // The green sites' values from registers, not reloaded
                // from the rows just stored (a wide store read back at
                // once can miss store-to-load forwarding).
                @inline(__always) func join(_ here: V, _ row: HalfRow, into out: Row) {
                    let there: V = load(row.half(1 - p), i)
                    if p == 0 { joinBlock(V.self, even: here, odd: there, i, into: out) } else { joinBlock(V.self, even: there, odd: here, i, into: out) }
                }
                join(rv, rRow, into: planes.0)
                join(g, gRow, into: planes.1)
                join(bv, bRow, into: planes.2)
            }
        }
        // The blocks cover the sites first..<end (halfBlocks), so the column pairs from 2 · first to 2 · end.
        return joining ? 2 * ((lo - p + 1) >> 1) ..< 2 * ((hi - p + 1) >> 1) : lo..<lo
    }
}
