/// A near-identity projective warp resampled in two 1-D passes, each run
/// across 16 neighbouring outputs at once (Catmull & Smith's decomposition,
/// taken down the frame's columns first so that a band of output rows needs
/// only that band's rows of intermediate).
///
/// A projective map sends lines to lines, so the frame points that land on
/// output row `y` lie on one line, `v = α + β·u` (frame column `u`, row
/// `v`). Pass 1 resamples each frame column `u` at row `α + β·u`: a line of
/// frame width per output row. Pass 2 resamples that line at each output
/// pixel's exact frame column `X(x, y)`. The point `(X, α + β·X)` is the
/// pixel's exact frame position, so the two passes sample the frame where
/// the general warp does; they differ from its 6 × 6 window only in that
/// the vertical taps of neighbouring columns follow the line (a shear of
/// the kernel by `β`, at most 3·|β| px at its edge) instead of one row.
///
/// Within a pass, 16 neighbouring outputs have positions less than two
/// pixels apart (the bounds below), so their taps start at one of three
/// neighbouring indices and 8 shifted vector loads hold all their taps (6
/// when all 16 start at the same index, as most do); each lane computes its
/// weights at its exact offset from the kernel's `LaneWeightPolynomials`
/// (within 3.7e-6 of Lanczos-3; the general warp's phase table rounds
/// positions to the nearest of 4096 phases).
///
/// **Admissible transforms** (else `init` returns nil and the caller keeps
/// the general warp), over the whole output grid:
/// - the kernel has `LaneWeightPolynomials` (bilinear, cubic, Lanczos-3:
///   `.nearest` copies samples and keeps the general path);
/// - the projective denominator is positive at the grid's corners (so
///   everywhere on it);
/// - `|β| ≤ 1/8` on every row (the frame row moves by less than 2 px over
///   16 neighbouring frame columns: `|∂Y/∂x| / |∂X/∂x|` for a near-identity
///   map), and `|∂X/∂x − 1| ≤ 1/8` (the horizontal scale within 12.5 % of 1),
///   bounded over the grid by interval arithmetic;
/// - frame and grid sides of 16 to 2^17 px (so offsets stay exact in the
///   kernels' `Float` and `Int32` arithmetic).
///
/// Coverage is the general warp's, exactly: per output row the covered
/// pixels form one run (the frame's image is convex), found from the
/// linear inequalities and settled with the general warp's own per-pixel
/// test. Rows covering fewer than 16 pixels, or reaching fewer than 16
/// frame columns, are left to the general warp. `TwoPassWarpTests` measures the
/// samples against the general warp and a `Double` Lanczos-3 reference.
struct TwoPassWarp: Sendable {
    /// Largest `|β|` and `|∂X/∂x − 1|`: 15 lane steps stay under 2 px.
    static let laneSpread = 1.0 / 8
    /// Outputs a pass computes at once: the shortest run the passes take.
    static let lanes = LanePass.lanes
    /// Floats kept readable on each side of a pass-1 line: more than the
    /// widest reach of pass 2's 8 loads of 16 lanes past the frame's columns
    /// (5 before the first, 5 past the last).
    static let pad = 16
    /// The shortest part of a row where a displacement field is 0 that a
    /// field warp takes in two passes (`RowWarper.resamplingInTwoPasses`):
    /// shorter ones cost more in per-part set-up than they save.
    static let minimumFieldPart = 32

    /// The inverse (reference → frame), row-major.
    private let m: [Double]
    private let geometry: FrameGeometry
    private let width: Int, height: Int
    private let interpolation: Interpolation
    /// The passes' per-lane weights of `interpolation`.
    private let kernel: LaneWeightPolynomials
    /// Whether the general warp steps this transform's positions in fixed
    /// point (an affine map), which decides its coverage at the edges.
    private let affine: Bool

