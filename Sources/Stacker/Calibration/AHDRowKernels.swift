/// The row kernels of `AHDDebayer`: each computes one row of one AHD step
/// from rows of its inputs, `V.scalarCount` columns at a time, over columns
/// `lo..<hi` (see `SIMDRowKernel.blockStarts`: no kernel reads what it writes).
/// Each lane's arithmetic is the same whatever `V`, so results do not
/// depend on it. Pointer code stays here (and in `SIMDRowKernel`);
/// `AHDDebayer` only hands out rows.
enum AHDRowKernels: SIMDRowKernel {
    /// Linear sRGB (D65) to XYZ, each row divided by the D65 white's X, Y or
    /// Z so that equal R, G, B give X = Y = Z (dcraw's `xyz_rgb` over `d65_white`).
    static let xyzFromRGB: [(Float, Float, Float)] = [
        (0.412453 / 0.950456, 0.357580 / 0.950456, 0.180423 / 0.950456),
        (0.212671, 0.715160, 0.072169),
        (0.019334 / 1.088754, 0.119193 / 1.088754, 0.950227 / 1.088754),
    ]

    // MARK: helpers

    /// `max(a, b)` per lane, for finite values.
    @inline(__always)
    static func larger<V: SIMD>(_ a: V, _ b: V) -> V where V.Scalar == Float { select(b, ifNegative: a - b, else: a) }

    /// `min(a, b)` per lane, for finite values.
    @inline(__always)
    static func smaller<V: SIMD>(_ a: V, _ b: V) -> V where V.Scalar == Float { select(a, ifNegative: a - b, else: b) }

    /// All ones in the lanes where `a ≤ b`, else 0 (for finite values: `b − a` is not negative).
    @inline(__always)
    static func notAbove<V: SIMD>(_ a: V, _ b: V) -> V.MaskStorage where V.Scalar == Float { ~(bits(b - a) &>> 31) }

    /// CIELab's `f(t)`: ∛t above (6/29)³ = 0.008856, `7.787 t + 16/116`
    /// below (t clamped at 0 first). The cube root is approximate: the
    /// exponent-thirding bit estimate (fdlibm's `cbrtf` constant, the third
    /// taken by shifts as 1/4 + 1/16 + … + 1/4⁸) and one Halley step
    /// `y (y³ + 2t) / (2y³ + t)`, within 3e-5 of ∛t relative (measured on
    /// [0.008856, 64]).
    @inline(__always)
    static func labCurve<V: SIMD>(_ t: V) -> V where V.Scalar == Float {
        let u = atLeast(V(repeating: 0), t)
        let i = bits(u)
        let third = (i &>> 2) &+ (i &>> 4) &+ (i &>> 6) &+ (i &>> 8) &+ (i &>> 10) &+ (i &>> 12) &+ (i &>> 14) &+ (i &>> 16)
        let y: V = float(third &+ V.MaskStorage(repeating: 709_958_130))
        let y3 = y * y * y
        let root = y * (y3 + 2 * u) / (2 * y3 + u)
        let linear = 7.787 * u + V(repeating: 16.0 / 116.0)
        return select(linear, ifNegative: u - 0.008856, else: root)
    }

    // MARK: steps

    /// Green along one axis at the red and blue sites of a row (those of
    /// column parity `parity`; green sites keep their sample): with the
    /// samples `m₋₂ … m₊₂` at column `x + shift · k` of `rows[k + 2]` (shift 1
    /// along the row, all five the row; shift 0 down the column),
    /// `(2 (m₋₁ + m₀ + m₊₁) − m₋₂ − m₊₂) / 4` clamped between the two green
    /// neighbours `m₋₁` and `m₊₁`.
    static func green<V: SIMD>(_: V.Type, rows r: (Row, Row, Row, Row, Row), shift s: Int, into out: Row,
                               parity: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let masks = parityMasks(V.self, parity: parity)
        for x in blockStarts(V.self, lo, hi) {
            let m2: V = load(r.0, x - 2 * s), m1: V = load(r.1, x - s), c: V = load(r.2, x)
            let p1: V = load(r.3, x + s), p2: V = load(r.4, x + 2 * s)
            let estimate = 0.25 * (2 * (m1 + c + p1) - m2 - p2)
            let clamped = atMost(larger(m1, p1), atLeast(smaller(m1, p1), estimate))
            store(pick(clamped, where: (x & 1) == 0 ? masks.0 : masks.1, else: c), out, x)
        }
    }

