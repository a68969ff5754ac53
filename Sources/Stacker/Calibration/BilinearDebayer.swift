import Registration

/// The bilinear debayer (`Debayer`'s definition: each missing colour the
/// mean of the 3 × 3 neighbours carrying it) for the pixels 1 or more from
/// the border, one row at a time, SIMD over columns; the 1-pixel border,
/// where fewer neighbours count, is the per-pixel definition's. The sums
/// are taken in the same order as that definition's, so the result is the
/// same bit for bit.
enum BilinearDebayer: RowBandDebayer, SIMDRowKernel {
    static let border = 1

    static func interior<V: SIMD>(_: V.Type, _ src: UnsafePointer<Float>,
                                  _ rgb: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
                                  width w: Int, height h: Int, pattern: BayerPattern) where V.Scalar == Float {
        func plane(_ c: Int) -> Row { c == 0 ? rgb.0 : (c == 1 ? rgb.1 : rgb.2) }
        for y in 1..<(h - 1) {
            let rowColour = pattern.otherColour(row: y)
            row(V.self, up: Row(mutating: src + (y - 1) * w), here: Row(mutating: src + y * w), down: Row(mutating: src + (y + 1) * w),
                green: rgb.1 + y * w, rowColour: plane(rowColour) + y * w, columnColour: plane(2 - rowColour) + y * w,
                greenParity: pattern.greenParity(row: y), lo: 1, hi: w - 1)
        }
    }

    /// One row: at its green sites (column parity `greenParity`) green is
    /// the sample, `rowColour` the mean of the left and right neighbours
    /// and `columnColour` of the up and down ones; at the others
    /// `rowColour` is the sample, green the mean of the 4 orthogonal
    /// neighbours and `columnColour` of the 4 diagonal ones. Each sum
    /// starts at 0 and runs row by row, left to right, as the definition's.
    static func row<V: SIMD>(_: V.Type, up: Row, here: Row, down: Row, green: Row, rowColour: Row, columnColour: Row,
                             greenParity: Int, lo: Int, hi: Int) where V.Scalar == Float {
        let masks = parityMasks(V.self, parity: greenParity)
        let zero = V(repeating: 0)
        for x in blockStarts(V.self, lo, hi) {
            let mask = (x & 1) == 0 ? masks.0 : masks.1
            let c: V = load(here, x)
            let n: V = load(up, x), s: V = load(down, x), west: V = load(here, x - 1), east: V = load(here, x + 1)
            let cross: V = (((zero + n) + west) + east) + s
            let diagonal: V = (((zero + load(up, x - 1)) + load(up, x + 1)) + load(down, x - 1)) + load(down, x + 1)
            let across: V = (zero + west) + east, along: V = (zero + n) + s
            store(pick(c, where: mask, else: cross / 4), green, x)
            store(pick(across / 2, where: mask, else: c), rowColour, x)
            store(pick(along / 2, where: mask, else: diagonal / 4), columnColour, x)
        }
    }
}
