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
    /// Σ (d − centre)² per channel and 1× pixel (`channel · pixels + index`);
    /// after `finishMeasuring`, the spread.
    private var deviations: [Float]
    /// The samples counted in `deviations`, laid out alike.
    private var counts: [Float]
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
        deviations = [Float](repeating: 0, count: stack.channels * stack.pixelCount)
        counts = deviations
    }

    /// Adds `frame`'s deviations from the 1× stack to the spread.
    public mutating func measure(_ frame: DrizzleFrame, scale: Double) {
        let pixels = stack.pixelCount
        deviations.withUnsafeMutableBufferPointer { sums in
            counts.withUnsafeMutableBufferPointer { n in
                Self.visit(frame, stack: stack, scale: scale) { channel, index, d, centre in
                    sums[channel * pixels + index] += (d - centre) * (d - centre)
                    n[channel * pixels + index] += 1
                    return false
                }
            }
        }
    }

    /// Turns the measured deviations into spreads (3 × 3 pooled).
    public mutating func finishMeasuring() {
        let w = stack.width, h = stack.height, pixels = stack.pixelCount
        var spreads: [Float] = []
        for c in 0..<stack.channels {
            let part = c * pixels..<(c + 1) * pixels
            let sum = Self.boxSum(Plane(width: w, height: h, pixels: Array(deviations[part])))
            let n = Self.boxSum(Plane(width: w, height: h, pixels: Array(counts[part])))
            spreads += zip(sum.pixels, n.pixels).map { $1 > 0 ? ($0 / $1).squareRoot() : .infinity }
        }
        deviations = spreads
    }

    /// Sets to NaN the samples of `frame` that lie outside the bounds
    /// (`frame.mosaic`: each sample against its colour's channel); returns
    /// how many it rejected.
    @discardableResult
    public func reject(_ frame: inout DrizzleFrame, scale: Double) -> Int {
        var rejected: [(plane: Int, index: Int)] = []
        let pixels = stack.pixelCount
        deviations.withUnsafeBufferPointer { spreads in
            Self.visit(frame, stack: stack, scale: scale) { channel, index, d, centre in
                let spread = spreads[channel * pixels + index]
                return d < centre - kappaLow * spread || d > centre + kappaHigh * spread
            } rejected: { rejected.append(($0, $1)) }
        }
        for r in rejected { frame.planes[r.plane].pixels[r.index] = .nan }
        return rejected.count
    }

    /// Calls `body(channel, 1× pixel index, sample, centre)` for every
    /// sample of `frame` that lands on the 1× grid, and `rejected(plane,
    /// sample index)` for those where it returns true.
    @inline(__always)
    private static func visit(_ frame: DrizzleFrame, stack: Image, scale: Double, _ body: (Int, Int, Float, Float) -> Bool,
                              rejected: (Int, Int) -> Void = { _, _ in }) {
        let width = frame.width, w = stack.width, h = stack.height
        let inverse = 1 / scale, maxX = Double(w) - 0.5, maxY = Double(h) - 0.5
        DrizzleAccumulator.withSamplePointers(stack.planes[...]) { centres in
        DrizzleAccumulator.withSamplePointers(frame.planes[...]) { samples in
        frame.centreX.withUnsafeBufferPointer { xs in
        frame.centreY.withUnsafeBufferPointer { ys in
            for p in samples.indices {
                let plane = samples[p]
                for row in 0..<frame.height {
                    // A mosaic's colour by column parity; else the plane's own channel.
                    let colours = frame.mosaic.map { ($0.channel(x: 0, y: row), $0.channel(x: 1, y: row)) } ?? (p, p)
                    for column in 0..<width {
                        let i = row * width + column
                        let d = plane[i]
                        let cx = xs[i], cy = ys[i]
                        guard d.isFinite, cx.isFinite, cy.isFinite else { continue }
                        let x = Double(cx) * inverse - 0.5, y = Double(cy) * inverse - 0.5
                        guard x >= -0.5, y >= -0.5, x <= maxX, y <= maxY else { continue }
                        let channel = column & 1 == 0 ? colours.0 : colours.1
                        let centre = bilinear(centres[channel], width: w, height: h, x: x, y: y)
                        // x, y ≥ −½ here, so truncating x + ½ rounds to the nearest pixel.
                        let nx = min(Int(x + 0.5), w - 1), ny = min(Int(y + 0.5), h - 1)
                        if body(channel, ny * w + nx, d, centre) { rejected(p, i) }
                    }
                }
            }
        }
        }
        }
        }
    }

    /// The `width × height` plane at `base` sampled at `(x, y)`, bilinear,
    /// clamped to the edge.
    @inline(__always)
    private static func bilinear(_ base: UnsafePointer<Float>, width: Int, height: Int, x: Double, y: Double) -> Float {
        let cx = min(max(x, 0), Double(width - 1)), cy = min(max(y, 0), Double(height - 1))
        let x0 = min(Int(cx), max(0, width - 2)), y0 = min(Int(cy), max(0, height - 2))
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let fx = Float(cx - Double(x0)), fy = Float(cy - Double(y0))
        let top = base[y0 * width + x0] * (1 - fx) + base[y0 * width + x1] * fx
        let bottom = base[y1 * width + x0] * (1 - fx) + base[y1 * width + x1] * fx
        return top * (1 - fy) + bottom * fy
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
