import Foundation
import Registration
import Testing

/// The kernels a user picks with `--interpolation` beside the default
/// Lanczos-3: nearest (no resampling) and bilinear (the most smoothing).
@Suite("Warp kernel choice")
struct WarpKernelChoiceTests {
    static let width = 160, height = 120

    /// Uniform noise in 0…1 from a fixed seed.
    static func noise(seed: UInt64) -> Plane {
        var state = seed
        var plane = Plane(width: width, height: height)
        for i in 0..<plane.pixels.count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            plane.pixels[i] = Float(state >> 40) / Float(1 << 24)
        }
        return plane
    }

    @Test("nearest rounds a translation to whole pixels and copies samples exactly")
    func nearestTranslation() {
        let frame = Self.noise(seed: 1)
        for (dx, dy, ix, iy) in [(2.4, -1.6, 2, -2), (-3.5, 0.49, -4, 0), (0.51, 7.0, 1, 7)] {
            let r = Warper.warp([frame], by: .translation(dx: dx, dy: dy), width: Self.width, height: Self.height,
                                interpolation: .nearest)
            var wrong = 0
            for y in 0..<Self.height { for x in 0..<Self.width {
                let xf = x - ix, yf = y - iy
                let inside = xf >= 0 && xf < Self.width && yf >= 0 && yf < Self.height
                if r.coverage[x, y] != (inside ? 1 : 0) { wrong += 1; continue }
                if r.planes[0][x, y] != (inside ? frame[xf, yf] : 0) { wrong += 1 }
            } }
            #expect(wrong == 0, "shift (\(dx), \(dy)): \(wrong) samples not the frame's at (\(ix), \(iy))")
        }
    }

    @Test("nearest under a rotation takes the frame sample nearest each position")
    func nearestGeneral() {
        let frame = Self.noise(seed: 2)
        let a = 3.0 * Double.pi / 180
        let t = Transform(matrix: [cos(a), -sin(a), 4.3, sin(a), cos(a), -2.2, 0, 0, 1])
        let r = Warper.warp([frame], by: t, width: Self.width, height: Self.height, interpolation: .nearest)
        let inverse = t.inverse!
        var wrong = 0, covered = 0
        for y in 0..<Self.height { for x in 0..<Self.width where r.coverage[x, y] == 1 {
            covered += 1
            let p = inverse.apply(x: Double(x), y: Double(y))
            let (xf, yf) = (min(max(Int(p.x.rounded()), 0), Self.width - 1), min(max(Int(p.y.rounded()), 0), Self.height - 1))
            // A position within 1/4096 px of a half pixel may round either way.
            let nearHalf = abs(p.x - p.x.rounded(.down) - 0.5) < 1e-3 || abs(p.y - p.y.rounded(.down) - 0.5) < 1e-3
            if !nearHalf, r.planes[0][x, y] != frame[xf, yf] { wrong += 1 }
        } }
        #expect(covered > Self.width * Self.height * 8 / 10)
        #expect(wrong == 0)
    }

    @Test("bilinear reproduces a linear ramp exactly, on both warp paths")
    func bilinearRamp() {
        var ramp = Plane(width: Self.width, height: Self.height)
        for y in 0..<Self.height { for x in 0..<Self.width { ramp[x, y] = 0.002 * Float(x) + 0.003 * Float(y) + 0.1 } }
        let (dx, dy) = (2.3, -1.7)
        let fast = Warper.warp([ramp], by: .translation(dx: dx, dy: dy), width: Self.width, height: Self.height,
                               interpolation: .bilinear)
        // The same transform, scaled homogeneously, takes the per-pixel path.
        let scaled = Transform(matrix: [2, 0, 2 * dx, 0, 2, 2 * dy, 0, 0, 2])
        let general = Warper.warp([ramp], by: scaled, width: Self.width, height: Self.height, interpolation: .bilinear)
        var worstFast: Float = 0, worstGeneral: Float = 0
        for y in 4..<(Self.height - 4) { for x in 4..<(Self.width - 4) where fast.coverage[x, y] == 1 {
            // Interior only: the edge clamps taps.
            guard x - 3 >= 0, y + 2 < Self.height, x - 3 < Self.width - 1, y + 2 >= 1 else { continue }
            let truth = 0.002 * Float(Double(x) - dx) + 0.003 * Float(Double(y) - dy) + 0.1
            worstFast = max(worstFast, abs(fast.planes[0][x, y] - truth))
            worstGeneral = max(worstGeneral, abs(general.planes[0][x, y] - truth))
        } }
        #expect(worstFast < 1e-5)
        // The per-pixel path rounds positions to 1/4096 px: ≤ 0.005 · 1/8192.
        #expect(worstGeneral < 2e-6 + 1e-5)
        #expect(general.coverage == fast.coverage)
    }

    /// Variance of the warped noise over the interior, relative to the input's.
    func noiseRatio(_ interpolation: Interpolation) -> Double {
        let frame = Self.noise(seed: 3)
        let r = Warper.warp([frame], by: .translation(dx: 0.5, dy: 0.5), width: Self.width, height: Self.height,
                            interpolation: interpolation)
        func variance(_ values: [Float]) -> Double {
            let mean = values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
            return values.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(values.count)
        }
        var out: [Float] = [], input: [Float] = []
        for y in 8..<(Self.height - 8) { for x in 8..<(Self.width - 8) {
            out.append(r.planes[0][x, y]); input.append(frame[x, y])
        } }
        return variance(out) / variance(input)
    }

    @Test("a half-pixel shift keeps white noise's variance for nearest and quarters it for bilinear")
    func noiseSmoothing() {
        let ratios = Interpolation.allCases.map { ($0, noiseRatio($0)) }
        print("noise variance after a (0.5, 0.5) px warp:",
              ratios.map { "\($0.0.rawValue) \(String(format: "%.3f", $0.1))" }.joined(separator: ", "))
        let ratio = Dictionary(uniqueKeysWithValues: ratios)
        // Nearest copies samples; bilinear averages 4 with weight 1/4 each:
        // Σw² = 4 · (1/4)² = 1/4.
        // (Nearest's window holds the input's samples one pixel over, so
        // its variance is another sample's, not exactly the same number.)
        #expect(abs(ratio[.nearest]! - 1) < 0.01)
        #expect(abs(ratio[.bilinear]! - 0.25) < 0.02)
        // Cubic and Lanczos-3 smooth less than bilinear, Lanczos-3 least:
        // Σw² over the 2-D kernel at t = ½ is 0.41 (cubic), 0.62 (Lanczos-3).
        #expect(ratio[.bilinear]! < ratio[.bicubic]! && ratio[.bicubic]! < ratio[.lanczos3]!)
        #expect(ratio[.lanczos3]! < 1)
    }
}
