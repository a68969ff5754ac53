import Testing
@testable import Registration

/// The warp through a displacement field stepped over spans
/// (`FieldRow.projectiveMap`), and `TilePatch`'s lane loops,
/// against their per-pixel and scalar definitions.
@Suite("Field spans and tile loops")
struct FieldSpanTests {
    /// A seeded generator of uniform numbers in −1…1.
    struct Uniform {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
    }

    /// A field on 16 px tiles of a `width` × `height` grid, as `TileAligner`
    /// lays them out, with displacements up to ±`reach` px.
    static func field(width: Int, height: Int, reach: Double, seed: UInt64) -> DisplacementField {
        var field = DisplacementField(columns: width / 16, rows: height / 16, spacing: 16, originX: 7.5, originY: 7.5)
        var u = Uniform(state: seed)
        for i in field.dx.indices {
            field.dx[i] = Float(reach * u.next())
            field.dy[i] = Float(reach * u.next())
        }
        return field
    }

    @Test("a span's projective map is the field and the transform composed at every column, and spans stop where the field bends")
    func projectiveMapComposes() throws {
        let t = try #require(ProjectiveSpanTests.homographies(width: 400, height: 300, jitter: 12, count: 1).first)
        let m = try #require(t.inverse).matrix
        let matrix = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let full = Self.field(width: 400, height: 300, reach: 3, seed: 3)
        var worst = 0.0, pieces = 0, whole = 0
        // The luma's field and the chroma's of a 4:2:0 frame.
        for (field, width, height) in [(full, 400, 300), (full.shrunk(by: 2), 200, 150)] {
            for row in stride(from: 0, to: height, by: 7) {
                let y = Double(row), fieldRow = field.row(y)
                var x = 0
                while x < width {
                    let limit = min(x + ProjectiveSpan.length, width)
                    let (q, end) = fieldRow.projectiveMap(matrix, row: y, from: x, limit: limit)
                    #expect(end > x && end <= limit)
                    pieces += 1
                    if end == limit { whole += 1 }
                    for c in x..<end {
                        let d = field.displacement(x: Double(c), y: y)
                        let px = Double(c) + d.dx, py = y + d.dy
                        let w = m[6] * px + m[7] * py + m[8]
                        let ex = (m[0] * px + m[1] * py + m[2]) / w, ey = (m[3] * px + m[4] * py + m[5]) / w
                        let cx = Double(c), v = q.6 * cx + q.7 * y + q.8
                        let gx = (q.0 * cx + q.1 * y + q.2) / v, gy = (q.3 * cx + q.4 * y + q.5) / v
                        worst = max(worst, abs(gx - ex), abs(gy - ey))
                    }
                    x = end
                }
            }
        }
        print("projectiveMap: worst position error \(worst) px; \(whole) of \(pieces) pieces a whole span")
        #expect(worst < 1e-9, "worst error \(worst) px")
        // Luma spans of 8 start on the tile grid (centres at 7.5 + 16k) and never
        // bend; the chroma's (centres at 3.5 + 8k) are cut in two.
        #expect(Double(whole) >= 0.45 * Double(pieces), "\(whole) of \(pieces)")
    }

