import Foundation
import Registration
import TestSupport

/// A smooth random texture defined at every real coordinate: white noise on
/// an integer lattice convolved with a truncated Gaussian (σ = 1.5 px,
/// support ±4σ, shifted so it reaches 0 continuously at the cut). Its
/// spectrum is ≈ e^{−2π²σ²f²}, i.e. < 2·10⁻⁵ of DC at Nyquist, so it is
/// effectively band-limited, and a frame can be rendered *exactly* at any
/// subpixel shift.
struct Texture {
    static let sigma = 1.5
    static let radius = 6.0
    let lattice: [Float]
    let latticeWidth: Int, latticeHeight: Int
    /// Coordinate of lattice node 0 (negative: the lattice extends beyond the frame).
    let origin: Int
    let gain: Double

    /// A texture covering `[-margin, width + margin] × [-margin, height + margin]`.
    init(seed: UInt64, width: Int, height: Int, margin: Int = 80, contrast: Double = 0.15) {
        var rng = TestRandom(seed: seed)
        origin = -(margin + Int(Texture.radius) + 2)
        latticeWidth = width - 2 * origin
        latticeHeight = height - 2 * origin
        lattice = (0..<(latticeWidth * latticeHeight)).map { _ in Float(rng.gaussian()) }
        // Std of Σ z g(x) g(y) ≈ sqrt(π σ²) (sum of g² ≈ σ√π per axis).
        gain = contrast / (Double.pi.squareRoot() * Texture.sigma)
    }

    static func kernel(_ t: Double) -> Double {
        let r = radius, s2 = 2 * sigma * sigma
        return abs(t) >= r ? 0 : exp(-t * t / s2) - exp(-r * r / s2)
    }

    /// The plane `p(x, y) = 0.5 + texture(x + dx, y + dy)`, so that a frame
    /// rendered with `(dx, dy)` against a reference rendered with `(0, 0)`
    /// satisfies `frame(x, y) = reference(x + dx, y + dy)`.
    func render(width: Int, height: Int, dx: Double = 0, dy: Double = 0) -> Plane {
        let r = Int(Texture.radius), taps = 2 * r + 1
        // Horizontal pass over every lattice row needed (flat arrays and
        // unsafe pointers: debug builds are otherwise slow here).
        let vMin = dy - Double(r) - 1, vMax = Double(height - 1) + dy + Double(r) + 1
        let m0 = max(0, Int(vMin.rounded(.down)) - origin), m1 = min(latticeHeight - 1, Int(vMax.rounded(.up)) - origin)
        var hRows = [Double](repeating: 0, count: (m1 - m0 + 1) * width)
        var wx = [Double](repeating: 0, count: width * taps), nx = [Int](repeating: 0, count: width)
        for x in 0..<width {
            let u = Double(x) + dx
            let n0 = Int((u - Double(r)).rounded(.up))
            nx[x] = n0 - origin
            for k in 0..<taps { wx[x * taps + k] = Texture.kernel(u - Double(n0 + k)) }
        }
        let lw = latticeWidth
        lattice.withUnsafeBufferPointer { lat in
            wx.withUnsafeBufferPointer { w in
                hRows.withUnsafeMutableBufferPointer { hr in
                    for m in m0...m1 {
                        let row = m * lw, orow = (m - m0) * width
                        for x in 0..<width {
                            var s = 0.0
                            let base = nx[x]
                            for k in 0..<taps {
                                let n = base + k
                                if n >= 0 && n < lw { s += w[x * taps + k] * Double(lat[row + n]) }
                            }
                            hr[orow + x] = s
                        }
                    }
                }
            }
        }
        var pixels = [Float](repeating: 0, count: width * height)
        var acc = [Double](repeating: 0, count: width)
        hRows.withUnsafeBufferPointer { hr in
            pixels.withUnsafeMutableBufferPointer { out in
                acc.withUnsafeMutableBufferPointer { a in
                    for y in 0..<height {
                        let v = Double(y) + dy
                        let n0 = Int((v - Double(r)).rounded(.up))
                        for x in 0..<width { a[x] = 0 }
                        for k in 0..<taps {
                            let m = n0 + k - origin
                            guard m >= m0 && m <= m1 else { continue }
                            let g = Texture.kernel(v - Double(n0 + k))
                            let row = (m - m0) * width
                            for x in 0..<width { a[x] += g * hr[row + x] }
                        }
                        for x in 0..<width { out[y * width + x] = Float(0.5 + gain * a[x]) }
                    }
                }
            }
        }
        return Plane(width: width, height: height, pixels: pixels)
    }

    /// The texture sampled at arbitrary points (slow; for non-translation tests).
    func value(x u: Double, y v: Double) -> Float {
        let r = Int(Texture.radius)
        var s = 0.0
        let n0 = Int((u - Double(r)).rounded(.up)), m0 = Int((v - Double(r)).rounded(.up))
        for j in 0...(2 * r) {
            let m = m0 + j - origin
            guard m >= 0 && m < latticeHeight else { continue }
            let gy = Texture.kernel(v - Double(m0 + j))
            for i in 0...(2 * r) {
                let n = n0 + i - origin
                guard n >= 0 && n < latticeWidth else { continue }
                s += gy * Texture.kernel(u - Double(n0 + i)) * Double(lattice[m * latticeWidth + n])
            }
        }
        return Float(0.5 + gain * s)
    }
}

extension Plane {
    /// `self` plus Gaussian noise of standard deviation `sigma` (fixed seed).
    func addingNoise(sigma: Double, seed: UInt64) -> Plane {
        var rng = TestRandom(seed: seed)
        var p = self
        for i in 0..<p.pixels.count { p.pixels[i] += Float(sigma * rng.gaussian()) }
        return p
    }

    /// Clamped to 0…1 and rounded to 8-bit steps, as a JPEG/PNG round trip would.
    func quantised8() -> Plane {
        var p = self
        for i in 0..<p.pixels.count { p.pixels[i] = (min(1, max(0, p.pixels[i])) * 255).rounded() / 255 }
        return p
    }

    /// `self` with `count` random rectangles (each up to `maxSide` px) filled
    /// from `other`: "moving objects" that are not in the reference.
    func pasting(_ other: Plane, rectangles count: Int, maxSide: Int, seed: UInt64) -> Plane {
        var rng = TestRandom(seed: seed)
        var p = self
        for _ in 0..<count {
            let w = 8 + Int(rng.uniform() * Double(maxSide - 8)), h = 8 + Int(rng.uniform() * Double(maxSide - 8))
            let x0 = Int(rng.uniform() * Double(width - w)), y0 = Int(rng.uniform() * Double(height - h))
            for y in y0..<(y0 + h) { for x in x0..<(x0 + w) { p[x, y] = other[x, y] } }
        }
        return p
    }
}

/// Peak signal-to-noise ratio in dB (peak 1) of `a` against `b` over pixels where `mask` is true.
func psnr(_ a: Plane, _ b: Plane, where mask: (Int, Int) -> Bool) -> Double {
    var se = 0.0, n = 0
    for y in 0..<a.height { for x in 0..<a.width where mask(x, y) {
        let d = Double(a[x, y] - b[x, y]); se += d * d; n += 1
    } }
    guard n > 0 else { return 0 }
    let mse = se / Double(n)
    return mse == 0 ? .infinity : 10 * log10(1 / mse)
}