    /// The two-pass plan for sampling `geometry`'s frame at `inverse(x, y)`
    /// on a `width × height` grid, or nil outside the admissible set above.
    init?(inverse m: [Double], geometry: FrameGeometry, width: Int, height: Int, interpolation: Interpolation) {
        guard let kernel = LaneWeightPolynomials.of(interpolation) else { return nil }
        let sides = [geometry.width, geometry.height, width, height]
        guard sides.allSatisfy({ $0 >= 16 && $0 <= 1 << 17 }) else { return nil }
        let xs = [0.0, Double(width - 1)], ys = [0.0, Double(height - 1)]
        // The denominator at the corners (linear, so its extremes).
        let d = xs.flatMap { x in ys.map { y in m[6] * x + m[7] * y + m[8] } }
        guard let dLow = d.min(), let dHigh = d.max(), dLow > 0 else { return nil }
        // β(y) = −L0 / L1, L0 and L1 linear in y: with L1 of one sign it is
        // monotone, so its ends bound it.
        for y in ys {
            let (l0, l1, _) = Self.rowLine(m, y)
            guard l1 > 0, abs(l0) <= Self.laneSpread * l1 else { return nil }
        }
        // ∂X/∂x = (A·y + B) / D², the numerator linear in y.
        let numerators = ys.map { y in (m[0] * m[7] - m[6] * m[1]) * y + (m[0] * m[8] - m[6] * m[2]) }
        let slopes = numerators.flatMap { n in [n / (dLow * dLow), n / (dHigh * dHigh)] }
        guard slopes.allSatisfy({ abs($0 - 1) <= Self.laneSpread }) else { return nil }
        // As `GeneralWarp.run` decides: affine maps within ±2^30 px step.
        let reach = (abs(m[0]) + abs(m[1])) * Double(max(width, height)) + abs(m[2])
                  + (abs(m[3]) + abs(m[4])) * Double(max(width, height)) + abs(m[5])
        affine = m[6] == 0 && m[7] == 0 && m[8] == 1
        guard !affine || reach < Double(1 << 30) else { return nil }
        self.m = m
        self.geometry = geometry
        self.width = width
        self.height = height
        self.interpolation = interpolation
        self.kernel = kernel
    }

    /// The frame line of output row `y` in homogeneous form `L0·u + L1·v +
    /// L2 = 0`: the cross product of the images of `(0, y, 1)` and of the
    /// row's direction `(1, 0, 0)`.
    private static func rowLine(_ m: [Double], _ y: Double) -> (Double, Double, Double) {
        let p = (m[1] * y + m[2], m[4] * y + m[5], m[7] * y + m[8]), q = (m[0], m[3], m[6])
        return (p.1 * q.2 - p.2 * q.1, p.2 * q.0 - p.0 * q.2, p.0 * q.1 - p.1 * q.0)
    }