    @Test("warping through a field in spans gives the per-pixel warp's coverage and its samples within 1e-3", arguments: [
        Interpolation.lanczos3, .bilinear,
    ])
    func fieldWarpMatchesPerPixel(_ interpolation: Interpolation) throws {
        let plane = ByteWarpTests.bytes(width: 200, height: 150, seed: 27)
        let t = try #require(ProjectiveSpanTests.homographies(width: 200, height: 150, jitter: 0.05, count: 1).first)
        // Up to ±2 px between neighbouring tiles: steeper than parallax in a handheld burst.
        let field = Self.field(width: 200, height: 150, reach: 1, seed: 9)
        let warper = try #require(RowWarper([plane], by: t, field: field, width: 200, height: 150,
                                            interpolation: interpolation))
        let spans = ByteWarpTests.warpAll(warper)
        let exact = try #require(PerPixelWarp.warp(plane.floats, by: t, field: field, width: 200, height: 150,
                                                   interpolation: interpolation))
        #expect(spans.coverage == exact.coverage)
        #expect(spans.coverage.contains(0) && spans.coverage.contains(1), "the test covers edges and interior")
        let worst = zip(spans.planes[0], exact.samples).map { abs($0 - $1) }.max() ?? 0
        print("field spans, \(interpolation): worst sample difference against per pixel \(worst)")
        #expect(worst <= 1e-3, "worst difference \(worst)")
    }

    @Test("the tile selection returns the value a full sort puts at the rank, duplicates and all")
    func selection() {
        var u = Uniform(state: 41)
        for count in [1, 2, 3, 7, 64, 225, 256] {
            // Magnitudes on a coarse grid, so many repeat (zeros too), and a few fine ones.
            let values = (0..<count).map { i in i % 5 == 0 ? Float(abs(u.next())) : Float(abs((u.next() * 8).rounded())) / 8 }
            let sorted = values.sorted()
            for rank in Set([0, count / 2, count - 1]) {
                var copy = values
                let picked = copy.withUnsafeMutableBufferPointer { MagnitudeSelection.select($0.baseAddress!, count: count, rank: rank) }
                #expect(picked == sorted[rank], "count \(count), rank \(rank)")
                // With 8 mantissa bits: the rank's value rounded down to them.
                let rounded = copy.withUnsafeMutableBufferPointer {
                    MagnitudeSelection.select($0.baseAddress!, count: count, rank: rank, mantissaBits: 8)
                }
                let truncated = Float(bitPattern: sorted[rank].bitPattern & ~UInt32((1 << 15) - 1))
                #expect(rounded == truncated, "count \(count), rank \(rank): \(rounded) against \(truncated)")
                #expect(rounded <= sorted[rank] && rounded >= sorted[rank] * (1 - 1.0 / 256))
            }
        }
    }

    @Test("the near-top selection returns the value a full sort puts at the rank: sampled bounds that hold, miss, and tie")
    func selectionNearTop() {
        var u = Uniform(state: 43)
        var scratch = [Float]()
        for count in [5000, 62_500, 100_003] {
            // Smooth magnitudes with a few strong ones; the same on a coarse
            // grid (ties at the rank); and the strongest exactly where the
            // strided sample looks, so its bound sits above the wanted value
            // when more than 1024 are wanted (every value is then searched).
            let step = count / MagnitudeSelection.sampleSize
            let kinds: [[Float]] = [
                (0..<count).map { _ in Float(abs(u.next())) * (abs(u.next()) > 0.995 ? 10 : 1) },
                (0..<count).map { _ in Float((abs(u.next()) * 16).rounded()) / 16 },
                (0..<count).map { i in i % step == 0 ? 10 : (i % 97 == 0 ? 2 + Float(abs(u.next())) : Float(abs(u.next())) * 0.1) },
            ]
            for (kind, values) in kinds.enumerated() {
                let sorted = values.sorted()
                for quota in [1, 17, 85, count / 200, count / 64] {
                    let rank = count - quota
                    let picked = values.withUnsafeBufferPointer {
                        MagnitudeSelection.selectNearTop($0.baseAddress!, count: count, rank: rank, scratch: &scratch)
                    }
                    #expect(picked == sorted[rank], "count \(count), kind \(kind), quota \(quota)")
                }
            }
        }
    }

    @Test("tile costs and deviations in lanes agree with scalar sums in Double to 1e-5")
    func laneSums() {
        let width = 61, height = 47
        var u = Uniform(state: 5)
        let reference = (0..<(width * height)).map { _ in Float(0.5 + 0.4 * u.next()) }
        let frame = (0..<(width * height)).map { _ in Float(0.5 + 0.4 * u.next()) }
        var worst = 0.0
        withUnsafeTemporaryAllocation(of: Float.self, capacity: TilePatch.scratchCount(size: 16)) { scratch in
            reference.withUnsafeBufferPointer { r in
                frame.withUnsafeBufferPointer { f in
                    let patch = TilePatch(reference: r.baseAddress!, frame: f.baseAddress!, width: width,
                                          height: height, size: 16, scratch: scratch.baseAddress!)
                    // Whole tiles, tiles cut by the frame's edge, and displaced ones.
                    for (x0, y0, dx, dy) in [(0, 0, 0, 0), (16, 16, 3, -2), (48, 32, -1, 1), (45, 31, 2, 2), (16, 0, -5, 4)] {
                        for squared in [false, true] {
                            let xs = max(x0, -dx), xe = min(x0 + 16, width - dx, width)
                            let ys = max(y0, -dy), ye = min(y0 + 16, height - dy, height)
                            var total = 0.0
                            for y in ys..<ye {
                                for x in xs..<xe {
                                    let d = Double(frame[(y + dy) * width + x + dx]) - Double(reference[y * width + x])
                                    total += squared ? d * d : abs(d)
                                }
                            }
                            let expected = total / Double((xe - xs) * (ye - ys))
                            let cost = Double(patch.cost(x0: x0, y0: y0, dx: dx, dy: dy, squared: squared))
                            worst = max(worst, abs(cost - expected) / expected)
                        }
                        let tile = (y0..<min(height, y0 + 16)).flatMap { y in
                            (x0..<min(width, x0 + 16)).map { Double(reference[y * width + $0]) }
                        }
                        let mean = tile.reduce(0, +) / Double(tile.count)
                        let sd = (tile.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(tile.count)).squareRoot()
                        worst = max(worst, abs(patch.deviation(x0: x0, y0: y0) - sd) / sd)
                    }
                }
            }
        }
        print("tile lanes: worst relative difference against Double sums \(worst)")
        #expect(worst < 1e-5, "worst relative difference \(worst)")
    }
}