    /// Red and blue of a row from one direction's green `g` (rows above,
    /// here, below) and the mosaic `m` (same rows), by colour differences.
    /// The row's green sites have column parity `greenParity`; its other
    /// sites carry the colour written to `rowColour`, and `columnColour` is
    /// the third. At a green site each is its sample plus the mean of
    /// (colour − green) over its two neighbours carrying it (on the row, or
    /// on the column); at the other sites `rowColour` is the sample and
    /// `columnColour` the green plus the mean (colour − green) of the 4
    /// diagonal neighbours. Nothing is clipped.
    static func redAndBlue<V: SIMD>(_: V.Type, m: (Row, Row, Row), g: (Row, Row, Row),
                                    rowColour: Row, columnColour: Row,
                                    greenParity: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let masks = parityMasks(V.self, parity: greenParity)
        for x in blockStarts(V.self, lo, hi) {
            let mask = (x & 1) == 0 ? masks.0 : masks.1
            let c: V = load(m.1, x), gc: V = load(g.1, x)
            let alongRow: V = c + 0.5 * ((load(m.1, x - 1) + load(m.1, x + 1)) - (load(g.1, x - 1) + load(g.1, x + 1)))
            let alongColumn: V = c + 0.5 * ((load(m.0, x) + load(m.2, x)) - (load(g.0, x) + load(g.2, x)))
            let mDiagonal: V = load(m.0, x - 1) + load(m.0, x + 1) + load(m.2, x - 1) + load(m.2, x + 1)
            let gDiagonal: V = load(g.0, x - 1) + load(g.0, x + 1) + load(g.2, x - 1) + load(g.2, x + 1)
            let diagonal = gc + 0.25 * (mDiagonal - gDiagonal)
            store(pick(alongRow, where: mask, else: c), rowColour, x)
            store(pick(alongColumn, where: mask, else: diagonal), columnColour, x)
        }
    }

    /// CIELab (`L = 116 f(Y) − 16`, `a = 500 (f(X) − f(Y))`, `b = 200 (f(Y) −
    /// f(Z))`, `f` = `labCurve`, XYZ by `xyzFromRGB`) of a row's R, G, B.
    static func lab<V: SIMD>(_: V.Type, rgb: (Row, Row, Row), into out: (Row, Row, Row), lo: Int, hi: Int) where V.Scalar == Float {
        let mx = xyzFromRGB[0], my = xyzFromRGB[1], mz = xyzFromRGB[2]
        for x in blockStarts(V.self, lo, hi) {
            let r: V = load(rgb.0, x), g: V = load(rgb.1, x), b: V = load(rgb.2, x)
            let fx = labCurve(mx.0 * r + mx.1 * g + mx.2 * b)
            let fy = labCurve(my.0 * r + my.1 * g + my.2 * b)
            let fz = labCurve(mz.0 * r + mz.1 * g + mz.2 * b)
            store(116 * fy - 16, out.0, x)
            store(500 * (fx - fy), out.1, x)
            store(200 * (fy - fz), out.2, x)
        }
    }

    /// The Lab rows above, here and below of one direction's image.
    struct LabRows {
        let l: (Row, Row, Row), a: (Row, Row, Row), b: (Row, Row, Row)
    }

