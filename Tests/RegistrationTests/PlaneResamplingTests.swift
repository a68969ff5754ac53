import Registration
import Testing

@Suite("Plane resampling")
struct PlaneResamplingTests {
    @Test("downsampled(by:) box-averages and drops the ragged margin")
    func downsample() {
        let p = Plane(width: 5, height: 4, pixels: (0..<20).map(Float.init))
        let d = p.downsampled(by: 2)
        #expect(d.width == 2 && d.height == 2)
        // Block (0…1, 0…1) holds 0, 1, 5, 6 → 3; exact in binary floats.
        #expect(d.pixels == [3, 5, 13, 15])
        #expect(p.downsampled(by: 1) == p)
    }

    @Test("cropped(...) clamps outside samples to the edge")
    func crop() {
        let p = Plane(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6])
        #expect(p.cropped(x: -1, y: 1, width: 5, height: 2).pixels == [4, 4, 5, 6, 6, 4, 4, 5, 6, 6])
        #expect(p.mean == 3.5)
    }
}
