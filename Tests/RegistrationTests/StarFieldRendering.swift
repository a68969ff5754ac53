import Foundation
import Registration
import TestSupport

/// A synthetic star catalogue in reference pixel coordinates, and a camera
/// that renders it through any frame → reference transform with a
/// realistic noise model. Every test frame made from one catalogue shows
/// the same sky, so the true position of each star is known in every frame.
struct StarField {
    /// A catalogue star: reference-frame position (px) and total flux (ADU).
    struct Entry {
        var x: Double, y: Double, flux: Double
    }
    var stars: [Entry]

    /// `count` stars uniformly over `[−margin, width + margin] × [−margin,
    /// height + margin]`, at least `separation` px apart (so every centroid
    /// is measurable: blends are not what these tests are about), with a
    /// power-law flux distribution `N(> F) ∝ F^−α` from `minimumFlux` up,
    /// capped at `maximumFlux` (which keeps stars of FWHM ≥ 2.5 px below
    /// 16-bit saturation).
    init(seed: UInt64, width: Int, height: Int, count: Int, margin: Double = 80, separation: Double = 10,
         alpha: Double = 0.7, minimumFlux: Double = 800, maximumFlux: Double = 2.5e5) {
        var rng = TestRandom(seed: seed)
        var stars: [Entry] = []
        var attempts = 0
        while stars.count < count && attempts < count * 50 {
            attempts += 1
            let x = -margin + rng.uniform() * (Double(width) + 2 * margin)
            let y = -margin + rng.uniform() * (Double(height) + 2 * margin)
            let flux = min(maximumFlux, minimumFlux * pow(max(rng.uniform(), 1e-12), -1 / alpha))
            if stars.contains(where: { ($0.x - x) * ($0.x - x) + ($0.y - y) * ($0.y - y) < separation * separation }) { continue }
            stars.append(Entry(x: x, y: y, flux: flux))
        }
        self.stars = stars
    }
}

/// The camera and sky: everything in ADU (16-bit counts), converted to
/// electrons with `gain` for the shot noise.
struct StarCamera {
    /// Sky level at the top-left corner, and its rise across the frame
    /// (a gentle light-pollution gradient, 70 % along x, 30 % along y).
    var sky = 1000.0, gradient = 200.0
    /// Electrons per ADU, and the read noise in ADU.
    var gain = 1.0, readNoise = 5.0
    /// Star FWHM in pixels (the seeing of this frame).
    var fwhm = 3.0

    /// Gaussian σ of the PSF.
    var sigma: Double { fwhm / (2 * (2 * log(2.0)).squareRoot()) }

    /// The sky-limited signal-to-noise ratio of a star of `flux` ADU with
    /// optimal (PSF-weighted) photometry: `F / √(F/g + 4π s² (sky/g + r²))`,
    /// where `s² = σ² + 1/12` (the pixel-integrated PSF's variance) and
    /// `4π s²` the effective area of a Gaussian. Uses the mean sky level.
    func snr(flux: Double) -> Double {
        let s2 = sigma * sigma + 1.0 / 12
        let skyVariance = (sky + gradient / 2) / gain + readNoise * readNoise
        return flux / (flux / gain + 4 * Double.pi * s2 * skyVariance).squareRoot()
    }
}

/// A straight bright trail (satellite): the line through `point` at
/// `angle` radians, Gaussian across with FWHM `width` px, `amplitude` ADU peak.
struct SatelliteTrail {
    var point: (x: Double, y: Double), angle: Double, width = 2.0, amplitude = 1500.0

    /// Distance (px) of `(x, y)` from the line.
    func distance(x: Double, y: Double) -> Double {
        abs(-(x - point.x) * sin(angle) + (y - point.y) * cos(angle))
    }
}

/// A rendered frame and where each catalogue star truly lies in it.
struct RenderedStarFrame {
    var plane: Plane
    /// Frame-pixel position of every catalogue star (index = catalogue index),
    /// whether on the frame or not.
    var positions: [(x: Double, y: Double)]
}

