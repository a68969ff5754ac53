import Testing
@testable import Registration

/// Warping 8-bit planes directly (`RowWarper` over `BytePlane`s) against
/// warping their float planes.
@Suite("Warping 8-bit planes")
struct ByteWarpTests {
    /// A `width × height` plane of pseudo-random bytes with some structure.
    static func bytes(width: Int, height: Int, seed: Int) -> BytePlane {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        let samples = (0..<(width * height)).map { i -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let smooth = (i % width) * 255 / width / 2 + (i / width) * 255 / height / 2
            return UInt8(truncatingIfNeeded: smooth / 2 + Int(state >> 58) * 2)
        }
        return BytePlane(width: width, height: height, pixels: samples)
    }

    /// Rows `0..<height` of `warper`, each plane as an array.
    static func warpAll(_ warper: RowWarper) -> (planes: [[Float]], coverage: [Float]) {
        let n = warper.width * warper.height
        var planes = [[Float]](repeating: [Float](repeating: 0, count: n), count: warper.channels)
        var coverage = [Float](repeating: 0, count: n)
        let outs = (0..<warper.channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: n) }
        defer { outs.forEach { $0.deallocate() } }
        coverage.withUnsafeMutableBufferPointer { c in
            warper.warp(rows: 0..<warper.height, into: outs, coverage: c.baseAddress!)
        }
        for (i, o) in outs.enumerated() { planes[i] = Array(UnsafeBufferPointer(start: o, count: n)) }
        return (planes, coverage)
    }

    @Test("translations: the same samples as the float planes to float rounding, integer shifts exactly",
          arguments: [(2.0, -3.0), (0.37, 1.61), (-4.5, 0.25), (0, 0)])
    func translation(_ shift: (Double, Double)) throws {
        let planes = [Self.bytes(width: 37, height: 23, seed: 1), Self.bytes(width: 37, height: 23, seed: 2)]
        let t = Transform.translation(dx: shift.0, dy: shift.1)
        for interpolation in Interpolation.allCases {
            let fromBytes = try #require(RowWarper(planes, by: t, width: 37, height: 23, interpolation: interpolation))
            let fromFloats = try #require(RowWarper(planes.map(\.floats), by: t, width: 37, height: 23,
                                                    interpolation: interpolation))
            let a = Self.warpAll(fromBytes), b = Self.warpAll(fromFloats)
            #expect(a.coverage == b.coverage)
            let worst = zip(a.planes.joined(), b.planes.joined()).map { abs($0 - $1) }.max() ?? 0
            if shift.0.rounded() == shift.0 && shift.1.rounded() == shift.1 {
                #expect(a.planes == b.planes, "integer shift \(shift): exact copies")
            } else {
                #expect(worst <= 2e-6, "\(shift) \(interpolation): worst difference \(worst)")
            }
        }
    }

    @Test("other transforms read the bytes too: one byte held per sample, the float planes' samples to float rounding",
          arguments: [[0.98, 0.03, 1.5, -0.02, 1.01, -0.7, 0, 0, 1],
                      [1.01, 0.02, -2.2, -0.01, 0.99, 1.3, 2e-4, -1e-4, 1]])
    func general(_ matrix: [Double]) throws {
        let planes = [Self.bytes(width: 31, height: 29, seed: 3), Self.bytes(width: 31, height: 29, seed: 4)]
        let t = Transform(matrix: matrix)
        for interpolation in Interpolation.allCases {
            let fromBytes = try #require(RowWarper(planes, by: t, width: 31, height: 29, interpolation: interpolation))
            let fromFloats = try #require(RowWarper(planes.map(\.floats), by: t, width: 31, height: 29,
                                                    interpolation: interpolation))
            #expect(fromBytes.readsBytes && fromBytes.heldBytes == 2 * 31 * 29)
            let a = Self.warpAll(fromBytes), b = Self.warpAll(fromFloats)
            #expect(a.coverage == b.coverage)
            #expect(a.coverage.contains(0) && a.coverage.contains(1), "the test covers edges and interior")
            let worst = zip(a.planes.joined(), b.planes.joined()).map { abs($0 - $1) }.max() ?? 0
            if interpolation == .nearest {
                #expect(a.planes == b.planes, "nearest copies samples")
            } else {
                #expect(worst <= 2e-6, "\(interpolation): worst difference \(worst)")
            }
        }
    }
}
