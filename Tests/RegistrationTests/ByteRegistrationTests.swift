import Testing
@testable import Registration
import TestSupport

/// Registering a frame's luma as 8-bit samples (`BytePlane`, a JPEG's Y)
/// against registering its float plane.
@Suite("Registering 8-bit planes")
struct ByteRegistrationTests {
    /// `plane` (already on 8-bit steps) as bytes.
    static func bytes(_ plane: Plane) -> BytePlane {
        BytePlane(width: plane.width, height: plane.height,
                  pixels: plane.pixels.map { UInt8((min(1, max(0, $0)) * 255).rounded()) })
    }

    @Test("street-like frames: the same shift as the float plane within 0.001 px, and within 0.08 px of the truth")
    func sameShiftAsFloats() throws {
        let (w, h) = (320, 240)
        let scene = BlockScene(seed: 51, width: w, height: h, blocks: 60, margin: 14)
        func shot(_ dx: Double, _ dy: Double, _ i: UInt64) -> BytePlane {
            Self.bytes(scene.render(width: w, height: h, dx: dx, dy: dy)
                .pastingObjects(coverage: 0.15, maxSide: 80, seed: 150 &+ i)
                .addingNoise(sigma: 0.01, seed: 250 &+ i)
                .quantised8())
        }
        let registrar = try TranslationRegistrar(reference: shot(0, 0, 0).floats)
        var rng = TestRandom(seed: 351)
        for i in 1...6 {
            let dx = (rng.uniform() * 2 - 1) * 6, dy = (rng.uniform() * 2 - 1) * 6
            let frame = shot(dx, dy, UInt64(i))
            let fromBytes = try registrar.estimate(frame)
            let fromFloats = try registrar.estimate(frame.floats)
            let small = frame.downsampled(by: registrar.searchFactor)
            let withSmall = try registrar.estimate(frame, downsampled: small)
            #expect(fromBytes.isAccepted && fromFloats.isAccepted)
            #expect(abs(fromBytes.dx - fromFloats.dx) <= 1e-3 && abs(fromBytes.dy - fromFloats.dy) <= 1e-3,
                    "frame \(i): bytes (\(fromBytes.dx), \(fromBytes.dy)), floats (\(fromFloats.dx), \(fromFloats.dy))")
            #expect(withSmall.dx == fromBytes.dx && withSmall.dy == fromBytes.dy)
            #expect(abs(fromBytes.dx - dx) <= 0.08 && abs(fromBytes.dy - dy) <= 0.08,
                    "frame \(i): (\(fromBytes.dx), \(fromBytes.dy)) for (\(dx), \(dy))")
        }
    }

    @Test("downsampled and cropped bytes give the float plane's values to float rounding",
          arguments: [1, 2, 3, 4, 8])
    func resampling(_ factor: Int) {
        let plane = ByteWarpTests.bytes(width: 53, height: 29, seed: 7)
        let floats = plane.floats
        let small = plane.downsampled(by: factor), expected = floats.downsampled(by: factor)
        #expect(small.width == expected.width && small.height == expected.height)
        for (a, b) in zip(small.pixels, expected.pixels) { #expect(abs(a - b) <= 1e-6) }
        // Generic over the sample type: a float plane gives its own downsampled copy, bit for bit.
        func generic<P: SamplePlane>(_ p: P) -> Plane { p.shrunk(by: factor) }
        #expect(generic(floats) == expected)
        let crop = plane.cropped(x: -2, y: 3, width: 11, height: 7), floatCrop = floats.cropped(x: -2, y: 3, width: 11, height: 7)
        for (a, b) in zip(crop.pixels, floatCrop.pixels) { #expect(abs(a - b) <= 1e-6) }
    }
}
