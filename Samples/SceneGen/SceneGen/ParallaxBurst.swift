public import Registration
public import Stacker

/// A handheld burst with parallax and ground truth: a far plane and a near
/// band (rows `band` of the reference) that move by different amounts as
/// the hand moves, plus opaque discs at other places in every frame
/// (passers-by). Truth is the reference view (frame 0's geometry) without
/// discs or noise.
///
/// Each plane is a sum of `waves` random plane waves (periods 6…40 px), so
/// it is band-limited and rendered exactly at any subpixel shift; RGB is
/// the wave sum times a per-plane tint. Frame `i` sees the far plane
/// shifted by `g_i` (uniform ±`jitter` px per axis, `g_0 = 0`) and the band
/// by `g_i + p_i` (uniform ±`parallax` px, `p_0 = 0`): pixel `(x, y)` shows
/// the band where `y + g_y + p_y` falls in `band`, so the band also hides
/// and uncovers the far plane at its edges. Gaussian noise of σ `noise`.
public struct ParallaxBurst: Sendable {
    public var width: Int
    public var height: Int
    public var frames: Int
    /// Reference rows of the near band.
    public var band: Range<Int>
    /// Far-plane shift amplitude per axis, in pixels.
    public var jitter: Double = 4
    /// Extra shift amplitude of the band per axis, in pixels (at least a
    /// third of it on each axis, so every frame has visible parallax).
    public var parallax: Double = 5
    /// Discs per frame.
    public var objects: Int = 2
    public var noise: Double = 0.01
    public var waves: Int = 24
    public var seed: UInt64

    /// A burst of `frames` frames of `width` × `height`, the band over the
    /// middle third of the rows.
    public init(width: Int, height: Int, frames: Int, seed: UInt64 = 1) {
        self.width = width
        self.height = height
        self.frames = frames
        self.seed = seed
        band = (height / 3)..<(2 * height / 3)
    }

    /// One plane's texture: waves and a tint per channel.
    private struct Texture {
        var waves: [(u: Double, v: Double, phase: Double, amplitude: Double)]
        var tint: [Double]

        init(_ rng: inout SplitMix64, count: Int) {
            waves = (0..<count).map { _ in
                let period = rng.uniform(6, 40), angle = rng.uniform(0, 2 * Double.pi)
                let k = 2 * Double.pi / period
                return (k * Math.cos(angle), k * Math.sin(angle), rng.uniform(0, 2 * Double.pi), rng.uniform(0.5, 1))
            }
            tint = (0..<3).map { _ in rng.uniform(0.6, 1) }
        }

        /// Values 0…1 (about) at `(x + dx, y + dy)` for every pixel: each
        /// wave split as sin(a + b) = sin a cos b + cos a sin b over
        /// per-column and per-row tables.
        func render(width: Int, height: Int, dx: Double, dy: Double) -> [Double] {
            var out = [Double](repeating: 0, count: width * height)
            let norm = 0.18 / Double(max(1, waves.count)).squareRoot()
            for w in waves {
                let sx = (0..<width).map { Math.sin(w.u * (Double($0) + dx) + w.phase) }
                let cx = (0..<width).map { Math.cos(w.u * (Double($0) + dx) + w.phase) }
                let sy = (0..<height).map { Math.sin(w.v * (Double($0) + dy)) }
                let cy = (0..<height).map { Math.cos(w.v * (Double($0) + dy)) }
                let a = w.amplitude * norm
                for y in 0..<height {
                    let r = y * width
                    for x in 0..<width { out[r + x] += a * (sx[x] * cy[y] + cx[x] * sy[y]) }
                }
            }
            return out
        }
    }

    /// The frames (frame 0 is the reference view) and the truth.
    public func render() -> (frames: [Image], truth: Image) {
        var rng = SplitMix64(seed: seed)
        let far = Texture(&rng, count: waves), near = Texture(&rng, count: waves)
        var shifts = [(g: (x: 0.0, y: 0.0), p: (x: 0.0, y: 0.0))]
        for _ in 1..<max(1, frames) {
            func parallaxShift() -> Double {
                let m = rng.uniform(parallax / 3, parallax)
                return rng.unit() < 0.5 ? -m : m
            }
            let g = (x: rng.uniform(-jitter, jitter), y: rng.uniform(-jitter, jitter))
            shifts.append((g, (parallaxShift(), parallaxShift())))
        }
        func view(_ s: (g: (x: Double, y: Double), p: (x: Double, y: Double)), discs: Bool, noisy: Bool) -> Image {
            let f = far.render(width: width, height: height, dx: s.g.x, dy: s.g.y)
            let n = near.render(width: width, height: height, dx: s.g.x + s.p.x, dy: s.g.y + s.p.y)
            var planes = (0..<3).map { _ in [Float](repeating: 0, count: width * height) }
            for y in 0..<height {
                let inBand = band.contains(Int((Double(y) + s.g.y + s.p.y).rounded(.down)))
                for x in 0..<width {
                    let i = y * width + x
                    for c in 0..<3 {
                        let v = inBand ? 0.45 + near.tint[c] * n[i] : 0.5 + far.tint[c] * f[i]
                        planes[c][i] = Float(v)
                    }
                }
            }
            if discs {
                for _ in 0..<objects {
                    let cx = rng.uniform(0, Double(width)), cy = rng.uniform(0, Double(height))
                    let r = rng.uniform(6, 12)
                    let colour = (0..<3).map { _ in Float(rng.uniform(0.05, 0.95)) }
                    for y in max(0, Int(cy - r))..<min(height, Int(cy + r) + 1) {
                        for x in max(0, Int(cx - r))..<min(width, Int(cx + r) + 1)
                        where (Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy) <= r * r {
                            for c in 0..<3 { planes[c][y * width + x] = colour[c] }
                        }
                    }
                }
            }
            if noisy {
                for c in 0..<3 {
                    for i in 0..<planes[c].count { planes[c][i] += Float(noise * Self.gaussian(&rng)) }
                }
            }
            return Image(width: width, height: height,
                         planes: planes.map { Plane(width: width, height: height, pixels: $0) })
        }
        let truth = view(shifts[0], discs: false, noisy: false)
        return (shifts.map { view($0, discs: true, noisy: true) }, truth)
    }

    /// A standard normal deviate (Box–Muller).
    private static func gaussian(_ rng: inout SplitMix64) -> Double {
        let u = max(rng.unit(), 1e-300), v = rng.unit()
        return (-2 * Math.log(u)).squareRoot() * Math.cos(2 * Double.pi * v)
    }

    /// 1 on reference pixels inside the band, at least `margin` px from its
    /// edges and the image's; 0 elsewhere.
    public func bandMask(margin: Int) -> Plane {
        mask(margin: margin) { band.lowerBound + margin <= $0 && $0 < band.upperBound - margin }
    }

    /// 1 on reference pixels of the far plane at least `margin` px from the
    /// band and the image's edges; 0 elsewhere.
    public func backgroundMask(margin: Int) -> Plane {
        mask(margin: margin) { $0 < band.lowerBound - margin || $0 >= band.upperBound + margin }
    }

    private func mask(margin: Int, rows: (Int) -> Bool) -> Plane {
        var p = Plane(width: width, height: height)
        for y in margin..<max(margin, height - margin) where rows(y) {
            for x in margin..<max(margin, width - margin) { p.pixels[y * width + x] = 1 }
        }
        return p
    }
}
