/// A short run of a row's sample positions under a projective transform,
/// stepped linearly in the general warp's 32.32 fixed point instead of
/// dividing per pixel.
///
/// Along a row the exact position is a ratio of linear functions of `x`,
/// so it bends only as far as the denominator changes across the span. A
/// span is taken only when (a) the denominator has one sign at both ends, so
/// the row's positions lie on the segment between the end points (a
/// projective map sends segments to segments), (b) both end points lie in
/// the frame's covered extent, so every position in the span does (the
/// coverage is exactly the per-pixel one), and (c) the straight line
/// through the end points is within `tolerance` px of the exact position
/// at the middle column, where the chord of a curve whose bend hardly
/// changes over a few pixels is farthest from it. Otherwise the caller
/// divides per pixel. `ProjectiveSpanTests` measures the worst error over
/// every pixel of near-identity homographies.
struct ProjectiveSpan {
    /// Columns per span: an error that grows with the square of the
    /// length stays far below `tolerance` for handheld homographies.
    static let length = 8
    /// Largest distance, in px, allowed at the middle column: half the
    /// weight table's phase step, so the positions stay as close as the
    /// phase rounding already puts them.
    static let tolerance = 0.5 / Double(WeightTable.phases)

    /// Fixed-point position at the span's first column.
    var x: Int64
    var y: Int64
    /// Fixed-point step per column.
    let dx: Int64
    let dy: Int64

    /// The span of row `row` from column `first` to `last` (inclusive,
    /// `last > first`) under `m` (row-major 3×3, reference → frame), or
    /// nil where the conditions above do not hold. `low`, `highX`,
    /// `highY` are the covered extent in fixed point (`one` per px).
    init?(_ m: (Double, Double, Double, Double, Double, Double, Double, Double, Double), row: Double,
          first: Int, last: Int, one: Double, low: Int64, highX: Int64, highY: Int64) {
        // The denominator is linear along the row: of one sign at both
        // ends, it keeps that sign between them.
        let a = Double(first), b = Double(last), mid = Double((first + last) / 2)
        let wa = m.6 * a + m.7 * row + m.8, wb = m.6 * b + m.7 * row + m.8
        guard wa * wb > 0 else { return nil }
        @inline(__always) func position(_ x: Double) -> (Double, Double) {
            let w = m.6 * x + m.7 * row + m.8
            return ((m.0 * x + m.1 * row + m.2) / w, (m.3 * x + m.4 * row + m.5) / w)
        }
        let p = position(a), q = position(b), c = position(mid)
        let t = (mid - a) / (b - a)
        guard abs(p.0 + t * (q.0 - p.0) - c.0) <= Self.tolerance,
              abs(p.1 + t * (q.1 - p.1) - c.1) <= Self.tolerance else { return nil }
        // Fixed point as the per-pixel path converts (and within ±2^31 px).
        let limit = Double(1 << 30)
        guard abs(p.0) < limit, abs(p.1) < limit, abs(q.0) < limit, abs(q.1) < limit else { return nil }
        let x0 = Int64((p.0 * one).rounded(.down)), y0 = Int64((p.1 * one).rounded(.down))
        let x1 = Int64((q.0 * one).rounded(.down)), y1 = Int64((q.1 * one).rounded(.down))
        guard x0 >= low, x0 <= highX, x1 >= low, x1 <= highX,
              y0 >= low, y0 <= highY, y1 >= low, y1 <= highY else { return nil }
        // The steps truncated toward zero as the integer division would,
        // without its 40–90-cycle 64-bit `idiv`: exact while |x1 − x0| <
        // 2^49 (2^17 px; a quotient by n ≤ 8 is then never rounded across an
        // integer), one 2^-32 px unit off at most beyond (the caller checks
        // every position against the covered extent anyway).
        let n = Double(last - first)
        x = x0; y = y0
        dx = Int64(Double(x1 - x0) / n); dy = Int64(Double(y1 - y0) / n)
    }

    /// The current position, then one column on.
    @inline(__always) mutating func next() -> (Int64, Int64) {
        defer { x &+= dx; y &+= dy }
        return (x, y)
    }
}
