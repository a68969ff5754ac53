/// The static street scene: a continuous, procedural RGB function of
/// reference coordinates, already integrated over each pixel's area.
///
/// Everything is built from pieces whose 1 px box integral is exact and
/// cheap: axis-aligned soft rectangles and pulse trains (`BoxProfile`, separable
/// into x and y profiles), smooth gradients, and sums of sinusoids ≤ 0.3
/// cycles/px (each scaled by the box filter's sinc gain). A frame with shift
/// `(dx, dy)` evaluates the same function at `(x + dx, y + dy)`, so frames are
/// consistent to rounding, and an integer shift reproduces the truth exactly.
struct StreetWorld: Sendable {
    /// Edge softness of every rectangle (px): a smoothstep over this width,
    /// then the 1 px box. 1.5 px keeps aliasing low at an almost crisp look.
    static let edgeSoftness = 1.5
    /// Highest texture frequency (cycles/px), well below Nyquist (0.5).
    static let maxTextureFrequency = 0.3

    struct Rect: Sendable {
        var x0, x1, y0, y1: Double
    }

    struct Train: Sendable {
        var start, width, period: Double
        var count: Int
    }

    struct Building: Sendable {
        var body: Rect
        var colour: SIMD3<Float>
        var windowsX: Train?
        var windowsY: Train?
        var windowColour: SIMD3<Float>
        var door: Rect?
        var doorColour: SIMD3<Float>
        var texture: Float
    }

    struct Wave: Sendable {
        var fx, fy, phase: Double
        var gain: Float   // amplitude × sinc(fx) × sinc(fy)
    }

    var width: Int
    var height: Int
    var buildings: [Building] = []   // back to front
    var poles: [Rect] = []
    var groundY = 0.0, roadY = 0.0, kerbHeight = 0.0
    var joints = Train(start: 0, width: 1, period: 10, count: 0)
    var dashes = Train(start: 0, width: 1, period: 10, count: 0)
    var laneY0 = 0.0, laneY1 = 0.0
    var coarse: [Wave] = []
    var fine: [Wave] = []