    /// Writes output rows `rows` into `outputs` and `coverage` (row
    /// `rows.lowerBound` first), which the caller has zeroed: the contract
    /// of `GeneralWarp.run` without a field. With no `coverage` buffer the
    /// coverage is not written; `coveredColumns(row:)` gives it. With
    /// `columns`, only the given parts of each row (ascending, disjoint)
    /// are written. With `zeroing` (and no `columns`) the buffers need not
    /// be zeroed: each row's samples and coverage outside its covered run
    /// are set to 0 here, so no sample is written twice.
    func run<S: PlaneSample>(rows: Range<Int>, sources: [[S]], outputs: [UnsafeMutablePointer<Float>],
                             coverage: UnsafeMutablePointer<Float>?, columns: ((Int) -> [Range<Int>])? = nil,
                             zeroing: Bool = false) {
        precondition(!zeroing || columns == nil, "TwoPassWarp.run: zeroing writes whole rows, not parts")
        let fw = geometry.width, fh = geometry.height, pad = Self.pad
        let unit = S.unit
        let count = sources.count
        // One pass-1 line per plane, with `pad` floats each side; zeroed,
        // so reads with weight 0 stay finite.
        let lineStorage = UnsafeMutablePointer<Float>.allocate(capacity: count * (fw + 2 * pad))
        lineStorage.initialize(repeating: 0, count: count * (fw + 2 * pad))
        // A coverage row for the general warp's rows when the caller keeps none.
        let spareCoverage = UnsafeMutablePointer<Float>.allocate(capacity: coverage == nil ? width : 0)
        defer { lineStorage.deallocate(); spareCoverage.deallocate() }
        let lineBases: [UnsafeMutablePointer<Float>?] = (0..<count).map { lineStorage + $0 * (fw + 2 * pad) + pad }
        let lineReads: [UnsafePointer<Float>?] = lineBases.map { UnsafePointer($0) }
        kernel.coefficients.withUnsafeBufferPointer { coefficients in
        sources.withBaseAddresses { planes in
            let weights = coefficients.baseAddress!
            let frame: [UnsafePointer<S>?] = planes
            var rowOutputs = [UnsafeMutablePointer<Float>?](repeating: nil, count: count)
            let wholeRow = [0..<width]
            for y in rows {
                let o = (y - rows.lowerBound) * width
                for p in 0..<count { rowOutputs[p] = outputs[p] + o }
                let covered = coveredRun(row: y)
                if zeroing {
                    let low = covered?.lowerBound ?? width, high = covered.map { $0.upperBound + 1 } ?? width
                    func zeroOutside(_ buffer: UnsafeMutablePointer<Float>) {
                        buffer.update(repeating: 0, count: low)
                        (buffer + high).update(repeating: 0, count: width - high)
                    }
                    for p in 0..<count { zeroOutside(outputs[p] + o) }
                    if let coverage { zeroOutside(coverage + o) }
                }
                guard let whole = covered else { continue }
                for part in columns?(y) ?? wholeRow {
                    let low = max(whole.lowerBound, part.lowerBound), high = min(whole.upperBound, part.upperBound - 1)
                    guard low <= high else { continue }
                    let run = low...high
                    let ends = [frameColumn(run.lowerBound, y), frameColumn(run.upperBound, y)]
                    let u0 = max(0, Int(ends.min()!.rounded(.down)) - 3), u1 = min(fw - 1, Int(ends.max()!.rounded(.down)) + 4)
                    guard run.count >= Self.lanes, u1 - u0 + 1 >= Self.lanes else {
                        // The general warp writes a coverage row (the same run).
                        let row = coverage.map { $0 + o } ?? spareCoverage
                        if coverage == nil { row.update(repeating: 0, count: width) }
                        if zeroing {
                            for p in 0..<count { (outputs[p] + o + run.lowerBound).update(repeating: 0, count: run.count) }
                            if let coverage { (coverage + o + run.lowerBound).update(repeating: 0, count: run.count) }
                        }
                        GeneralWarp.run(rows: y..<y + 1, width: width, matrix: m, geometry: geometry,
                                        interpolation: interpolation, sources: sources, outputs: outputs.map { $0 + o },
                                        coverage: row, columns: { _ in [run.lowerBound..<run.upperBound + 1] })
                        continue
                    }
                    if let coverage { (coverage + o + run.lowerBound).update(repeating: 1, count: run.count) }
                    // Pass 1: the frame's columns at the row's line v = α + β·u.
                    let yd = Double(y)
                    let (l0, l1, l2) = Self.rowLine(m, yd)
                    LanePass.columns(frame, count: count, frameWidth: fw, frameHeight: fh, into: lineBases, u0..<u1 + 1,
                                     row: y, a: Float(-l2 / l1 - yd), b: Float(-l0 / l1), kernel: weights)
                    // Taps past the frame's edges read its edge column.
                    for line in lineBases {
                        let l = line!
                        if u0 == 0 { (l - pad).update(repeating: l[0], count: pad) }
                        if u1 == fw - 1 { (l + fw).update(repeating: l[fw - 1], count: pad) }
                    }
                    // Pass 2: each output pixel at its frame column.
                    let q0 = m[7] * yd + m[8]
                    LanePass.row(lineReads, count: count, into: rowOutputs, run.lowerBound..<run.upperBound + 1,
                                 p0: Float(m[1] * yd + m[2]), p1: Float(m[0] - q0), m6: Float(m[6]), q0: Float(q0),
                                 kernel: weights, scale: unit)
                }
            }
        }
        }
    }

    /// The columns of output row `y` the frame covers: where `run` writes
    /// coverage 1 (one run per row; empty where none).
    func coveredColumns(row y: Int) -> Range<Int> {
        guard let run = coveredRun(row: y) else { return 0..<0 }
        return run.lowerBound..<run.upperBound + 1
    }

