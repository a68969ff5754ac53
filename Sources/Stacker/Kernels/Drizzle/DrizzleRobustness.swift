public import Registration
#if canImport(Glibc)
import Glibc
#endif

/// Per-sample robustness for a super-resolution merge (`--scale` with
/// `--robust`), after Wronski et al. 2019 (§5.2): a sample keeps its weight
/// where its frame agrees with the robust 1× stack around it, and loses it
/// where the frame shows something the stack does not (a car that drove
/// on, a branch that moved, a misaligned patch).
///
/// For every pixel of a frame, per channel, the 3 × 3 mean of the frame
/// around it is compared with the 3 × 3 mean of the 1× stack at the point
/// it maps to (bilinear): `d_c`. The tolerance `σ_c` joins a multiple of
/// the frames' noise σ_n (`noiseShare`) and the stack's local 3 × 3
/// standard deviation (`textureShare`), since on edges and fine detail a
/// frame's aliasing differs from the stack's without anything moving:
///
///     σ_c² = (noiseShare · σ_n)² + (textureShare · std₃ₓ₃)²
///     q = max_c d_c² / σ_c²,   R = clamp(s · exp(−q) − t, 0, 1)
///
/// then `R` is the least over the 5 × 5 pixels around (so a moving
/// object's rim goes with it). A sample's drop or kernel weight is
/// multiplied by its `R`. Wronski's s = 12 and t = 0.12 keep `R = 1` up to
/// `d ≈ 1.54 σ_c` and reach 0 at `d ≈ 2.15 σ_c`: on flat ground from
/// about 3 σ_n on, so a patch 0.04 off at σ_n = 0.01 goes.
///
/// Frames in colour (one plane per channel), not mosaics.
public struct DrizzleRobustness: Sendable {
    /// Wronski's scale s.
    public static let s: Float = 12
    /// Wronski's threshold t.
    public static let t: Float = 0.12
    /// The tolerance's floor in units of the frames' noise σ: a 3 × 3 mean
    /// has σ/3 of noise, but the 1× stack is softer than any frame (its
    /// warps, its other offsets), which noise alone does not cover.
    /// Measured on the handheld scene (64 × 64, 16 frames; `textureShare`
    /// 1): 1 cost 0.04 dB on the still scene, 2 nothing, with the ghosts at
    /// 30 % and 26 % of plain drizzle's; a higher floor lets fainter moving
    /// things through.
    public static let noiseShare: Float = 2
    /// Share of the stack's local standard deviation in the tolerance
    /// (Lafenetre et al. use the local deviation whole): 0.5 cost 0.5 dB on
    /// the still scene, 1 nothing, with fewer ghosts.
    public static let textureShare: Float = 1
    /// Half the side of the window `R` is eroded over (5 × 5).
    public static let erosion = 2

    /// The 1× stack's 3 × 3 means, per channel.
    let means: [Plane]
    /// The tolerance σ_c per 1× pixel, per channel.
    let tolerances: [Plane]
    /// Output pixels per 1× pixel.
    let scale: Double

    /// Robustness against `stack` (the robust 1× stack) for frames of noise
    /// σ `noise` per channel (floored at half an 8-bit level), drizzled at `scale`.
    public init(stack: Image, noise: [Double], scale: Double) {
        precondition(noise.count == stack.channels, "DrizzleRobustness: \(noise.count) noise values for \(stack.channels) channels")
        self.scale = scale
        var means: [Plane] = [], tolerances: [Plane] = []
        for (c, plane) in stack.planes.enumerated() {
            let mean = Self.boxMean(plane)
            let meanOfSquares = Self.boxMean(Plane(width: plane.width, height: plane.height, pixels: plane.pixels.map { $0 * $0 }))
            let floor = Self.noiseShare * Float(max(noise[c], 0.5 / 255))
            let tolerance = zip(mean.pixels, meanOfSquares.pixels).map { m, m2 in
                let share = Self.textureShare * max(0, m2 - m * m).squareRoot()
                return (floor * floor + share * share).squareRoot()
            }
            means.append(mean)
            tolerances.append(Plane(width: plane.width, height: plane.height, pixels: tolerance))
        }
        self.means = means
        self.tolerances = tolerances
    }

    /// `R` for every pixel of `frame` (row-major, frame size); 1 where its
    /// centre falls off the 1× grid.
    public func weights(for frame: DrizzleFrame) -> [Float] {
        precondition(frame.mosaic == nil && frame.planes.count == means.count,
                     "DrizzleRobustness: a frame of \(frame.planes.count) plane(s) against \(means.count) channel(s)")
        let w = frame.width, h = frame.height
        let frameMeans = frame.planes.map(Self.boxMean)
        var r = [Float](repeating: 1, count: w * h)
        let inverse = 1 / scale
        for i in 0..<(w * h) {
            let cx = frame.centreX[i], cy = frame.centreY[i]
            guard cx.isFinite, cy.isFinite else { continue }
            let x = Double(cx) * inverse - 0.5, y = Double(cy) * inverse - 0.5
            var q: Float = 0
            for c in means.indices {
                guard let centre = DrizzleRejection.bilinear(means[c], x: x, y: y),
                      let sigma = DrizzleRejection.bilinear(tolerances[c], x: x, y: y) else { q = .nan; break }
                let d = frameMeans[c].pixels[i] - centre
                q = max(q, d * d / (sigma * sigma))
            }
            guard q.isFinite else { continue }
            r[i] = min(1, max(0, Self.s * Float(exp(Double(-q))) - Self.t))
        }
        return Self.eroded(r, width: w, height: h)
    }

    /// Each pixel's mean over its 3 × 3 neighbourhood (clipped at the edges).
    static func boxMean(_ plane: Plane) -> Plane {
        let sums = DrizzleRejection.boxSum(plane)
        let counts = DrizzleRejection.boxSum(Plane(width: plane.width, height: plane.height,
                                                   pixels: [Float](repeating: 1, count: plane.pixels.count)))
        return Plane(width: plane.width, height: plane.height, pixels: zip(sums.pixels, counts.pixels).map { $0 / $1 })
    }

    /// `values` (a `width × height` plane) with each pixel the least over
    /// the `(2·erosion + 1)²` pixels around it, clipped at the edges: the
    /// least along rows, then along columns.
    static func eroded(_ values: [Float], width: Int, height: Int) -> [Float] {
        let rows = leastAlong(values, length: width, lines: height, step: 1, lineStep: width)
        return leastAlong(rows, length: height, lines: width, step: width, lineStep: 1)
    }

    /// The least over ±`erosion` samples along each of `lines` lines of
    /// `length` samples, `step` apart, the lines `lineStep` apart.
    private static func leastAlong(_ values: [Float], length: Int, lines: Int, step: Int, lineStep: Int) -> [Float] {
        var out = values
        for line in 0..<lines {
            let base = line * lineStep
            for i in 0..<length {
                var least: Float = 1
                for j in max(0, i - erosion)...min(length - 1, i + erosion) { least = min(least, values[base + j * step]) }
                out[base + i * step] = least
            }
        }
        return out
    }
}

// References
// - B. Wronski et al., "Handheld Multi-Frame Super-Resolution", ACM Trans.
//   Graphics 38(4), 28, 2019 (§5.2, the robustness model).
// - J. Lafenetre, G. Facciolo and T. Eboli, "Implementing Handheld Burst
//   Super-Resolution", IPOL 13 (2023) (s = 12, t = 0.12; the 5 × 5 minimum).
