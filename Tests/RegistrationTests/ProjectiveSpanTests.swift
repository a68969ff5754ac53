import Testing
@testable import Registration

/// The general warp's stepped spans for projective transforms
/// (`ProjectiveSpan`) against dividing per pixel.
@Suite("Projective spans")
struct ProjectiveSpanTests {
    /// Handheld-like homographies (frame → reference) for a `width × height`
    /// frame: its corners moved by up to `jitter` px, seeded.
    static func homographies(width: Int, height: Int, jitter: Double, count: Int) -> [Transform] {
        var state: UInt64 = 0x5DEE_CE66_D1CE_4E5B
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
        let w = Double(width - 1), h = Double(height - 1)
        return (0..<count).compactMap { _ in
            let corners = [(0.0, 0.0), (w, 0), (w, h), (0, h)]
            return Transform.fromCorrespondences(corners.map { c in
                (from: c, to: (c.0 + jitter * next(), c.1 + jitter * next()))
            })
        }
    }

    @Test("every stepped position lies within 1/8192 px of the exact one, and near-identity rows are stepped")
    func steppedPositionsAreExactEnough() throws {
        // A 12 MP frame's geometry: the spans see its real curvature.
        let width = 4000, height = 3000
        let one = GeneralWarp.one
        let low = Int64((-Warper.edgeEpsilon * one).rounded(.down))
        let highX = Int64(((Double(width - 1) + Warper.edgeEpsilon) * one).rounded(.down))
        let highY = Int64(((Double(height - 1) + Warper.edgeEpsilon) * one).rounded(.down))
        var worst = 0.0, spans = 0, stepped = 0
        for t in Self.homographies(width: width, height: height, jitter: 12, count: 6) {
            let m = try #require(t.inverse).matrix
            let matrix = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
            for row in stride(from: 0, to: height, by: 97) {
                let y = Double(row)
                for first in stride(from: 0, to: width - 1, by: ProjectiveSpan.length) {
                    let last = min(first + ProjectiveSpan.length, width) - 1
                    spans += 1
                    guard var span = ProjectiveSpan(matrix, row: y, first: first, last: last, one: one,
                                                    low: low, highX: highX, highY: highY) else { continue }
                    stepped += 1
                    for x in first...last {
                        let (X, Y) = span.next()
                        let px = Double(x), w = m[6] * px + m[7] * y + m[8]
                        let ex = (m[0] * px + m[1] * y + m[2]) / w, ey = (m[3] * px + m[4] * y + m[5]) / w
                        worst = max(worst, abs(Double(X) / one - ex), abs(Double(Y) / one - ey))
                    }
                }
            }
        }
        print("ProjectiveSpan: worst stepped position error \(worst) px; \(stepped) of \(spans) spans stepped")
        #expect(worst <= ProjectiveSpan.tolerance, "worst error \(worst) px")
        // Spans at the frame's edges fall back (an end point outside it);
        // the interior is stepped.
        #expect(Double(stepped) >= 0.95 * Double(spans), "\(stepped) of \(spans) spans stepped")
    }

    @Test("warping through spans gives the per-pixel warp's coverage exactly and its samples within 1e-3")
    func spansMatchThePerPixelWarp() throws {
        let plane = ByteWarpTests.bytes(width: 200, height: 150, seed: 26)
        // Corners moved by 0.05 px bend a 200 px row about as ±12 px bend a 12 MP
        // frame's, so most of its spans are stepped (counted below).
        for t in Self.homographies(width: 200, height: 150, jitter: 0.05, count: 3) {
            let m = try #require(t.inverse).matrix
            let matrix = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
            let one = GeneralWarp.one
            var stepped = 0, spans = 0
            for row in 0..<150 {
                for first in stride(from: 0, to: 199, by: ProjectiveSpan.length) {
                    spans += 1
                    if ProjectiveSpan(matrix, row: Double(row), first: first,
                                      last: min(first + ProjectiveSpan.length, 200) - 1, one: one,
                                      low: Int64((-Warper.edgeEpsilon * one).rounded(.down)),
                                      highX: Int64(((199 + Warper.edgeEpsilon) * one).rounded(.down)),
                                      highY: Int64(((149 + Warper.edgeEpsilon) * one).rounded(.down))) != nil {
                        stepped += 1
                    }
                }
            }
            #expect(Double(stepped) >= 0.5 * Double(spans), "\(stepped) of \(spans) spans stepped; \(m)")
            let warper = try #require(RowWarper([plane], by: t, width: 200, height: 150))
            // Positions divided per pixel (a field, even the zero one, is stepped too).
            let a = ByteWarpTests.warpAll(warper)
            let b = try #require(PerPixelWarp.warp(plane.floats, by: t, width: 200, height: 150))
            #expect(a.coverage == b.coverage)
            #expect(a.coverage.contains(0) && a.coverage.contains(1), "the test covers edges and interior")
            let worst = zip(a.planes[0], b.samples).map { abs($0 - $1) }.max() ?? 0
            print("ProjectiveSpan: worst sample difference against per pixel \(worst); \(stepped) of \(spans) spans stepped")
            #expect(worst <= 1e-3, "worst difference \(worst)")
        }
    }
}
