import Testing
import Registration
@testable import Stacker
import TestSupport

@Suite("Image luma")
struct ImageLumaTests {
    @Test("luma and luma(downsampledBy:) give the Rec. 601 luma and its downsampled(by:), bit for bit, colour and gray")
    func lumaWithSearchPlane() {
        var rng = TestRandom(seed: 9)
        for (w, h, f) in [(41, 33, 4), (64, 48, 8), (17, 11, 1)] {
            let planes = (0..<3).map { _ in
                Plane(width: w, height: h, pixels: (0..<(w * h)).map { _ in Float(rng.uniform()) })
            }
            for image in [Image(width: w, height: h, planes: planes), Image(width: w, height: h, planes: [planes[0]])] {
                let made = image.luma(downsampledBy: f)
                // Rec. 601 weights per pixel; a gray image is its own luma.
                let expected = image.channels == 3
                    ? Plane(width: w, height: h, pixels: (0..<(w * h)).map {
                        0.299 * planes[0].pixels[$0] + 0.587 * planes[1].pixels[$0] + 0.114 * planes[2].pixels[$0]
                    })
                    : planes[0]
                #expect(made.luma == expected)
                #expect(image.luma == expected)
                #expect(made.small == expected.downsampled(by: f))
            }
        }
    }
}
