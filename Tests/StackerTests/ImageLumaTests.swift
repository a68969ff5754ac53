import Testing
import Registration
@testable import Stacker

@Suite("Image luma")
struct ImageLumaTests {
    @Test("luma(downsampledBy:) equals luma and luma.downsampled(by:), bit for bit, colour and gray")
    func lumaWithSearchPlane() {
        var rng = KernelRNG(seed: 9)
        for (w, h, f) in [(41, 33, 4), (64, 48, 8), (17, 11, 1)] {
            let planes = (0..<3).map { _ in
                Plane(width: w, height: h, pixels: (0..<(w * h)).map { _ in Float(rng.uniform()) })
            }
            for image in [Image(width: w, height: h, planes: planes), Image(width: w, height: h, planes: [planes[0]])] {
                let made = image.luma(downsampledBy: f)
                #expect(made.luma == image.luma)
                #expect(made.small == image.luma.downsampled(by: f))
            }
        }
    }
}