    /// The exact frame column of output pixel `(x, y)`.
    private func frameColumn(_ x: Int, _ y: Int) -> Double {
        let px = Double(x), py = Double(y)
        return (m[0] * px + m[1] * py + m[2]) / (m[6] * px + m[7] * py + m[8])
    }

    /// The covered pixels of output row `y`, nil when none: the run the
    /// inequalities `−ε ≤ X ≤ w − 1 + ε`, `−ε ≤ Y ≤ h − 1 + ε` give (each
    /// linear in `x` once multiplied by the positive denominator), each end
    /// then moved until `covers` agrees.
    private func coveredRun(row y: Int) -> ClosedRange<Int>? {
        let py = Double(y), e = Warper.edgeEpsilon
        let d1 = m[6], d0 = m[7] * py + m[8]
        var low = -1.0, high = Double(width)
        // a·x + b ≥ 0 for each bound.
        func bound(_ a: Double, _ b: Double) {
            if a > 0 { low = max(low, -b / a) } else if a < 0 { high = min(high, -b / a) } else if b < 0 { low = high + 1 }
        }
        for (n1, n0, extent) in [(m[0], m[1] * py + m[2], Double(geometry.width - 1)),
                                 (m[3], m[4] * py + m[5], Double(geometry.height - 1))] {
            bound(n1 + e * d1, n0 + e * d0)                              // n ≥ −ε·d
            bound((extent + e) * d1 - n1, (extent + e) * d0 - n0)        // n ≤ (extent + ε)·d
        }
        var c0 = Int(max(0, low.rounded(.up))), c1 = Int(min(Double(width - 1), high.rounded(.down)))
        while c0 > 0 && covers(c0 - 1, y) { c0 -= 1 }
        while c0 <= c1 && !covers(c0, y) { c0 += 1 }
        while c1 < width - 1 && covers(c1 + 1, y) { c1 += 1 }
        while c1 >= c0 && !covers(c1, y) { c1 -= 1 }
        if c0 > c1 {            // nothing found between the bounds: look just past them
            guard c0 < width, covers(c0, y) else { return nil }
            c1 = c0
            while c1 < width - 1 && covers(c1 + 1, y) { c1 += 1 }
        }
        return c0...c1
    }

    /// Whether the general warp covers output pixel `(x, y)`: its fixed
    /// point test, on positions stepped along the row for an affine map and
    /// divided out otherwise.
    private func covers(_ x: Int, _ y: Int) -> Bool {
        let one = GeneralWarp.one
        let low = Int64((-Warper.edgeEpsilon * one).rounded(.down))
        let highX = Int64(((Double(geometry.width - 1) + Warper.edgeEpsilon) * one).rounded(.down))
        let highY = Int64(((Double(geometry.height - 1) + Warper.edgeEpsilon) * one).rounded(.down))
        let X: Int64, Y: Int64
        let py = Double(y)
        if affine {
            X = Int64(((m[1] * py + m[2]) * one).rounded()) &+ Int64(x) &* Int64((m[0] * one).rounded())
            Y = Int64(((m[4] * py + m[5]) * one).rounded()) &+ Int64(x) &* Int64((m[3] * one).rounded())
        } else {
            let px = Double(x), w = m[6] * px + m[7] * py + m[8]
            let xf = (m[0] * px + m[1] * py + m[2]) / w, yf = (m[3] * px + m[4] * py + m[5]) / w
            guard geometry.coversX(xf), geometry.coversY(yf) else { return false }
            X = Int64((xf * one).rounded(.down)); Y = Int64((yf * one).rounded(.down))
        }
        return X >= low && X <= highX && Y >= low && Y <= highY
    }
}

// References
// - E. Catmull and A. R. Smith, "3-D transformations of images in scanline
//   order", Computer Graphics (SIGGRAPH '80) 14(3), 279–285, 1980.
// - P. Heckbert, "Fundamentals of texture mapping and image warping",
//   M.S. thesis, UC Berkeley, 1989 (projective maps send lines to lines).
