import Foundation
import Registration
import TestSupport

/// An analytic scene defined at every real reference coordinate, so a frame
/// seen through any homography can be rendered without resampling error:
/// three octaves of smooth value noise (quintic-interpolated hashed lattices,
/// periods 23, 9 and 4 px) plus rectangular blocks with soft (≈ 3 px) edges.
struct HomographyScene: Sendable {
    struct Block: Sendable { var x0, y0, x1, y1, amplitude: Double }
    let seed: UInt64
    let blocks: [Block]

    /// A scene with `blockCount` random blocks over a `width` × `height` area.
    init(seed: UInt64, width: Int, height: Int, blockCount: Int = 14) {
        self.seed = seed
        var rng = TestRandom(seed: seed ^ 0xB10C)
        let scale = Double(max(width, height)) / 640
        blocks = (0..<blockCount).map { _ in
            let w = (30 + 90 * rng.uniform()) * scale, h = (30 + 90 * rng.uniform()) * scale
            let x = rng.uniform() * Double(width) - w / 2, y = rng.uniform() * Double(height) - h / 2
            return Block(x0: x, y0: y, x1: x + w, y1: y + h, amplitude: rng.symmetric(0.15))
        }
    }

    @inline(__always) private func lattice(_ i: Int, _ j: Int, _ octave: Int) -> Double {
        let z = TestRandom.hash(seed &+ UInt64(bitPattern: Int64(i)) &* 0x9E37_79B9_7F4A_7C15
            &+ UInt64(bitPattern: Int64(j)) &* 0xC2B2_AE3D_27D4_EB4F &+ UInt64(octave) &* 0x1656_67B1_9E37_79F9)
        return Double(z >> 11) / Double(1 << 53) * 2 - 1
    }

    @inline(__always) private static func fade(_ t: Double) -> Double { t * t * t * (t * (t * 6 - 15) + 10) }

    @inline(__always) private static func edge(_ t: Double) -> Double {
        // Smoothstep ramp from 0 at t = −1.5 to 1 at t = +1.5.
        let u = min(1, max(0, (t + 1.5) / 3))
        return u * u * (3 - 2 * u)
    }

    /// The scene value at reference point `(x, y)` (about 0.2…0.8).
    func value(_ x: Double, _ y: Double) -> Double {
        var v = 0.5
        for o in 0..<3 {
            let period = o == 0 ? 23.0 : (o == 1 ? 9.0 : 4.0)
            let amplitude = o == 0 ? 0.10 : (o == 1 ? 0.06 : 0.035)
            let u = x / period, w = y / period
            let fu = u.rounded(.down), fw = w.rounded(.down)
            let i = Int(fu), j = Int(fw)
            let tx = Self.fade(u - fu), ty = Self.fade(w - fw)
            let a = lattice(i, j, o), b = lattice(i + 1, j, o), c = lattice(i, j + 1, o), d = lattice(i + 1, j + 1, o)
            let top = a + tx * (b - a), bottom = c + tx * (d - c)
            v += amplitude * (top + ty * (bottom - top))
        }
        for b in blocks where x > b.x0 - 2 && x < b.x1 + 2 && y > b.y0 - 2 && y < b.y1 + 2 {
            v += b.amplitude * Self.edge(x - b.x0) * Self.edge(b.x1 - x) * Self.edge(y - b.y0) * Self.edge(b.y1 - y)
        }
        return v
    }

    /// Renders a `width` × `height` frame whose pixel `(x, y)` shows the
    /// scene at `transform(x, y)` (frame → reference), averaged over a 2×2
    /// grid of sub-pixel points; then `gain · v + offset`, opaque
    /// `occluders` (frame coordinates, constant value), Gaussian noise of
    /// `noise` σ and 8-bit quantisation (clamped to 0…1).
    func render(width: Int, height: Int, transform: Transform = .identity, gain: Double = 1, offset: Double = 0,
                occluders: [(x: Int, y: Int, w: Int, h: Int, value: Float)] = [],
                noise: Double = 0.01, seed: UInt64 = 1) -> Plane {
        let m = transform.matrix
        let scene = self
        let rows = Array(0..<height).concurrentMap { y in
            var rng = TestRandom(seed: seed &+ UInt64(y) &* 0x5851_F42D_4C95_7F2D)
            return (0..<width).map { x -> Float in
                var s = 0.0
                for sub in 0..<4 {
                    let fx = Double(x) + (sub & 1 == 0 ? -0.25 : 0.25), fy = Double(y) + (sub < 2 ? -0.25 : 0.25)
                    let w = m[6] * fx + m[7] * fy + m[8]
                    s += scene.value((m[0] * fx + m[1] * fy + m[2]) / w, (m[3] * fx + m[4] * fy + m[5]) / w)
                }
                var v = gain * s / 4 + offset
                for o in occluders where x >= o.x && x < o.x + o.w && y >= o.y && y < o.y + o.h { v = Double(o.value) }
                v += noise * rng.gaussian()
                return Float((min(1, max(0, v)) * 255).rounded() / 255)
            }
        }
        return Plane(width: width, height: height, pixels: Array(rows.joined()))
    }
}

/// A random frame → reference homography for a `width` × `height` frame:
/// each corner is displaced by a common shift of up to ±`shift` px plus its
/// own jitter of up to ±`jitter` px per axis (4-point DLT).
func randomHomography(_ rng: inout TestRandom, width: Int, height: Int,
                      shift: Double, jitter: Double) -> Transform? {
    let sx = rng.symmetric(shift), sy = rng.symmetric(shift)
    let w = Double(width - 1), h = Double(height - 1)
    let corners = [(0.0, 0.0), (w, 0), (w, h), (0, h)]
    let pairs = corners.map { c in
        (from: c, to: (c.0 + sx + rng.symmetric(jitter), c.1 + sy + rng.symmetric(jitter)))
    }
    return Transform.fromCorrespondences(pairs)
}

/// Per-corner distances (px) between where `estimate` and `truth` send the
/// four corners of a `width` × `height` frame.
func cornerErrors(_ estimate: Transform, _ truth: Transform, width: Int, height: Int) -> [Double] {
    let w = Double(width - 1), h = Double(height - 1)
    return [(0.0, 0.0), (w, 0), (w, h), (0, h)].map { c in
        let a = estimate.apply(x: c.0, y: c.1), b = truth.apply(x: c.0, y: c.1)
        return ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }
}