    /// Lays out a street for a `width × height` reference frame; frames may
    /// look up to `margin` px beyond it.
    init(width: Int, height: Int, margin: Double, seed: UInt64) {
        self.width = width
        self.height = height
        var rng = SplitMix64(seed: seed, stream: 0x57_4F52_4C44) // "WORLD"
        let W = Double(width), H = Double(height)
        let soft = StreetWorld.edgeSoftness
        groundY = H * rng.uniform(0.66, 0.72)
        kerbHeight = max(2, 0.008 * H)
        roadY = groundY + H * 0.06
        laneY0 = roadY + (H - roadY) * 0.5
        laneY1 = laneY0 + max(2.5, 0.012 * H)
        let left = -margin - 4, right = W + margin + 4

        // Back row: hazy, tall, plain.
        var x = left - rng.uniform(0, 0.1) * W
        while x < right {
            let w = W * rng.uniform(0.08, 0.2)
            let top = H * rng.uniform(0.05, 0.3)
            let haze = Float(rng.uniform(0.62, 0.78))
            let colour = SIMD3<Float>(haze * 0.92, haze * 0.95, haze * 1.02)
            buildings.append(Building(body: Rect(x0: x, x1: x + w, y0: top, y1: groundY + 2),
                                      colour: colour, windowsX: nil, windowsY: nil,
                                      windowColour: colour, door: nil, doorColour: colour,
                                      texture: 0.02))
            x += w * rng.uniform(0.7, 1.1)
        }

        // Front row: facades with window grids and a door.
        let facades: [SIMD3<Float>] = [
            [0.62, 0.32, 0.24], [0.78, 0.70, 0.55], [0.55, 0.55, 0.57], [0.70, 0.58, 0.42],
            [0.45, 0.38, 0.34], [0.82, 0.80, 0.74], [0.52, 0.60, 0.55], [0.68, 0.48, 0.40],
        ]
        x = left - rng.uniform(0, 0.1) * W
        while x < right {
            let w = W * rng.uniform(0.1, 0.24)
            let top = H * rng.uniform(0.16, 0.44)
            let jitter = Float(rng.uniform(0.9, 1.08))
            let colour = facades[rng.below(facades.count)] * jitter
            let body = Rect(x0: x, x1: x + w, y0: top, y1: groundY + 2)
            var wx: Train?, wy: Train?
            let cols = 2 + rng.below(4)
            let inset = w * rng.uniform(0.08, 0.14)
            let px = (w - 2 * inset) / Double(cols)
            let ww = px * rng.uniform(0.45, 0.65)
            let doorH = H * rng.uniform(0.07, 0.1)
            let py = H * rng.uniform(0.05, 0.08)
            let wh = py * rng.uniform(0.5, 0.65)
            let rowsTop = top + py * 0.5
            let rows = Int(((groundY - doorH - py * 0.4) - rowsTop) / py)
            if ww >= 2, px >= ww + soft + 1.5, wh >= 2, py >= wh + soft + 1.5, rows >= 1 {
                wx = Train(start: x + inset + (px - ww) / 2, width: ww, period: px, count: cols)
                wy = Train(start: rowsTop, width: wh, period: py, count: rows)
            }
            let tint = Float(rng.uniform(0.9, 1.1))
            let windowColour = SIMD3<Float>(0.16, 0.20, 0.27) * tint
            let doorW = max(3, min(w * 0.3, W * rng.uniform(0.025, 0.04)))
            let doorX = x + rng.uniform(0.15, 0.85) * (w - doorW)
            let door = Rect(x0: doorX, x1: doorX + doorW, y0: groundY - doorH, y1: groundY + 2)
            let doorColour = SIMD3<Float>(0.30, 0.20, 0.14) * Float(rng.uniform(0.8, 1.2))
            buildings.append(Building(body: body, colour: colour, windowsX: wx, windowsY: wy,
                                      windowColour: windowColour, door: door,
                                      doorColour: doorColour, texture: 0.06))
            x += w + (rng.unit() < 0.3 ? W * rng.uniform(0.005, 0.03) : 0)
        }

        // Street lamps: thin dark poles.
        x = left + W * rng.uniform(0.05, 0.2)
        let poleW = max(2.5, 0.006 * W)
        while x < right {
            poles.append(Rect(x0: x, x1: x + poleW, y0: H * rng.uniform(0.38, 0.5), y1: roadY + 1))
            x += W * rng.uniform(0.22, 0.4)
        }

        let jointPeriod = max(8, W * rng.uniform(0.04, 0.07))
        joints = Train(start: left + rng.uniform(0, jointPeriod), width: max(1.5, 0.003 * W),
                       period: jointPeriod, count: Int((right - left) / jointPeriod) + 2)
        let dashPeriod = max(16, W * rng.uniform(0.1, 0.14))
        dashes = Train(start: left + rng.uniform(0, dashPeriod), width: dashPeriod * 0.5,
                       period: dashPeriod, count: Int((right - left) / dashPeriod) + 2)

        // Textures: sums of sinusoids; amplitudes sum to 1 per field.
        func waves(_ n: Int, _ fLo: Double, _ fHi: Double) -> [Wave] {
            (0..<n).map { _ in
                let f = fLo * Math.exp(rng.unit() * Math.log(fHi / fLo))
                let theta = rng.uniform(0, 2 * Double.pi)
                let fx = f * Math.cos(theta), fy = f * Math.sin(theta)
                let phase = rng.uniform(0, 2 * Double.pi)
                let amp = 1.0 / Double(n) * rng.uniform(0.6, 1.4)
                return Wave(fx: fx, fy: fy, phase: phase,
                            gain: Float(amp * BoxProfile.sinc(fx) * BoxProfile.sinc(fy)))
            }
        }
        coarse = waves(5, 0.003, 0.03)
        fine = waves(8, 0.05, StreetWorld.maxTextureFrequency)
    }
}

