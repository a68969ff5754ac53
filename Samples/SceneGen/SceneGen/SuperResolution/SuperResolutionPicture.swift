internal import Stacker
internal import Registration

/// The continuous scene behind `SuperResolutionScene`: a colour gradient,
/// then, painted over it in order, rotated rectangles, discs, groups of
/// bars with periods of 1.2 to 2.4 reference pixels (past the frames'
/// Nyquist limit of 2, within the truth's of 1) and a zone plate whose
/// local frequency reaches 0.9 cycles per reference pixel at its rim.
/// Reference coordinates, pixel centres at integers.
struct SuperResolutionPicture: Sendable {
    /// An RGB colour, 0…1.
    typealias Colour = (Double, Double, Double)

    /// A painted shape; `contains` tests a point, `colour` gives its colour there.
    private enum Shape: Sendable {
        case rectangle(cx: Double, cy: Double, halfWidth: Double, halfHeight: Double, cos: Double, sin: Double, colour: Colour)
        case disc(cx: Double, cy: Double, radius: Double, colour: Colour)
        case bars(cx: Double, cy: Double, half: Double, period: Double, cos: Double, sin: Double, dark: Colour, light: Colour)
        case zonePlate(cx: Double, cy: Double, radius: Double, length: Double)
    }

    private let background: (base: Colour, gx: Double, gy: Double)
    private let shapes: [Shape]
    /// Point samples per pixel along each axis.
    private static let samples = 4

    /// A picture covering `[−margin, width + margin] × [−margin, height + margin]`.
    init(width: Double, height: Double, margin: Double, seed: UInt64) {
        var rng = SplitMix64(seed: seed, stream: 0x5049)
        func colour() -> Colour { (rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9)) }
        func point() -> (Double, Double) { (rng.uniform(-margin, width + margin), rng.uniform(-margin, height + margin)) }
        background = (colour(), rng.uniform(-0.2, 0.2) / width, rng.uniform(-0.2, 0.2) / height)
        let area = (width + 2 * margin) * (height + 2 * margin)
        var shapes: [Shape] = []
        for _ in 0..<max(4, Int(area / 900)) {
            let (cx, cy) = point(), angle = rng.uniform(0, Double.pi)
            shapes.append(.rectangle(cx: cx, cy: cy, halfWidth: rng.uniform(2, width / 6), halfHeight: rng.uniform(1, height / 8),
                                     cos: Math.cos(angle), sin: Math.sin(angle), colour: colour()))
        }
        for _ in 0..<max(3, Int(area / 1500)) {
            let (cx, cy) = point()
            shapes.append(.disc(cx: cx, cy: cy, radius: rng.uniform(1.5, width / 10), colour: colour()))
        }
        for _ in 0..<max(3, Int(area / 1800)) {
            let (cx, cy) = point(), angle = rng.uniform(0, Double.pi)
            shapes.append(.bars(cx: cx, cy: cy, half: rng.uniform(5, 12), period: rng.uniform(1.2, 2.4),
                                cos: Math.cos(angle), sin: Math.sin(angle),
                                dark: (0.12, 0.12, 0.15), light: (0.85, 0.85, 0.8)))
        }
        let radius = min(width, height) / 5
        shapes.append(.zonePlate(cx: rng.uniform(radius, width - radius), cy: rng.uniform(radius, height - radius),
                                 radius: radius, length: radius / 0.9))
        self.shapes = shapes
    }

    /// A disc painted over the scene in one frame only (a moving object).
    struct Mover: Sendable {
        var cx: Double
        var cy: Double
        var radius: Double
        var colour: Colour
    }

    /// The scene's colour at reference point `(x, y)`, with `movers` on top.
    func colour(x: Double, y: Double, movers: [Mover] = []) -> Colour {
        for mover in movers {
            let dx = x - mover.cx, dy = y - mover.cy
            if dx * dx + dy * dy <= mover.radius * mover.radius { return mover.colour }
        }
        for shape in shapes.reversed() {
            switch shape {
            case let .rectangle(cx, cy, hw, hh, c, s, colour):
                let dx = x - cx, dy = y - cy
                if abs(c * dx + s * dy) <= hw && abs(-s * dx + c * dy) <= hh { return colour }
            case let .disc(cx, cy, r, colour):
                let dx = x - cx, dy = y - cy
                if dx * dx + dy * dy <= r * r { return colour }
            case let .bars(cx, cy, half, period, c, s, dark, light):
                let dx = x - cx, dy = y - cy
                let u = c * dx + s * dy, v = -s * dx + c * dy
                if abs(u) <= half && abs(v) <= half {
                    let phase = (u + half) / period
                    return phase - phase.rounded(.down) < 0.5 ? dark : light
                }
            case let .zonePlate(cx, cy, r, length):
                let dx = x - cx, dy = y - cy, r2 = dx * dx + dy * dy
                if r2 <= r * r {
                    let v = 0.5 + 0.4 * Math.cos(Double.pi * r2 / length)
                    return (v, v, v)
                }
            }
        }
        let (base, gx, gy) = background
        let t = gx * x + gy * y
        return (base.0 + t, base.1 + t, base.2 + t)
    }

    /// A `width × height` RGB image whose pixel `(i, j)` integrates the
    /// scene (with `movers` painted over it) over `[ox + i·size, ox + (i+1)·size] × [oy + j·size, …]`,
    /// plus Gaussian noise of σ `noise` from `rng`, clamped to 0…1.
    func render(width: Int, height: Int, pixelSize size: Double, origin: (x: Double, y: Double),
                noise: Double, movers: [Mover] = [], rng: inout SplitMix64) -> Image {
        var planes = (0..<3).map { _ in [Float](repeating: 0, count: width * height) }
        let n = Self.samples, step = size / Double(n), norm = 1 / Double(n * n)
        for j in 0..<height {
            for i in 0..<width {
                var r = 0.0, g = 0.0, b = 0.0
                for sy in 0..<n {
                    let y = origin.y + Double(j) * size + (Double(sy) + 0.5) * step
                    for sx in 0..<n {
                        let c = colour(x: origin.x + Double(i) * size + (Double(sx) + 0.5) * step, y: y, movers: movers)
                        r += c.0
                        g += c.1
                        b += c.2
                    }
                }
                let values = [r, g, b]
                for k in 0..<3 {
                    var v = values[k] * norm
                    if noise > 0 { v += noise * Self.gaussian(&rng) }
                    planes[k][j * width + i] = Float(min(1, max(0, v)))
                }
            }
        }
        return Image(width: width, height: height, planes: planes.map { Plane(width: width, height: height, pixels: $0) })
    }

    /// A standard normal deviate (Box–Muller).
    private static func gaussian(_ rng: inout SplitMix64) -> Double {
        let u = max(rng.unit(), 1e-300), v = rng.unit()
        return (-2 * Math.log(u)).squareRoot() * Math.cos(2 * Double.pi * v)
    }
}
