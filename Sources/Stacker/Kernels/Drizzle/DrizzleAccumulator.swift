public import Registration
#if canImport(Glibc)
import Glibc
#endif

/// Variable-pixel linear reconstruction (drizzle, Fruchter & Hook 2002) on
/// a finer output grid: every input pixel is shrunk to a drop of
/// `pixfrac` pixels, mapped through its frame's transform, and added to the
/// output pixels it overlaps, weighted by the overlap `a` and the frame's
/// weight `w`:
///
///     S(X, Y) += a · w · d,   W(X, Y) += a · w,   output = S / W
///
/// Memory: per channel a sum and a weight plane of the output size (each
/// channel is weighed apart: a mosaic's colours, and samples rejected in
/// one channel only), whatever the frame count; frames are added
/// one at a time. `add` splits the output into row bands, one band per
/// task, so each output pixel is written by one thread only, always adding
/// the frame's pixels in the same order: the sums do not depend on the
/// thread count.
public final class DrizzleAccumulator: @unchecked Sendable {
    /// Output width in pixels.
    public let width: Int
    /// Output height in pixels.
    public let height: Int
    /// Output channels (3 for mosaics).
    public let channels: Int
    /// The grid and the drop.
    public let options: DrizzleOptions
    /// Whether the frames are mosaics.
    private let mosaic: Bool
    /// Per output pixel, in row-major order, `channels` sums S then
    /// `channels` weights W: one drop touches one cache line per pixel.
    private let sums: UnsafeMutableBufferPointer<Float>
    /// The kernel-regression merge's kernels, or nil for drops.
    private let steering: SteeredKernelField?
    /// Output rows per band of `add`.
    private static let bandRows = 16

    /// An empty accumulator for frames of `inputWidth × inputHeight` with
    /// `channels` channels (or mosaics, when `mosaic`: three output
    /// channels, each weighed apart).
    ///
    /// With `options.merge == .kernel`, `steering` (on the 1×
    /// grid) gives each place its kernel and replaces the drop.
    public init(inputWidth: Int, inputHeight: Int, channels: Int, mosaic: Bool, options: DrizzleOptions,
                steering: SteeredKernelField? = nil) {
        precondition(options.merge == .drizzle || steering != nil, "DrizzleAccumulator: the kernel merge needs its steering field")
        self.steering = options.merge == .kernel ? steering : nil
        let size = options.outputSize(width: inputWidth, height: inputHeight)
        width = size.width
        height = size.height
        self.channels = mosaic ? 3 : channels
        self.mosaic = mosaic
        self.options = options
        sums = .allocate(capacity: 2 * self.channels * width * height)
        sums.initialize(repeating: 0)
    }

    deinit { sums.deallocate() }

    /// Adds `frame`'s drops with weight `weight` (> 0), on `threads` threads.
    public func add(_ frame: DrizzleFrame, weight: Float, threads: Int) {
        precondition(weight > 0 && weight.isFinite, "DrizzleAccumulator.add: weight \(weight)")
        precondition((frame.mosaic != nil) == mosaic && (frame.mosaic != nil || frame.planes.count == channels),
                     "DrizzleAccumulator.add: a frame of \(frame.planes.count) plane(s) into \(channels) channel(s)")
        let bands = (height + Self.bandRows - 1) / Self.bandRows
        parallelForEach(bands, threads: threads) { band in
            let first = band * Self.bandRows
            self.drop(frame, weight: weight, rows: first..<min(self.height, first + Self.bandRows))
        }
    }

    /// The drizzled image, with `fill` (sampled at a reference point, per
    /// channel) where no drop landed, and the weight map: per output pixel
    /// Σ a·w, the least over the channels (for mosaics, of the three colours').
    public func finish(fill: (_ channel: Int, _ x: Double, _ y: Double) -> Float) -> (image: Image, weights: Plane) {
        let n = width * height
        var planes: [Plane] = []
        for c in 0..<channels {
            var plane = Plane(width: width, height: height)
            for i in 0..<n {
                let w = sums[(2 * i + 1) * channels + c]
                if w > 0 {
                    plane.pixels[i] = sums[2 * i * channels + c] / w
                } else {
                    let x = Double(i % width), y = Double(i / width)
                    plane.pixels[i] = fill(c, (x + 0.5) / options.scale - 0.5, (y + 0.5) / options.scale - 0.5)
                }
            }
            planes.append(plane)
        }
        var map = Plane(width: width, height: height)
        for i in 0..<n {
            var least = Float.infinity
            for c in 0..<channels { least = min(least, sums[(2 * i + 1) * channels + c]) }
            map.pixels[i] = least
        }
        return (Image(width: width, height: height, planes: planes), map)
    }

