import Registration
@testable import Stacker

// `RCDDebayer` as it was before its rows were split by column parity
// (commit 181fcf0): every step computed at every column, with the sites it
// does not fill masked off. Kept here only as the reference that
// `RCDHalfRowTests` holds the split version to (within 1e-5).

/// The whole-row RCD driver (see `RCDDebayer` for the steps).
enum RCDWholeRowReference: RowBandDebayer {
    static let border = 4

    /// Steps 1–4 for the pixels 4 or more from the border of the planes
    /// `rgb` (`width` × `height`, at least 10 each, border already filled),
    /// from the mosaic `src`, `V.scalarCount` columns at a time (at most `width` − 8).
    static func interior<V: SIMD>(_: V.Type, _ src: UnsafePointer<Float>,
                                          _ rgb: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
                                          width w: Int, height h: Int, pattern: BayerPattern) where V.Scalar == Float {
        typealias K = RCDWholeRowReferenceKernels
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

/// The whole-row RCD kernels, each step at every column of `lo..<hi`.
enum RCDWholeRowReferenceKernels: SIMDRowKernel {
    static let eps = RCDDebayer.eps
    static let epsSquared = RCDDebayer.epsSquared

    // MARK: steps

    /// Step 2: the low-pass at every column of `lo..<hi` (rows `m0 ± 1` of the clamped mosaic).
    static func lowPass<V: SIMD>(_: V.Type, up: Row, m0: Row, down: Row, into out: Row, lo: Int, hi: Int) where V.Scalar == Float {
        for x in blockStarts(V.self, lo, hi) {
            let c: V = load(m0, x)
            let cross: V = load(up, x) + load(down, x) + load(m0, x - 1) + load(m0, x + 1)
            let diag: V = load(up, x - 1) + load(up, x + 1) + load(down, x - 1) + load(down, x + 1)
            store(c + 0.5 * cross + 0.25 * diag, out, x)
        }
    }

    /// The squared high-pass `(m₋₃ − m₋₁ − m₊₁ + m₊₃) − 3 (m₋₂ + m₊₂) + 6 m₀`
    /// whose samples `m₋₃ … m₊₃` are `rows[k]` at column `x + shift · (k − 3)`
    /// (shift 0 vertical, 1 the NW–SE diagonal, −1 the NE–SW one; with one
    /// row repeated 7 times and shift 1, horizontal).
    static func highPassEnergy<V: SIMD>(_: V.Type, rows r: [Row], shift s: Int, into out: Row, lo: Int, hi: Int) where V.Scalar == Float {
        let r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3], r4 = r[4], r5 = r[5], r6 = r[6]
        for x in blockStarts(V.self, lo, hi) {
            let m3: V = load(r0, x - 3 * s), m2: V = load(r1, x - 2 * s), m1: V = load(r2, x - s)
            let c: V = load(r3, x)
            let p1: V = load(r4, x + s), p2: V = load(r5, x + 2 * s), p3: V = load(r6, x + 3 * s)
            let v = m3 - m1 - p1 + p3 - 3 * (m2 + p2) + 6 * c
            store(v * v, out, x)
        }
    }

    /// Step 1: `A / (A + B)`, A the 3-tap sum of `a` (rows above, here,
    /// below, at columns shifted by `−aShift, 0, +aShift`), B that of `b`
    /// (shifted by `−bShift, 0, +bShift`), each at least eps².
    static func discrimination<V: SIMD>(_: V.Type, a: (Row, Row, Row), aShift: Int, b: (Row, Row, Row), bShift: Int,
                                        into out: Row, lo: Int, hi: Int) where V.Scalar == Float {
        let floor = V(repeating: epsSquared)
        for x in blockStarts(V.self, lo, hi) {
            let sa = atLeast(floor, load(a.0, x - aShift) + load(a.1, x) + load(a.2, x + aShift) as V)
            let sb = atLeast(floor, load(b.0, x - bShift) + load(b.1, x) + load(b.2, x + bShift) as V)
            store(sa / (sa + sb), out, x)
        }
    }

    /// VH (or PQ) at `x`, or the mean of its 4 diagonal neighbours when that is further from ½.
    @inline(__always)
    static func refined<V: SIMD>(_ up: Row, _ here: Row, _ down: Row, _ x: Int) -> V where V.Scalar == Float {
        let centre: V = load(here, x)
        let around: V = 0.25 * (load(up, x - 1) + load(up, x + 1) + load(down, x - 1) + load(down, x + 1))
        let half = V(repeating: 0.5)
        return select(around, ifNegative: mag(half - centre) - mag(half - around), else: centre)
    }

    /// Step 3: green at the red and blue sites of a row (those of column
    /// parity `parity`; the other sites take their own sample), from the clamped mosaic rows `m[0...8]` (the row
    /// is `m[4]`), the low-pass rows `lpf[0...4]` (the row is `lpf[2]`, every
    /// other row: `lpf[1]`, `lpf[3]` are unused) and the VH rows above, here, below.
    static func green<V: SIMD>(_: V.Type, m: [Row], lpf: [Row], vh: (Row, Row, Row), into g: Row,
                               parity: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let n4 = m[0], n3 = m[1], n2 = m[2], n1 = m[3], c0 = m[4], s1 = m[5], s2 = m[6], s3 = m[7], s4 = m[8]
        let lN = lpf[0], l0 = lpf[2], lS = lpf[4]
        let masks = parityMasks(V.self, parity: parity)
        let e = V(repeating: eps)
        for x in blockStarts(V.self, lo, hi) {
            let c: V = load(c0, x)
            let mN1: V = load(n1, x), mS1: V = load(s1, x), mN2: V = load(n2, x), mS2: V = load(s2, x)
            let mW1: V = load(c0, x - 1), mE1: V = load(c0, x + 1), mW2: V = load(c0, x - 2), mE2: V = load(c0, x + 2)
            let vertical = mag(mN1 - mS1), horizontal = mag(mW1 - mE1)
            let nGrad = e + vertical + mag(c - mN2) + mag(mN1 - load(n3, x)) + mag(mN2 - load(n4, x))
            let sGrad = e + vertical + mag(c - mS2) + mag(mS1 - load(s3, x)) + mag(mS2 - load(s4, x))
            let wGrad = e + horizontal + mag(c - mW2) + mag(mW1 - load(c0, x - 3)) + mag(mW2 - load(c0, x - 4))
            let eGrad = e + horizontal + mag(c - mE2) + mag(mE1 - load(c0, x + 3)) + mag(mE2 - load(c0, x + 4))
            let lc: V = load(l0, x)
            let here = 2 * lc
            let nEst = mN1 * here / (e + lc + load(lN, x))
            let sEst = mS1 * here / (e + lc + load(lS, x))
            let wEst = mW1 * here / (e + lc + load(l0, x - 2))
            let eEst = mE1 * here / (e + lc + load(l0, x + 2))
            let vEst = (sGrad * nEst + nGrad * sEst) / (nGrad + sGrad)
            let hEst = (wGrad * eEst + eGrad * wEst) / (eGrad + wGrad)
            let d: V = refined(vh.0, vh.1, vh.2, x)
            // Green sites keep their own sample.
            let mask = (x & 1) == 0 ? masks.0 : masks.1
            let filled: V = float((bits(d * hEst + (1 - d) * vEst) & mask) | (bits(c) & ~mask))
            store(filled, g, x)
        }
    }

    /// Step 4.2: the missing one of red and blue at the red or blue sites
    /// of a row (column parity `parity`), into `c` (rows `c[0...6]`, the row
    /// `c[3]`), from green rows `g[0...4]` (the row `g[2]`) and PQ rows.
    static func redAndBlueAtEachOther<V: SIMD>(_: V.Type, g gr: [Row], c cr: [Row], pq: (Row, Row, Row),
                                               parity: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let gN2 = gr[0], gN1 = gr[1], g0 = gr[2], gS1 = gr[3], gS2 = gr[4]
        let cN3 = cr[0], cN1 = cr[2], c0 = cr[3], cS1 = cr[4], cS3 = cr[6]
        let masks = parityMasks(V.self, parity: parity)
        let e = V(repeating: eps)
        for x in blockStarts(V.self, lo, hi) {
            let g: V = load(g0, x)
            let cNW: V = load(cN1, x - 1), cNE: V = load(cN1, x + 1), cSW: V = load(cS1, x - 1), cSE: V = load(cS1, x + 1)
            let nwGrad = e + mag(cNW - cSE) + mag(cNW - load(cN3, x - 3)) + mag(g - load(gN2, x - 2))
            let neGrad = e + mag(cNE - cSW) + mag(cNE - load(cN3, x + 3)) + mag(g - load(gN2, x + 2))
            let swGrad = e + mag(cNE - cSW) + mag(cSW - load(cS3, x - 3)) + mag(g - load(gS2, x - 2))
            let seGrad = e + mag(cNW - cSE) + mag(cSE - load(cS3, x + 3)) + mag(g - load(gS2, x + 2))
            let nwEst = cNW - load(gN1, x - 1)
            let neEst = cNE - load(gN1, x + 1)
            let swEst = cSW - load(gS1, x - 1)
            let seEst = cSE - load(gS1, x + 1)
            let pEst = (nwGrad * seEst + seGrad * nwEst) / (nwGrad + seGrad)
            let qEst = (neGrad * swEst + swGrad * neEst) / (neGrad + swGrad)
            let d: V = refined(pq.0, pq.1, pq.2, x)
            store(g + d * qEst + (1 - d) * pEst, c0, x, where: (x & 1) == 0 ? masks.0 : masks.1)
        }
    }

    /// Step 4.3: red and blue at the green sites of a row (column parity
    /// `parity`), into the rows `r[3]` and `b[3]` (of `r[0...6]`,
    /// `b[0...6]`), from green rows `g[0...4]` (the row `g[2]`) and VH rows.
    static func redAndBlueAtGreen<V: SIMD>(_: V.Type, g gr: [Row], r: [Row], b: [Row], vh: (Row, Row, Row),
                                           parity: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let gN2 = gr[0], gN1 = gr[1], g0 = gr[2], gS1 = gr[3], gS2 = gr[4]
        let masks = parityMasks(V.self, parity: parity)
        let e = V(repeating: eps)
        let rN3 = r[0], rN1 = r[2], r0 = r[3], rS1 = r[4], rS3 = r[6]
        let bN3 = b[0], bN1 = b[2], b0 = b[3], bS1 = b[4], bS3 = b[6]
        for x in blockStarts(V.self, lo, hi) {
            let g: V = load(g0, x)
            let gN: V = load(gN1, x), gS: V = load(gS1, x), gW: V = load(g0, x - 1), gE: V = load(g0, x + 1)
            let nG = mag(g - load(gN2, x)), sG = mag(g - load(gS2, x))
            let wG = mag(g - load(g0, x - 2)), eG = mag(g - load(g0, x + 2))
            let d: V = refined(vh.0, vh.1, vh.2, x)
            let mask = (x & 1) == 0 ? masks.0 : masks.1
            /// Colour rows (n3, n1, here, s1, s3) at this block's green sites.
            @inline(__always) func fill(_ n3: Row, _ n1: Row, _ c0: Row, _ s1: Row, _ s3: Row) {
                let cN: V = load(n1, x), cS: V = load(s1, x), cW: V = load(c0, x - 1), cE: V = load(c0, x + 1)
                let nGrad = e + nG + mag(cN - cS) + mag(cN - load(n3, x))
                let sGrad = e + sG + mag(cS - cN) + mag(cS - load(s3, x))
                let wGrad = e + wG + mag(cW - cE) + mag(cW - load(c0, x - 3))
                let eGrad = e + eG + mag(cE - cW) + mag(cE - load(c0, x + 3))
                let nEst = cN - gN, sEst = cS - gS, wEst = cW - gW, eEst = cE - gE
                let vEst = (nGrad * sEst + sGrad * nEst) / (nGrad + sGrad)
                let hEst = (eGrad * wEst + wGrad * eEst) / (eGrad + wGrad)
                store(g + d * hEst + (1 - d) * vEst, c0, x, where: mask)
            }
            fill(rN3, rN1, r0, rS1, rS3)
            fill(bN3, bN1, b0, bS1, bS3)
        }
    }
}
