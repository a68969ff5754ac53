public import Registration

/// One frame made ready to drizzle: its samples, and where the centre of
/// each of its pixels lands on the output grid.
///
/// Output coordinates: output pixel `(X, Y)` covers `[X, X + 1) × [Y, Y + 1)`,
/// so a reference point `(x, y)` (pixel centres at integers) is at
/// `(s · (x + ½), s · (y + ½))` for scale `s`.
///
/// The drop is taken as an axis-aligned square (or round Gaussian) centred
/// on the mapped pixel centre, its side `pixfrac · s · √|det J|`, with `J`
/// the transform's Jacobian at the frame centre: exact for translations and
/// similarities without rotation, the usual "turbo" approximation of
/// drizzle implementations otherwise (a rotation of a few degrees changes a
/// drop's overlaps by well under its own noise).
public struct DrizzleFrame: Sendable {
    /// The frame's samples, one plane per channel (one plane for a mosaic).
    /// A NaN sample is skipped (rejected, or not there).
    public var planes: [Plane]
    /// For a CFA mosaic, its pattern: each sample drops into the colour
    /// plane the pattern gives its position, with no demosaicing.
    public var mosaic: BayerPattern?
    /// Per pixel, a factor on its samples' weight (`DrizzleRobustness`),
    /// row-major; nil: 1 everywhere.
    public var robustness: [Float]?
    /// Output x of each pixel's centre, row-major; NaN where the transform
    /// does not map it.
    var centreX: [Float]
    /// Output y of each pixel's centre; see `centreX`.
    var centreY: [Float]
    /// Per input row, the least and greatest output y of its centres.
    var rowSpan: [(low: Float, high: Float)]
    /// Half the drop's side (square) or FWHM (gaussian), in output pixels.
    var dropHalf: Float

    /// The frame `planes` (all one size) mapped by `transform` (frame →
    /// reference) onto the grid `options` describe.
    public init(planes: [Plane], mosaic: BayerPattern? = nil, transform: Transform, options: DrizzleOptions) {
        precondition(!planes.isEmpty && planes.allSatisfy { $0.width == planes[0].width && $0.height == planes[0].height },
                     "DrizzleFrame: planes must be non-empty and of one size")
        precondition(mosaic == nil || planes.count == 1, "DrizzleFrame: a mosaic has one plane, not \(planes.count)")
        self.planes = planes
        self.mosaic = mosaic
        let width = planes[0].width, height = planes[0].height
        let s = options.scale
        var xs = [Float](repeating: .nan, count: width * height)
        var ys = [Float](repeating: .nan, count: width * height)
        var span = [(low: Float, high: Float)](repeating: (.infinity, -.infinity), count: height)
        // The matrix read once; each row's terms in y computed once.
        let m = transform.matrix
        for y in 0..<height {
            var low = Float.infinity, high = -Float.infinity
            let fy = Double(y)
            let bx = m[1] * fy + m[2], by = m[4] * fy + m[5], bw = m[7] * fy + m[8]
            let row = y * width
            for x in 0..<width {
                let fx = Double(x)
                let w = m[6] * fx + bw
                let px = (m[0] * fx + bx) / w, py = (m[3] * fx + by) / w
                guard px.isFinite, py.isFinite else { continue }
                let ox = Float(s * (px + 0.5)), oy = Float(s * (py + 0.5))
                xs[row + x] = ox
                ys[row + x] = oy
                low = min(low, oy)
                high = max(high, oy)
            }
            span[y] = (low, high)
        }
        centreX = xs
        centreY = ys
        rowSpan = span
        let local = Self.areaScale(transform, x: Double(width - 1) / 2, y: Double(height - 1) / 2)
        dropHalf = Float(options.pixfrac * s * local.squareRoot() / 2)
    }

    /// Input width in pixels.
    public var width: Int { planes[0].width }
    /// Input height in pixels.
    public var height: Int { planes[0].height }

    /// |det J| of `transform` at `(x, y)`: how much it scales areas there.
    static func areaScale(_ transform: Transform, x: Double, y: Double) -> Double {
        let h = 0.5
        let l = transform.apply(x: x - h, y: y), r = transform.apply(x: x + h, y: y)
        let u = transform.apply(x: x, y: y - h), d = transform.apply(x: x, y: y + h)
        let det = (r.x - l.x) * (d.y - u.y) - (r.y - l.y) * (d.x - u.x)
        return det.isFinite && det > 0 ? abs(det) : 1
    }
}