    /// The homogeneity of a row in the horizontal (`h`) and vertical (`v`)
    /// images: for each, how many of the pixel's 4 neighbours (left, right,
    /// up, down) in the same image are within both the luminance tolerance
    /// (|ΔL| at most the smaller of the horizontal image's larger left/right
    /// |ΔL| and the vertical image's larger up/down |ΔL|) and the chroma one
    /// (Δa² + Δb², the same way), as 0 … 4.
    static func homogeneity<V: SIMD>(_: V.Type, h: LabRows, v: LabRows, into out: (Row, Row), lo: Int, hi: Int) where V.Scalar == Float {
        let one = bits(V(repeating: 1))
        for x in blockStarts(V.self, lo, hi) {
            // |ΔL| and Δa² + Δb² to the left, right, up and down neighbours,
            // written out: nested functions here were left generic (unspecialised) by the compiler.
            let hl: V = load(h.l.1, x), ha: V = load(h.a.1, x), hb: V = load(h.b.1, x)
            let vl: V = load(v.l.1, x), va: V = load(v.a.1, x), vb: V = load(v.b.1, x)
            let hL0 = mag(hl - load(h.l.1, x - 1)), hL1 = mag(hl - load(h.l.1, x + 1))
            let hL2 = mag(hl - load(h.l.0, x)), hL3 = mag(hl - load(h.l.2, x))
            let vL0 = mag(vl - load(v.l.1, x - 1)), vL1 = mag(vl - load(v.l.1, x + 1))
            let vL2 = mag(vl - load(v.l.0, x)), vL3 = mag(vl - load(v.l.2, x))
            let hA0 = ha - load(h.a.1, x - 1), hB0 = hb - load(h.b.1, x - 1)
            let hA1 = ha - load(h.a.1, x + 1), hB1 = hb - load(h.b.1, x + 1)
            let hA2 = ha - load(h.a.0, x), hB2 = hb - load(h.b.0, x)
            let hA3 = ha - load(h.a.2, x), hB3 = hb - load(h.b.2, x)
            let vA0 = va - load(v.a.1, x - 1), vB0 = vb - load(v.b.1, x - 1)
            let vA1 = va - load(v.a.1, x + 1), vB1 = vb - load(v.b.1, x + 1)
            let vA2 = va - load(v.a.0, x), vB2 = vb - load(v.b.0, x)
            let vA3 = va - load(v.a.2, x), vB3 = vb - load(v.b.2, x)
            let hAB0 = hA0 * hA0 + hB0 * hB0, hAB1 = hA1 * hA1 + hB1 * hB1
            let hAB2 = hA2 * hA2 + hB2 * hB2, hAB3 = hA3 * hA3 + hB3 * hB3
            let vAB0 = vA0 * vA0 + vB0 * vB0, vAB1 = vA1 * vA1 + vB1 * vB1
            let vAB2 = vA2 * vA2 + vB2 * vB2, vAB3 = vA3 * vA3 + vB3 * vB3
            let lTolerance = smaller(larger(hL0, hL1), larger(vL2, vL3))
            let abTolerance = smaller(larger(hAB0, hAB1), larger(vAB2, vAB3))
            let hCount: V = float(one & notAbove(hL0, lTolerance) & notAbove(hAB0, abTolerance))
                + float(one & notAbove(hL1, lTolerance) & notAbove(hAB1, abTolerance))
                + float(one & notAbove(hL2, lTolerance) & notAbove(hAB2, abTolerance))
                + float(one & notAbove(hL3, lTolerance) & notAbove(hAB3, abTolerance))
            let vCount: V = float(one & notAbove(vL0, lTolerance) & notAbove(vAB0, abTolerance))
                + float(one & notAbove(vL1, lTolerance) & notAbove(vAB1, abTolerance))
                + float(one & notAbove(vL2, lTolerance) & notAbove(vAB2, abTolerance))
                + float(one & notAbove(vL3, lTolerance) & notAbove(vAB3, abTolerance))
            store(hCount, out.0, x)
            store(vCount, out.1, x)
        }
    }

    /// The output row: each pixel from the direction whose homogeneity
    /// summed over the 3 × 3 neighbourhood (`homogeneity` rows above, here,
    /// below) is larger, the mean of the two where they tie.
    static func choose<V: SIMD>(_: V.Type, homogeneity hh: (Row, Row, Row), _ hv: (Row, Row, Row),
                                h: (Row, Row, Row), v: (Row, Row, Row), into out: (Row, Row, Row),
                                lo: Int, hi: Int) where V.Scalar == Float {
        for x in blockStarts(V.self, lo, hi) {
            // Written out, as in `homogeneity`.
            let sh: V = load(hh.0, x - 1) + load(hh.0, x) + load(hh.0, x + 1)
                + load(hh.1, x - 1) + load(hh.1, x) + load(hh.1, x + 1)
                + load(hh.2, x - 1) + load(hh.2, x) + load(hh.2, x + 1)
            let sv: V = load(hv.0, x - 1) + load(hv.0, x) + load(hv.0, x + 1)
                + load(hv.1, x - 1) + load(hv.1, x) + load(hv.1, x + 1)
                + load(hv.2, x - 1) + load(hv.2, x) + load(hv.2, x + 1)
            // The sums are small integers, so their differences are exact
            // and a tie gives +0, not negative: H where sv < sh, V where
            // sh < sv, else the mean.
            let vWins = bits(sh - sv) &>> 31, hWins = bits(sv - sh) &>> 31
            let r0: V = load(h.0, x), r1: V = load(v.0, x)
            let g0: V = load(h.1, x), g1: V = load(v.1, x)
            let b0: V = load(h.2, x), b1: V = load(v.2, x)
            store(pick(r1, where: vWins, else: pick(r0, where: hWins, else: 0.5 * (r0 + r1))), out.0, x)
            store(pick(g1, where: vWins, else: pick(g0, where: hWins, else: 0.5 * (g0 + g1))), out.1, x)
            store(pick(b1, where: vWins, else: pick(b0, where: hWins, else: 0.5 * (b0 + b1))), out.2, x)
        }
    }
}
