import Testing
import Registration
@testable import Stacker
import TestSupport
import SceneGen

/// `--debayer ahd` (`AHDDebayer`) on sharp edges, beside bilinear and RCD
/// on the same mosaics, and its Lab curve (`DebayerTests` has the rest).
@Suite("AHD debayer")
struct AHDDebayerTests {
    /// A grey disc (0.8 on 0.2) with a sharp, area-sampled edge, which
    /// crosses every direction, so its truth has no colour at all.
    static func disc(width w: Int, height h: Int, radius: Double) -> Image {
        let cx = Double(w) / 2 + 0.3, cy = Double(h) / 2 - 0.2
        let grey = (0..<(w * h)).map { i -> Float in
            var inside = 0
            for sy in 0..<4 {
                for sx in 0..<4 {
                    let x = Double(i % w) - 0.375 + 0.25 * Double(sx) - cx
                    let y = Double(i / w) - 0.375 + 0.25 * Double(sy) - cy
                    if x * x + y * y < radius * radius { inside += 1 }
                }
            }
            return Float(0.2 + 0.6 * Double(inside) / 16)
        }
        return Image(width: w, height: h, planes: (0..<3).map { _ in Plane(width: w, height: h, pixels: grey) })
    }

    /// The root mean square of R − G and B − G over the pixels at least
    /// `border` from the edge: the false colour of a debayered grey scene.
    static func falseColour(_ image: Image, border: Int) -> Double {
        let w = image.width, h = image.height
        var sum = 0.0, count = 0
        for y in border..<(h - border) {
            for x in border..<(w - border) {
                let i = y * w + x
                let g = Double(image.planes[1].pixels[i])
                let dr = Double(image.planes[0].pixels[i]) - g, db = Double(image.planes[2].pixels[i]) - g
                sum += dr * dr + db * db
                count += 2
            }
        }
        return (sum / Double(count)).squareRoot()
    }

    @Test("a sharp grey edge in every direction gets less false colour and error than bilinear, for every pattern")
    func sharpEdge() {
        let truth = Self.disc(width: 64, height: 64, radius: 20)
        for pattern in BayerPattern.allCases {
            let m = DebayerTests.mosaic(truth, pattern)
            let ahd = Debayer.image(m, pattern: pattern, method: .ahd)
            let bilinear = Debayer.image(m, pattern: pattern, method: .bilinear)
            let rcd = Debayer.image(m, pattern: pattern, method: .rcd)
            let fAHD = Self.falseColour(ahd, border: 5), fBilinear = Self.falseColour(bilinear, border: 5)
            let pAHD = ImageMetrics.psnr(ahd, truth, border: 5), pBilinear = ImageMetrics.psnr(bilinear, truth, border: 5)
            print("edge \(pattern): false colour AHD \(fAHD), RCD \(Self.falseColour(rcd, border: 5)), bilinear \(fBilinear); "
                  + "PSNR AHD \(pAHD) dB, RCD \(ImageMetrics.psnr(rcd, truth, border: 5)) dB, bilinear \(pBilinear) dB")
            #expect(fAHD < 0.5 * fBilinear, "\(pattern): false colour AHD \(fAHD), bilinear \(fBilinear)")
            #expect(pAHD > pBilinear + 3, "\(pattern): AHD \(pAHD) dB, bilinear \(pBilinear) dB")
        }
    }

    /// ∛x for x > 0, by Newton's iteration in double precision.
    static func cubeRoot(_ x: Double) -> Double {
        var y = max(x, 1)
        for _ in 0..<100 { y = (2 * y + x / (y * y)) / 3 }
        return y
    }

    @Test("the Lab curve's fast cube root is within 3e-5 of the true one, and linear below 0.008856")
    func labCurve() {
        var worst: Float = 0
        var t: Float = 0.0089
        while t < 64 {
            let lanes = SIMD8<Float>((0..<8).map { t * (1 + Float($0) * 0.01) })
            let f: SIMD8<Float> = AHDRowKernels.labCurve(lanes)
            for k in 0..<8 { worst = max(worst, Float(abs(Double(f[k]) / Self.cubeRoot(Double(lanes[k])) - 1))) }
            t *= 1.09
        }
        print("labCurve: worst relative error \(worst)")
        #expect(worst < 3e-5, "\(worst)")
        let low: SIMD2<Float> = AHDRowKernels.labCurve(SIMD2<Float>(0.004, -1))
        #expect(abs(low[0] - (7.787 * 0.004 + 16 / 116)) < 1e-6 && abs(low[1] - 16 / 116) < 1e-6, "\(low)")
    }
}
