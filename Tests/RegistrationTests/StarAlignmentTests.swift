import Foundation
import Registration
import Testing

@Suite("Star alignment")
struct StarAlignmentTests {
    static let width = 1000, height = 800
    /// 500 catalogue stars over the frame plus an 80 px margin (so shifted
    /// and rotated frames stay full); ≈ 200 of them above SNR 20.
    static let field = StarField(seed: 7, width: width, height: height, count: 500)
    /// Fixed sensor defects: the same frame pixels in every frame.
    static let hotPixels: [(x: Int, y: Int, value: Double)] = {
        var rng = SplitMix64(seed: 99)
        return (0..<25).map { _ in (20 + Int(rng.uniform() * Double(width - 40)), 20 + Int(rng.uniform() * Double(height - 40)),
                                    5000 + 40000 * rng.uniform()) }
    }()
    static let reference = field.render(width: width, height: height, hotPixels: hotPixels, seed: 1)
    static let registrar: StarRegistrar? = try? StarRegistrar(reference: reference.plane)

    /// Reference-frame catalogue positions of the stars inside both the
    /// frame and the reference (8 px inside the edges), for checking a
    /// transform: returns the RMS distance (px) between `estimate` applied
    /// to the true frame positions and the true reference positions.
    static func positionRMS(_ estimate: Transform, frame: RenderedStarFrame) -> (rms: Double, count: Int) {
        var squares = 0.0, n = 0
        for (k, star) in field.stars.enumerated() {
            let p = frame.positions[k]
            guard inside(p.x, p.y), inside(star.x, star.y) else { continue }
            let q = estimate.apply(x: p.x, y: p.y)
            squares += (q.x - star.x) * (q.x - star.x) + (q.y - star.y) * (q.y - star.y)
            n += 1
        }
        return ((squares / Double(max(1, n))).squareRoot(), n)
    }

    static func inside(_ x: Double, _ y: Double, margin: Double = 8) -> Bool {
        x >= margin && y >= margin && x <= Double(width - 1) - margin && y <= Double(height - 1) - margin
    }

    /// Rotation (degrees) of the linear part of a transform.
    static func degrees(_ t: Transform) -> Double {
        atan2(t.matrix[3] - t.matrix[1], t.matrix[0] + t.matrix[4]) * 180 / Double.pi
    }

    /// Where the frame centre lands in the reference.
    static func centre(_ t: Transform) -> (x: Double, y: Double) {
        t.apply(x: Double(width - 1) / 2, y: Double(height - 1) / 2)
    }

    @Test("detection finds ≥ 90 % of stars above SNR 20, centroids within 0.05 px RMS above SNR 50, FWHM within 10 %")
    func detection() {
        let camera = StarCamera()
        let frame = Self.reference
        let stars = StarDetector.detect(frame.plane, options: StarDetectionOptions(maximumStars: 2000))
        var found = 0, total = 0, squares = 0.0, centroidCount = 0, fwhmOff = 0, falseCount = 0
        var fwhms: [Double] = []
        for (k, entry) in Self.field.stars.enumerated() {
            let p = frame.positions[k]
            guard Self.inside(p.x, p.y, margin: 10), camera.snr(flux: entry.flux) >= 20 else { continue }
            total += 1
            guard let s = stars.first(where: { ($0.x - p.x) * ($0.x - p.x) + ($0.y - p.y) * ($0.y - p.y) < 1.5 * 1.5 }) else { continue }
            found += 1
            if camera.snr(flux: entry.flux) >= 50 {
                squares += (s.x - p.x) * (s.x - p.x) + (s.y - p.y) * (s.y - p.y)
                centroidCount += 1
                fwhms.append(s.fwhm)
                if abs(s.fwhm / camera.fwhm - 1) > 0.1 { fwhmOff += 1 }
            }
        }
        for s in stars where !frame.positions.contains(where: { ($0.x - s.x) * ($0.x - s.x) + ($0.y - s.y) * ($0.y - s.y) < 1.5 * 1.5 }) {
            falseCount += 1
        }
        let rms = (squares / Double(max(1, centroidCount))).squareRoot()
        fwhms.sort()
        let medianFWHM = fwhms.isEmpty ? 0 : fwhms[fwhms.count / 2]
        print("star detection: \(stars.count) stars, \(found)/\(total) above SNR 20 found, centroid RMS \(String(format: "%.4f", rms)) px over \(centroidCount) above SNR 50, median FWHM \(String(format: "%.3f", medianFWHM)) (true \(camera.fwhm)), \(fwhmOff) off by > 10 %, \(falseCount) without a catalogue star")
        #expect(Double(found) >= 0.9 * Double(total))
        #expect(rms <= 0.05)
        #expect(abs(medianFWHM / camera.fwhm - 1) <= 0.1)
        #expect(fwhmOff <= centroidCount / 10)
    }
}