extension StarField {
    /// Renders the frame whose transform to the reference is `transform`
    /// (frame → reference): each star sits at `transform⁻¹(catalogue
    /// position)`, a Gaussian of the camera's FWHM integrated over each
    /// pixel (products of erf differences), on the sky with its gradient;
    /// then shot noise (Gaussian with variance signal / gain, in ADU) plus
    /// read noise, the `hotPixels` (frame pixel, ADU added), an optional
    /// trail, clamping and rounding to 16-bit levels, scaled to 0…1.
    func render(width: Int, height: Int, transform: Transform = .identity, camera: StarCamera = StarCamera(),
                hotPixels: [(x: Int, y: Int, value: Double)] = [], trail: SatelliteTrail? = nil, seed: UInt64) -> RenderedStarFrame {
        let inverse = transform.inverse ?? .identity
        var adu = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                adu[y * width + x] = camera.sky + camera.gradient * (0.7 * Double(x) / Double(width) + 0.3 * Double(y) / Double(height))
            }
        }
        let s = camera.sigma, scale = 1 / (s * 2.0.squareRoot())
        let radius = Int((5 * s).rounded(.up)) + 1
        var positions: [(x: Double, y: Double)] = []
        positions.reserveCapacity(stars.count)
        var wx = [Double](repeating: 0, count: 2 * radius + 1), wy = wx
        for star in stars {
            let p = inverse.apply(x: star.x, y: star.y)
            positions.append(p)
            let cx = Int(p.x.rounded()), cy = Int(p.y.rounded())
            guard cx + radius >= 0, cy + radius >= 0, cx - radius < width, cy - radius < height else { continue }
            for k in 0...(2 * radius) {
                let i = Double(cx - radius + k), j = Double(cy - radius + k)
                wx[k] = 0.5 * (erf((i + 0.5 - p.x) * scale) - erf((i - 0.5 - p.x) * scale))
                wy[k] = 0.5 * (erf((j + 0.5 - p.y) * scale) - erf((j - 0.5 - p.y) * scale))
            }
            for b in 0...(2 * radius) {
                let y = cy - radius + b
                guard y >= 0, y < height else { continue }
                for a in 0...(2 * radius) {
                    let x = cx - radius + a
                    guard x >= 0, x < width else { continue }
                    adu[y * width + x] += star.flux * wx[a] * wy[b]
                }
            }
        }
        if let trail {
            let ts = trail.width / (2 * (2 * log(2.0)).squareRoot())
            for y in 0..<height {
                for x in 0..<width {
                    let d = trail.distance(x: Double(x), y: Double(y))
                    if d < 6 * ts { adu[y * width + x] += trail.amplitude * exp(-d * d / (2 * ts * ts)) }
                }
            }
        }
        var rng = TestRandom(seed: seed)
        var pixels = [Float](repeating: 0, count: width * height)
        let read2 = camera.readNoise * camera.readNoise
        for i in 0..<(width * height) {
            let signal = adu[i]
            adu[i] = signal + (signal / camera.gain + read2).squareRoot() * rng.gaussian()
        }
        for h in hotPixels where h.x >= 0 && h.y >= 0 && h.x < width && h.y < height {
            adu[h.y * width + h.x] += h.value
        }
        for i in 0..<(width * height) {
            pixels[i] = Float(min(65535, max(0, adu[i].rounded())) / 65535)
        }
        return RenderedStarFrame(plane: Plane(width: width, height: height, pixels: pixels), positions: positions)
    }
}

/// The similarity transform (frame → reference) rotating by `degrees`
/// and scaling by `scale` about the frame centre, then shifting by
/// `(dx, dy)`: `reference = s R (frame − c) + c + (dx, dy)`.
func similarity(degrees: Double, scale: Double, dx: Double, dy: Double, width: Int, height: Int) -> Transform {
    let t = degrees * Double.pi / 180
    let c = scale * cos(t), s = scale * sin(t)
    let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
    return Transform(matrix: [c, -s, cx + dx - (c * cx - s * cy),
                              s, c, cy + dy - (s * cx + c * cy),
                              0, 0, 1])
}
