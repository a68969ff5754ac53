public import Registration

/// Sigma-clip for drizzle, decided at 1×: a sample is skipped when it lies
/// more than κ spreads below or above the clipped 1× stack at the point its
/// pixel centre maps to. The spread is measured across the frames first
/// (`measure`, every frame, then `finishMeasuring`): per 1× pixel, the
/// root mean square of the samples' deviations from the clipped stack,
/// pooled over its 3 × 3 neighbours. A frame's own aliasing and the edges
/// it sees at its offset widen the spread where they are, so detail that
/// drizzle is there to recover is kept, while a satellite trail or a hot
/// pixel (√n spreads out when it alone of n frames is off) goes.
///
/// Siril and DSS keep the 1× rejection's verdict per sample; here the
/// verdict is recomputed from the clipped 1× stack and the measured spread
/// instead, so the 1× store need not keep a flag per sample. The price is
/// one more decode of every frame.
public struct DrizzleRejection: Sendable {
    /// The 1× stack, on the reference grid.
    public let stack: Image
    /// Per channel, Σ (d − centre)² and the sample count per 1× pixel;
    /// then, after `finishMeasuring`, the spread (and the counts).
    private var deviations: [Plane]
    private var counts: [Plane]
    /// Spreads below the centre a sample may lie.
    public let kappaLow: Float
    /// Spreads above the centre a sample may lie.
    public let kappaHigh: Float

    /// Rejection around `stack` (the clipped 1× stack) with thresholds
    /// `kappaLow`, `kappaHigh`; `measure` every frame before `reject`.
    public init(stack: Image, kappaLow: Float, kappaHigh: Float) {
        self.stack = stack
        self.kappaLow = kappaLow
        self.kappaHigh = kappaHigh
        deviations = stack.planes.map { Plane(width: $0.width, height: $0.height) }
        counts = deviations
    }

    /// Adds `frame`'s deviations from the 1× stack to the spread.
    public mutating func measure(_ frame: DrizzleFrame, scale: Double) {
        var sums = deviations, n = counts
        Self.visit(frame, stack: stack, scale: scale) { channel, index, d, centre in
            sums[channel].pixels[index] += (d - centre) * (d - centre)
            n[channel].pixels[index] += 1
            return false
        }
        deviations = sums
        counts = n
    }

    /// Turns the measured deviations into spreads (3 × 3 pooled).
    public mutating func finishMeasuring() {
        for c in deviations.indices {
            let sum = Self.boxSum(deviations[c]), n = Self.boxSum(counts[c])
            deviations[c].pixels = zip(sum.pixels, n.pixels).map { $1 > 0 ? ($0 / $1).squareRoot() : .infinity }
        }
    }

    /// Sets to NaN the samples of `frame` that lie outside the bounds
    /// (`frame.mosaic`: each sample against its colour's channel); returns
    /// how many it rejected.
    @discardableResult
    public func reject(_ frame: inout DrizzleFrame, scale: Double) -> Int {
        var rejected: [(plane: Int, index: Int)] = []
        let spreads = deviations
        Self.visit(frame, stack: stack, scale: scale) { channel, index, d, centre in
            let spread = spreads[channel].pixels[index]
            return d < centre - kappaLow * spread || d > centre + kappaHigh * spread
        } rejected: { rejected.append(($0, $1)) }
        for r in rejected { frame.planes[r.plane].pixels[r.index] = .nan }
        return rejected.count
    }

    /// Calls `body(channel, 1× pixel index, sample, centre)` for every
    /// sample of `frame` that lands on the 1× grid, and `rejected(plane,
    /// sample index)` for those where it returns true.
    private static func visit(_ frame: DrizzleFrame, stack: Image, scale: Double, _ body: (Int, Int, Float, Float) -> Bool,
                       rejected: (Int, Int) -> Void = { _, _ in }) {
        let width = frame.width, w = stack.width, h = stack.height
        for p in frame.planes.indices {
            for i in 0..<frame.planes[p].pixels.count {
                let d = frame.planes[p].pixels[i]
                let cx = frame.centreX[i], cy = frame.centreY[i]
                guard d.isFinite, cx.isFinite, cy.isFinite else { continue }
                let channel = frame.mosaic?.channel(x: i % width, y: i / width) ?? p
                let x = Double(cx) / scale - 0.5, y = Double(cy) / scale - 0.5
                guard let centre = bilinear(stack.planes[channel], x: x, y: y) else { continue }
                let nx = min(max(Int(x.rounded()), 0), w - 1), ny = min(max(Int(y.rounded()), 0), h - 1)
                if body(channel, ny * w + nx, d, centre) { rejected(p, i) }
            }
        }
    }

    /// `plane` at `(x, y)`, bilinear, clamped to the edge; nil outside it
    /// by more than half a pixel.
    static func bilinear(_ plane: Plane, x: Double, y: Double) -> Float? {
        guard x >= -0.5, y >= -0.5, x <= Double(plane.width) - 0.5, y <= Double(plane.height) - 0.5 else { return nil }
        let cx = min(max(x, 0), Double(plane.width - 1)), cy = min(max(y, 0), Double(plane.height - 1))
        let x0 = min(Int(cx), plane.width - 2 < 0 ? 0 : plane.width - 2), y0 = min(Int(cy), plane.height - 2 < 0 ? 0 : plane.height - 2)
        let x1 = min(x0 + 1, plane.width - 1), y1 = min(y0 + 1, plane.height - 1)
        let fx = Float(cx - Double(x0)), fy = Float(cy - Double(y0))
        let top = plane[x0, y0] * (1 - fx) + plane[x1, y0] * fx
        let bottom = plane[x0, y1] * (1 - fx) + plane[x1, y1] * fx
        return top * (1 - fy) + bottom * fy
    }

    /// Each pixel's sum over its 3 × 3 neighbourhood (clipped at the edges).
    static func boxSum(_ plane: Plane) -> Plane {
        var out = Plane(width: plane.width, height: plane.height)
        for y in 0..<plane.height {
            for x in 0..<plane.width {
                var sum: Float = 0
                for ny in max(0, y - 1)...min(plane.height - 1, y + 1) {
                    for nx in max(0, x - 1)...min(plane.width - 1, x + 1) { sum += plane[nx, ny] }
                }
                out.pixels[y * plane.width + x] = sum
            }
        }
        return out
    }
}
