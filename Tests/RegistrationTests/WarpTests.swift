import Foundation
import Registration
import Testing

@Suite("Warp")
struct WarpTests {
    static let width = 200, height = 150
    static let texture = Texture(seed: 3, width: width, height: height, margin: 40)
    static let reference = texture.render(width: width, height: height)

    @Test("identity warp is an exact copy with full coverage", arguments: Interpolation.allCases)
    func identity(_ interpolation: Interpolation) {
        let r = Warper.warp([Self.reference, Self.reference], by: .identity, width: Self.width, height: Self.height,
                            interpolation: interpolation)
        #expect(r.planes == [Self.reference, Self.reference])
        #expect(r.coverage.pixels.allSatisfy { $0 == 1 })
    }

    @Test("integer translation is an exact copy; coverage 1 inside, 0 outside", arguments: Interpolation.allCases)
    func integerTranslation(_ interpolation: Interpolation) {
        // frame(x, y) = ref(x + 7, y - 4); warping the frame by the same
        // transform puts frame(x − 7, y + 4) at reference (x, y).
        let (dx, dy) = (7, -4)
        let frame = Self.texture.render(width: Self.width, height: Self.height, dx: Double(dx), dy: Double(dy))
        let r = Warper.warp([frame], by: .translation(dx: Double(dx), dy: Double(dy)),
                            width: Self.width, height: Self.height, interpolation: interpolation)
        var wrongCoverage = 0, wrongValue = 0, nonZeroOutside = 0
        for y in 0..<Self.height { for x in 0..<Self.width {
            let xf = x - dx, yf = y - dy
            let inside = xf >= 0 && xf < Self.width && yf >= 0 && yf < Self.height
            if r.coverage[x, y] != (inside ? 1 : 0) { wrongCoverage += 1 }
            if inside, r.planes[0][x, y] != frame[xf, yf] { wrongValue += 1 }
            if !inside, r.planes[0][x, y] != 0 { nonZeroOutside += 1 }
        } }
        #expect(wrongCoverage == 0 && wrongValue == 0 && nonZeroOutside == 0)
    }

    @Test("a shift a hair off a whole pixel samples that pixel (no NaN from the Lanczos formula)",
          arguments: Interpolation.allCases)
    func nearIntegerShift(_ interpolation: Interpolation) {
        // 1 − 1e-9 rounds to exactly 1 as a Float fraction, where the
        // Lanczos formula divides 0 by 0; 1e-30 underflows its square.
        for (dx, dy) in [(3 - 1e-9, -2.0), (1e-30, 5 + 1e-30)] {
            let r = Warper.warp([Self.reference], by: .translation(dx: dx, dy: dy),
                                width: Self.width, height: Self.height, interpolation: interpolation)
            let (ix, iy) = (Int(dx.rounded()), Int(dy.rounded()))
            var worst: Float = 0
            for y in 0..<Self.height { for x in 0..<Self.width where r.coverage[x, y] > 0 {
                let v = r.planes[0][x, y]
                worst = max(worst, v.isFinite ? abs(v - Self.reference[x - ix, y - iy]) : .infinity)
            } }
            #expect(worst < 1e-5, "shift (\(dx), \(dy)): worst difference \(worst)")
        }
    }

    /// Warps a frame with a known subpixel shift back with the true transform
    /// and compares to the reference over the covered interior.
    func warpBackPSNR(_ interpolation: Interpolation, dx: Double, dy: Double) -> Double {
        let frame = Self.texture.render(width: Self.width, height: Self.height, dx: dx, dy: dy)
        let r = Warper.warp([frame], by: .translation(dx: dx, dy: dy), width: Self.width, height: Self.height,
                            interpolation: interpolation)
        // Interior: covered, and ≥ 3 px from the coverage edge so no tap clamps.
        return psnr(r.planes[0], Self.reference) { x, y in
            let x0 = x - 3, x1 = x + 3, y0 = y - 3, y1 = y + 3
            guard x0 >= 0, y0 >= 0, x1 < Self.width, y1 < Self.height else { return false }
            return r.coverage[x0, y0] == 1 && r.coverage[x1, y1] == 1 && r.coverage[x0, y1] == 1 && r.coverage[x1, y0] == 1
        }
    }

    @Test("subpixel translation warped back matches the reference (PSNR ≥ 40 dB)")
    func subpixelPSNR() {
        var results: [String] = []
        // Nearest and bilinear trade accuracy for noise (see
        // WarpKernelChoiceTests); this bound is for the interpolating kernels.
        for interpolation in [Interpolation.bicubic, .lanczos3] {
            var worst = Double.infinity
            for (dx, dy) in [(0.5, 0.5), (3.25, -2.75), (-10.4, 6.1)] {
                worst = min(worst, warpBackPSNR(interpolation, dx: dx, dy: dy))
            }
            results.append("\(interpolation): worst \(String(format: "%.1f", worst)) dB")
            // 40 dB on a 0…1 scale is an RMS error of 0.01 (≈ 2.5 8-bit
            // levels); a sound interpolator on this band-limited texture
            // (σ = 1.5 px blur) must do better.
            #expect(worst >= 40, "\(interpolation) PSNR \(worst)")
        }
        print("warp PSNR:", results.joined(separator: ", "))
    }

