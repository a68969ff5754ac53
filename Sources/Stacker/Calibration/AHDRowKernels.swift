/// The row kernels of `AHDDebayer`: each computes one row of one AHD step
/// from rows of its inputs, `V.scalarCount` columns at a time, over columns
/// `lo..<hi` (see `SIMDRowKernel.blocks`: no kernel reads what it writes).
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
        blocks(V.self, lo, hi) { x in
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
        blocks(V.self, lo, hi) { x in
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
        blocks(V.self, lo, hi) { x in
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
        blocks(V.self, lo, hi) { x in
            /// |ΔL| and Δa² + Δb² to the left, right, up and down neighbours.
            @inline(__always) func differences(_ p: LabRows) -> (l: (V, V, V, V), ab: (V, V, V, V)) {
                let l: V = load(p.l.1, x), a: V = load(p.a.1, x), b: V = load(p.b.1, x)
                func ld(_ r: Row, _ dx: Int) -> V { mag(l - load(r, x + dx)) }
                func abd(_ ra: Row, _ rb: Row, _ dx: Int) -> V {
                    let da = a - load(ra, x + dx), db = b - load(rb, x + dx)
                    return da * da + db * db
                }
                return ((ld(p.l.1, -1), ld(p.l.1, 1), ld(p.l.0, 0), ld(p.l.2, 0)),
                        (abd(p.a.1, p.b.1, -1), abd(p.a.1, p.b.1, 1), abd(p.a.0, p.b.0, 0), abd(p.a.2, p.b.2, 0)))
            }
            let dh = differences(h), dv = differences(v)
            let lTolerance = smaller(larger(dh.l.0, dh.l.1), larger(dv.l.2, dv.l.3))
            let abTolerance = smaller(larger(dh.ab.0, dh.ab.1), larger(dv.ab.2, dv.ab.3))
            let one = bits(V(repeating: 1))
            @inline(__always) func count(_ d: (l: (V, V, V, V), ab: (V, V, V, V))) -> V {
                func within(_ l: V, _ ab: V) -> V { float(one & notAbove(l, lTolerance) & notAbove(ab, abTolerance)) }
                return within(d.l.0, d.ab.0) + within(d.l.1, d.ab.1) + within(d.l.2, d.ab.2) + within(d.l.3, d.ab.3)
            }
            store(count(dh), out.0, x)
            store(count(dv), out.1, x)
        }
    }

    /// The output row: each pixel from the direction whose homogeneity
    /// summed over the 3 × 3 neighbourhood (`homogeneity` rows above, here,
    /// below) is larger, the mean of the two where they tie.
    static func choose<V: SIMD>(_: V.Type, homogeneity hh: (Row, Row, Row), _ hv: (Row, Row, Row),
                                h: (Row, Row, Row), v: (Row, Row, Row), into out: (Row, Row, Row),
                                lo: Int, hi: Int) where V.Scalar == Float {
        blocks(V.self, lo, hi) { x in
            @inline(__always) func sum(_ r: (Row, Row, Row)) -> V {
                @inline(__always) func row(_ p: Row) -> V { load(p, x - 1) + load(p, x) + load(p, x + 1) }
                return row(r.0) + row(r.1) + row(r.2)
            }
            let sh = sum(hh), sv = sum(hv)
            // The sums are small integers, so their differences are exact
            // and a tie gives +0, not negative.
            @inline(__always) func one(_ a: Row, _ b: Row, _ o: Row) {
                let fromH: V = load(a, x), fromV: V = load(b, x)
                let hOrMean = select(fromH, ifNegative: sv - sh, else: 0.5 * (fromH + fromV))
                store(select(fromV, ifNegative: sh - sv, else: hOrMean), o, x)
            }
            one(h.0, v.0, out.0)
            one(h.1, v.1, out.1)
            one(h.2, v.2, out.2)
        }
    }
}