    /// Drops every pixel of `frame` whose drop may reach `rows` onto those rows.
    private func drop(_ frame: DrizzleFrame, weight: Float, rows: Range<Int>) {
        let square = options.kernel == .square, half = frame.dropHalf, steering = steering
        let inverseScale = Float(1 / options.scale)
        let reach = steering != nil ? SteeredKernelField.reach / inverseScale : square ? half : Self.gaussianReach(half)
        let robustness = frame.robustness
        let top = Float(rows.lowerBound) - reach, bottom = Float(rows.upperBound) + reach
        let inWidth = frame.width, outWidth = width, channels = channels
        let sigma = half * 2 / 2.3548, twoSigma2 = 2 * sigma * sigma
        // The Gaussian's peak, so that its integral is the square drop's area.
        let peak = 4 * half * half / (Float.pi * twoSigma2)
        let sums = sums.baseAddress!
        frame.centreX.withUnsafeBufferPointer { xs in
        frame.centreY.withUnsafeBufferPointer { ys in
        Self.withSamplePointers(frame.planes[...]) { samples in
            for y in 0..<frame.height {
                let span = frame.rowSpan[y]
                guard span.high > top, span.low < bottom else { continue }
                let rowColours = frame.mosaic.map { pattern in (pattern.channel(x: 0, y: y), pattern.channel(x: 1, y: y)) }
                for x in 0..<inWidth {
                    let i = y * inWidth + x
                    let cx = xs[i], cy = ys[i], r = robustness?[i] ?? 1
                    guard cy > top, cy < bottom, cx.isFinite, r > 0 else { continue }
                    let y0 = max(rows.lowerBound, Int((cy - reach).rounded(.down)))
                    let y1 = min(rows.upperBound - 1, Int((cy + reach).rounded(.up)) - 1)
                    let x0 = max(0, Int((cx - reach).rounded(.down)))
                    let x1 = min(outWidth - 1, Int((cx + reach).rounded(.up)) - 1)
                    guard y0 <= y1, x0 <= x1 else { continue }
                    // A mosaic's sample feeds its colour alone; else plane c feeds channel c.
                    let colour = rowColours.map { x & 1 == 0 ? $0.0 : $0.1 }
                    let planeCount = colour == nil ? channels : 1
                    for oy in y0...y1 {
                        let overlapY = square ? Self.overlap(Float(oy), cy, half) : 0
                        let dy = Float(oy) + 0.5 - cy
                        for ox in x0...x1 {
                            let a: Float
                            if let steering {
                                // Offsets in input pixels; the kernel of the 1× pixel the output pixel lies in.
                                let ux = (Float(ox) + 0.5 - cx) * inverseScale, uy = dy * inverseScale
                                let m = steering.inverse(x: Int((Float(ox) + 0.5) * inverseScale),
                                                         y: Int((Float(oy) + 0.5) * inverseScale))
                                a = Float(exp(Double(-0.5 * (m.x * ux * ux + 2 * m.y * ux * uy + m.z * uy * uy))))
                            } else if square {
                                a = Self.overlap(Float(ox), cx, half) * overlapY
                            } else {
                                let dx = Float(ox) + 0.5 - cx
                                let r2 = dx * dx + dy * dy
                                a = r2 <= reach * reach ? peak * Float(exp(Double(-r2 / twoSigma2))) : 0
                            }
                            guard a > 0 else { continue }
                            let o = oy * outWidth + ox, aw = a * weight * r
                            for p in 0..<planeCount {
                                let d = samples[p][i]
                                guard d.isFinite else { continue }
                                let channel = colour ?? p
                                sums[2 * o * channels + channel] += aw * d
                                sums[(2 * o + 1) * channels + channel] += aw
                            }
                        }
                    }
                }
            }
        }
        }
        }
    }

    /// Calls `body` with a pointer to each plane's samples, valid during the call.
    static func withSamplePointers(_ planes: ArraySlice<Plane>, _ taken: [UnsafePointer<Float>] = [],
                                           _ body: ([UnsafePointer<Float>]) -> Void) {
        guard let first = planes.first else { return body(taken) }
        first.pixels.withUnsafeBufferPointer { withSamplePointers(planes.dropFirst(), taken + [$0.baseAddress!], body) }
    }

    /// The length `[pixel, pixel + 1)` shares with `[centre − half, centre + half)`.
    @inline(__always)
    static func overlap(_ pixel: Float, _ centre: Float, _ half: Float) -> Float {
        max(0, min(pixel + 1, centre + half) - max(pixel, centre - half))
    }

    /// How far a Gaussian drop of half-FWHM `half` reaches: 3 σ, and at
    /// least 0.75 output pixels, so that every drop reaches the output
    /// pixel centre nearest to it (at most √½ away).
    static func gaussianReach(_ half: Float) -> Float {
        max(3 * half * 2 / 2.3548, 0.75)
    }
}

// References
// - A. S. Fruchter and R. N. Hook, "Drizzle: A Method for the Linear
//   Reconstruction of Undersampled Images", PASP 114 (2002) 144–152.
// - The DrizzlePac Handbook (STScI): the square and Gaussian kernels,
//   pixfrac, and the weight image.