    @Test("general (projective) path agrees with the translation fast path")
    func generalPathMatchesFastPath() {
        let frame = Self.texture.render(width: Self.width, height: Self.height, dx: 2.3, dy: -1.6)
        let fast = Warper.warp([frame], by: .translation(dx: 2.3, dy: -1.6), width: Self.width, height: Self.height)
        // The same transform scaled by 2 (homogeneous) is not "isTranslation",
        // so it takes the per-pixel path.
        let scaled = Transform(matrix: [2, 0, 4.6, 0, 2, -3.2, 0, 0, 2])
        let general = Warper.warp([frame], by: scaled, width: Self.width, height: Self.height)
        #expect(general.coverage == fast.coverage)
        let maxDiff = zip(general.planes[0].pixels, fast.planes[0].pixels).map { abs($0 - $1) }.max() ?? 1
        // Same weights up to float rounding of the sample position.
        #expect(maxDiff < 1e-4)
    }

    @Test("rotation warped back matches the analytic reference (PSNR ≥ 40 dB)")
    func rotation() {
        // Frame → reference: rotate by 2° about the centre and shift.
        let (w, h) = (120, 90)
        let a = 2.0 * Double.pi / 180, c = cos(a), s = sin(a)
        let cx = 60.0, cy = 45.0
        let t = Transform(matrix: [c, -s, cx - c * cx + s * cy + 1.5,
                                   s, c, cy - s * cx - c * cy - 0.75,
                                   0, 0, 1])
        // frame(x, y) = reference(t(x, y)), rendered analytically.
        var frame = Plane(width: w, height: h)
        for y in 0..<h { for x in 0..<w {
            let p = t.apply(x: Double(x), y: Double(y))
            frame[x, y] = Self.texture.value(x: p.x, y: p.y)
        } }
        let ref = Self.texture.render(width: w, height: h)
        let r = Warper.warp([frame], by: t, width: w, height: h, interpolation: .lanczos3)
        let quality = psnr(r.planes[0], ref) { x, y in x >= 6 && y >= 6 && x < w - 6 && y < h - 6 && r.coverage[x, y] == 1 }
        print("rotation warp PSNR (lanczos3): \(String(format: "%.1f", quality)) dB")
        #expect(quality >= 40)
        // Corners rotate out of the frame: some coverage 0, most 1.
        let covered = r.coverage.pixels.filter { $0 == 1 }.count
        #expect(covered < w * h && covered > w * h * 9 / 10)
    }

    /// A translation, a similarity and a perspective transform.
    static let bandTransforms: [Transform] = [.translation(dx: 3.37, dy: -2.81),
                                              Transform(matrix: [0.998, -0.035, 4.2, 0.035, 0.998, -3.1, 0, 0, 1]),
                                              Transform(matrix: [1.01, 0.02, -2.5, -0.015, 0.99, 1.7, 2e-5, -1e-5, 1])]

    @Test("RowWarper: any split into bands gives the rows of the whole warp, bit for bit", arguments: [0, 1, 2])
    func bandsMatchWholeWarp(_ which: Int) throws {
        let t = Self.bandTransforms[which]
        let w = Self.width, h = Self.height
        let planes = [Self.reference, Self.texture.render(width: w, height: h, dx: 1.5, dy: 0.5)]
        let whole = Warper.warp(planes, by: t, width: w, height: h)
        let rows = try #require(RowWarper(planes, by: t, width: w, height: h))
        var banded = planes.map { _ in [Float](repeating: -1, count: w * h) }
        var coverage = [Float](repeating: -1, count: w * h)
        // Uneven bands, written in reverse order.
        let cuts = [0, 1, 8, 9, 40, 97, h]
        for i in (0..<(cuts.count - 1)).reversed() {
            let band = cuts[i]..<cuts[i + 1]
            var out0 = [Float](repeating: -1, count: band.count * w), out1 = out0, cov = out0
            out0.withUnsafeMutableBufferPointer { o0 in
                out1.withUnsafeMutableBufferPointer { o1 in
                    cov.withUnsafeMutableBufferPointer { c in
                        rows.warp(rows: band, into: [o0.baseAddress!, o1.baseAddress!], coverage: c.baseAddress!)
                    }
                }
            }
            for (k, out) in [out0, out1].enumerated() {
                banded[k].replaceSubrange(band.lowerBound * w..<band.upperBound * w, with: out)
            }
            coverage.replaceSubrange(band.lowerBound * w..<band.upperBound * w, with: cov)
        }
        #expect(banded == whole.planes.map(\.pixels))
        #expect(coverage == whole.coverage.pixels)
        #expect(whole.coverage.pixels.contains(0) && whole.coverage.pixels.contains(1))
    }

    @Test("singular transform and empty input cover nothing")
    func degenerate() {
        let r = Warper.warp([Self.reference], by: Transform(matrix: [0, 0, 0, 0, 0, 0, 0, 0, 1]), width: 10, height: 5)
        #expect(r.coverage.pixels.allSatisfy { $0 == 0 } && r.planes[0].pixels.allSatisfy { $0 == 0 })
        let e = Warper.warp([], by: .identity, width: 10, height: 5)
        #expect(e.planes.isEmpty && e.coverage.pixels.allSatisfy { $0 == 0 })
    }

    @Test("registration then warp round trip")
    func registerAndWarp() throws {
        let frame = Self.texture.render(width: Self.width, height: Self.height, dx: -4.6, dy: 3.3)
        let e = try TranslationRegistrar(reference: Self.reference).estimate(frame)
        let r = Warper.warp([frame], by: e.transform, width: Self.width, height: Self.height)
        let q = psnr(r.planes[0], Self.reference) { x, y in x >= 8 && y >= 8 && x < Self.width - 8 && y < Self.height - 8 }
        // Registration error of a few thousandths of a pixel costs little: ≥ 38 dB.
        #expect(q >= 38, "PSNR \(q), estimate \(e)")
    }
}
