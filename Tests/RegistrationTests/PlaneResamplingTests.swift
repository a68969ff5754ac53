import Foundation
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

    @Test("producing(width:height:downsampledBy:rows:) gives the plane and downsampled(by:) of it, bit for bit")
    func producingWhileDownsampling() {
        for (w, h, f) in [(37, 29, 4), (64, 48, 8), (13, 9, 1), (10, 7, 3), (5, 4, 8), (500, 375, 8)] {
            func value(_ x: Int, _ y: Int) -> Float { Float(sin(Double(x * 7 + y * 13))) * 0.5 + 0.5 }
            var calls: [Range<Int>] = []
            let made = Plane.producing(width: w, height: h, downsampledBy: f) { rows, out in
                calls.append(rows)
                for (k, y) in rows.enumerated() {
                    for x in 0..<w { out[k * w + x] = value(x, y) }
                }
            }
            let expected = Plane(width: w, height: h, pixels: (0..<(w * h)).map { value($0 % w, $0 / w) })
            #expect(made.full == expected, "\(w)×\(h) by \(f)")
            #expect(made.small == expected.downsampled(by: f), "\(w)×\(h) by \(f)")
            // Every row produced exactly once, in order.
            #expect(calls.flatMap { Array($0) } == Array(0..<h))
        }
    }

    @Test("the translation estimate with the caller's downsampled plane equals the one it makes itself")
    func estimateWithGivenSearchPlane() throws {
        let w = 640, h = 480
        let reference = Texture(seed: 8, width: w, height: h).render(width: w, height: h)
        let frame = Texture(seed: 8, width: w, height: h).render(width: w, height: h, dx: 3.3, dy: -1.7)
        let registrar = try TranslationRegistrar(reference: reference)
        #expect(registrar.searchFactor == 2)
        let own = try registrar.estimate(frame)
        let given = try registrar.estimate(frame, downsampled: frame.downsampled(by: registrar.searchFactor))
        #expect(own.dx == given.dx && own.dy == given.dy && own.score == given.score)
        // A plane of the wrong size is ignored, not trusted.
        let wrong = try registrar.estimate(frame, downsampled: Plane(width: 10, height: 10))
        #expect(wrong.dx == own.dx && wrong.dy == own.dy)
    }

    @Test("cropped(...) clamps outside samples to the edge")
    func crop() {
        let p = Plane(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6])
        #expect(p.cropped(x: -1, y: 1, width: 5, height: 2).pixels == [4, 4, 5, 6, 6, 4, 4, 5, 6, 6])
        #expect(p.mean == 3.5)
    }
}
