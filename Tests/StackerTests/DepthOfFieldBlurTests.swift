import Testing
import Registration
import TestSupport
@testable import Stacker

/// The fused depth-of-field blur (all lanes through each pass, the blend in
/// the column pass) against the plain formulation it replaces: one
/// `BoxFilter.variableMean` for the weight and one per weighted channel,
/// their ratio, then the blend.
@Suite("Depth-of-field blur")
struct DepthOfFieldBlurTests {
    /// A random photo of `channels` planes, a mask with a solid block (where
    /// no weight falls in small windows), soft values and zeros, and radii
    /// 0…6, over more than two column strips and two row bands.
    static func inputs(channels: Int, seed: UInt64) -> (Image, Plane, Plane) {
        var random = TestRandom(seed: seed)
        let w = DepthOfFieldBlur.strip * 2 + 11, h = DepthOfFieldBlur.bandRows + 37
        let planes = (0..<channels).map { _ in
            Plane(width: w, height: h, pixels: (0..<(w * h)).map { _ in Float.random(in: 0...1, using: &random) })
        }
        let mask = Plane(width: w, height: h, pixels: (0..<(w * h)).map { i in
            let x = i % w, y = i / w
            if (10..<30).contains(x) && (5..<18).contains(y) { return 1 }
            return Bool.random(using: &random) ? 0 : Float.random(in: 0...1, using: &random)
        })
        let radius = Plane(width: w, height: h, pixels: (0..<(w * h)).map { _ in Float.random(in: 0...6.4, using: &random) })
        return (Image(width: w, height: h, planes: planes), mask, radius)
    }

    /// The reference: box means of the weight and of each weighted channel, their ratio.
    static func reference(_ image: Image, mask: Plane, radius: Plane) -> Image {
        let weight = Plane(width: image.width, height: image.height, pixels: mask.pixels.map { 1 - $0 })
        let weightMean = BoxFilter.variableMean(weight, radius: radius)
        let planes = image.planes.map { plane in
            let weighted = Plane(width: plane.width, height: plane.height,
                                 pixels: zip(plane.pixels, weight.pixels).map { Float(Double($0) * Double($1)) })
            let mean = BoxFilter.variableMean(weighted, radius: radius)
            return Plane(width: plane.width, height: plane.height, pixels: plane.pixels.indices.map { i in
                let w = weightMean.pixels[i]
                return w > 1e-4 ? min(1, max(0, mean.pixels[i] / w)) : plane.pixels[i]
            })
        }
        return Image(width: image.width, height: image.height, planes: planes)
    }

    @Test("the fused blur matches the per-plane box means and their ratio, for 1 and 3 channels", arguments: [1, 3])
    func matchesReference(channels: Int) {
        let (image, mask, radius) = Self.inputs(channels: channels, seed: 2900 + UInt64(channels))
        let fused = DepthOfFieldBlur.blurred(image, radius: radius, subject: mask)
        let expected = Self.reference(image, mask: mask, radius: radius)
        var worst: Float = 0, kept = 0
        for c in 0..<channels {
            for i in image.planes[c].pixels.indices {
                worst = max(worst, abs(fused.planes[c].pixels[i] - expected.planes[c].pixels[i]))
                if expected.planes[c].pixels[i] == image.planes[c].pixels[i] && mask.pixels[i] == 1 { kept += 1 }
            }
        }
        #expect(worst < 1e-5, "worst \(worst)")
        #expect(kept > 0, "the solid block should leave some windows without weight")
    }

    @Test("the composited blur is mask · photo + (1 − mask) · blur, and the photo exactly where the mask is 1")
    func compositedBlends() {
        let (image, mask, radius) = Self.inputs(channels: 3, seed: 2910)
        let blurred = DepthOfFieldBlur.blurred(image, radius: radius, subject: mask)
        let out = DepthOfFieldBlur.composited(image, radius: radius, subject: mask)
        var worst: Float = 0, exact = true
        for c in 0..<3 {
            for i in mask.pixels.indices {
                let m = mask.pixels[i], v = image.planes[c].pixels[i]
                if m >= 1 { exact = exact && out.planes[c].pixels[i] == v; continue }
                worst = max(worst, abs(out.planes[c].pixels[i] - (m * v + (1 - m) * blurred.planes[c].pixels[i])))
            }
        }
        #expect(exact)
        #expect(worst < 1e-6, "worst \(worst)")
    }
}
