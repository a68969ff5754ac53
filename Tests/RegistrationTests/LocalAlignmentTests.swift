import Foundation
import Testing
import TestSupport
@testable import Registration

/// `TileAligner` and the warp through its `DisplacementField` on a parallax
/// pair: a far plane moved by the global transform and a near band (rows
/// `band`) moved further, with noise. Truth is the reference view.
@Suite("Local alignment")
struct LocalAlignmentTests {
    static let width = 256, height = 192
    /// Rows of the near band in the reference.
    static let band = 48..<144
    /// The far plane's shift (the global transform) and the band's. Their
    /// fractional parts lie as far from ½ (0.4 and 0.6, 0.3 and 0.7), so
    /// interpolation smooths the noise of both planes alike and a perfect
    /// alignment gives the band the background's PSNR.
    static let global = (dx: 2.4, dy: -1.7), near = (dx: 2.4 + 5.2, dy: -1.7 + 2.4)
    static let far = Texture(seed: 11, width: width, height: height, margin: 40)
    static let nearTexture = Texture(seed: 12, width: width, height: height, margin: 40)

    /// The reference: far plane, band of the near texture.
    static let reference: Plane = compose(far: far.render(width: width, height: height),
                                          near: nearTexture.render(width: width, height: height), bandShift: 0)

    /// Far and near views put together: row `y` shows the band where
    /// `y + bandShift` lies in `band`.
    static func compose(far: Plane, near: Plane, bandShift: Double) -> Plane {
        var out = far
        for y in 0..<height where band.contains(Int((Double(y) + bandShift).rounded(.down))) {
            for x in 0..<width { out.pixels[y * width + x] = near[x, y] }
        }
        return out
    }

    /// The frame: both planes shifted (`nearShift` nil: the band moves with
    /// the far plane), plus Gaussian noise of σ `noise`.
    static func frame(nearShift: (dx: Double, dy: Double)?, noise: Double = 0.01, seed: UInt64 = 5) -> Plane {
        let n = nearShift ?? global
        var p = compose(far: far.render(width: width, height: height, dx: global.dx, dy: global.dy),
                        near: nearTexture.render(width: width, height: height, dx: n.dx, dy: n.dy), bandShift: n.dy)
        var rng = TestRandom(seed: seed)
        for i in 0..<p.count { p.pixels[i] += Float(noise * rng.gaussian()) }
        return p
    }

    /// Rows well inside the band, and well outside it, where the truth is
    /// one plane: two tile spacings from the band's edges (the tiles
    /// straddling the occlusion fall back to the global transform, and the
    /// field ramps from theirs to the band's over the next spacing), and
    /// 12 px from the image's.
    static func inBand(_ x: Int, _ y: Int) -> Bool {
        x >= 12 && x < width - 12 && y >= band.lowerBound + 32 && y < band.upperBound - 32
    }
    static func inBackground(_ x: Int, _ y: Int) -> Bool {
        x >= 12 && x < width - 12 && y >= 12 && y < height - 12
            && (y < band.lowerBound - 32 || y >= band.upperBound + 32)
    }

    /// Band and background PSNR of `frame` warped by the global transform and `field`.
    static func measure(_ frame: Plane, field: DisplacementField?) throws -> (band: Double, background: Double) {
        let t = Transform.translation(dx: global.dx, dy: global.dy)
        let warper = try #require(RowWarper([frame], by: t, field: field, width: width, height: height))
        let planes = ByteWarpTests.warpAll(warper).planes
        let warped = Plane(width: width, height: height, pixels: planes[0])
        return (psnr(warped, reference, where: inBand), psnr(warped, reference, where: inBackground))
    }

    /// The field of `frame` after the global warp.
    static func field(of frame: Plane) throws -> DisplacementField {
        let t = Transform.translation(dx: global.dx, dy: global.dy)
        let globalWarp = Warper.warp([frame], by: t, width: width, height: height)
        return try TileAligner(reference: reference).align(globalWarp.planes[0], coverage: globalWarp.coverage)
    }

    @Test("parallax: the global transform leaves the near band ≥ 5 dB worse; the local field brings it within 1 dB")
    func parallax() throws {
        let frame = Self.frame(nearShift: Self.near)
        let global = try Self.measure(frame, field: nil)
        let field = try Self.field(of: frame)
        let local = try Self.measure(frame, field: field)
        let summary = field.summary
        // The band warped by its true shift: what a perfect field gives it.
        var truth = DisplacementField(columns: 1, rows: 1, spacing: 1, originX: 0, originY: 0)
        truth.dx = [Float(Self.global.dx - Self.near.dx)]
        truth.dy = [Float(Self.global.dy - Self.near.dy)]
        let ideal = try Self.measure(frame, field: truth)
        print("parallax: global band \(global.band) dB, background \(global.background) dB; local band \(local.band) dB, background \(local.background) dB; band at its true shift \(ideal.band) dB; field median \(summary.median) px, p95 \(summary.p95) px, fell back \(summary.fallbackShare)")
        #expect(global.background - global.band >= 5, "the scene needs local alignment")
        #expect(local.background - local.band <= 1, "band \(local.band) dB against background \(local.background) dB")
        #expect(local.band >= ideal.band - 0.5, "band \(local.band) dB against \(ideal.band) dB at its true shift")
        #expect(local.background >= global.background - 0.2, "the background loses nothing")
        // Band tiles carry the band's residual shift (5.2, 2.4) px: about 5.7 px long.
        let expected = (5.2 * 5.2 + 2.4 * 2.4).squareRoot()
        #expect(abs(summary.p95 - expected) < 0.3, "p95 \(summary.p95) px against \(expected)")
    }

    @Test("no parallax: the local field stays near 0 and loses ≤ 0.2 dB against the global transform")
    func noParallax() throws {
        let frame = Self.frame(nearShift: nil)
        let global = try Self.measure(frame, field: nil)
        let field = try Self.field(of: frame)
        let local = try Self.measure(frame, field: field)
        print("no parallax: global \(global) dB, local \(local) dB, field \(field.summary)")
        #expect(field.summary.p95 < 0.15, "p95 \(field.summary.p95) px")
        #expect(local.band >= global.band - 0.2 && local.background >= global.background - 0.2)
    }

    /// The field of `frame` after the global warp, with `options`.
    static func field(of frame: Plane, options: TileAlignmentOptions) throws -> DisplacementField {
        let t = Transform.translation(dx: global.dx, dy: global.dy)
        let globalWarp = Warper.warp([frame], by: t, width: width, height: height)
        return try TileAligner(reference: reference, options: options).align(globalWarp.planes[0], coverage: globalWarp.coverage)
    }

    @Test("no tile goes beyond maximumDisplacement: a 4 px bound holds the band's (5.2, 2.4) px parallax to 4 px")
    func displacementBound() throws {
        var options = TileAlignmentOptions()
        options.maximumDisplacement = 4
        let field = try Self.field(of: Self.frame(nearShift: Self.near), options: options)
        let worst = zip(field.dx, field.dy).map { max(abs($0), abs($1)) }.max() ?? 0
        print("bound 4 px: largest tile displacement \(worst) px, field \(field.summary)")
        #expect(worst <= 4, "\(worst) px")
        // The bound cuts the search, not the band: its tiles still move, up to it.
        #expect(worst >= 3, "\(worst) px")
    }

    @Test("a subpixel parallax below minimumDisplacement stays with the global transform; without the floor it is measured")
    func displacementFloor() throws {
        // The band 0.3 px right and 0.2 px down of the far plane: 0.36 px.
        let frame = Self.frame(nearShift: (Self.global.dx + 0.3, Self.global.dy + 0.2))
        let floored = try Self.field(of: frame)
        #expect(floored.dx.allSatisfy { $0 == 0 } && floored.dy.allSatisfy { $0 == 0 }, "\(floored.summary)")
        var options = TileAlignmentOptions()
        options.minimumDisplacement = 0
        let measured = try Self.field(of: frame, options: options)
        print("0.36 px parallax: with the floor \(floored.summary); without \(measured.summary)")
        // Band tiles (rows 64..<128, away from the occlusion edges) report about −(0.3, 0.2).
        var bandTiles = [(Float, Float)]()
        for row in 0..<measured.rows where (64..<128).contains(Int(measured.originY + Double(row) * measured.spacing)) {
            for column in 0..<measured.columns { let k = row * measured.columns + column; bandTiles.append((measured.dx[k], measured.dy[k])) }
        }
        let moved = bandTiles.filter { abs($0.0 + 0.3) < 0.1 && abs($0.1 + 0.2) < 0.1 }
        #expect(moved.count * 2 >= bandTiles.count, "\(moved.count) of \(bandTiles.count) band tiles near (−0.3, −0.2): \(bandTiles)")
    }

    @Test("tiles within the noise floor skip the search: the parallax pair's field is the one every tile's search gives")
    func noiseFloorSkip() throws {
        let frame = Self.frame(nearShift: Self.near)
        var everyTile = TileAlignmentOptions()
        everyTile.noiseFloorRatio = 0
        let skipping = try Self.field(of: frame), searched = try Self.field(of: frame, options: everyTile)
        let differing = (0..<skipping.dx.count).filter {
            skipping.dx[$0] != searched.dx[$0] || skipping.dy[$0] != searched.dy[$0]
        }
        print("noise floor: \(differing.count) of \(skipping.dx.count) tiles differ; fell back \(skipping.summary.fallbackShare) against \(searched.summary.fallbackShare)")
        #expect(differing.isEmpty, "tiles \(differing)")
    }

    @Test("a flat reference falls back everywhere to the global transform")
    func flat() throws {
        let flat = Plane(width: 96, height: 64, repeating: 0.5)
        let field = try TileAligner(reference: flat).align(Self.frame(nearShift: nil).cropped(x: 0, y: 0, width: 96, height: 64))
        #expect(field.summary.fallbackShare == 1)
        #expect(field.dx.allSatisfy { $0 == 0 } && field.dy.allSatisfy { $0 == 0 })
    }

    @Test("the field is bilinear between tile centres and held beyond the outer ones (no seams)")
    func interpolation() {
        var field = DisplacementField(columns: 2, rows: 2, spacing: 16, originX: 7.5, originY: 7.5)
        field.dx = [0, 4, 8, 12]
        field.dy = [1, 1, -1, -1]
        let mid = field.displacement(x: 15.5, y: 15.5)
        #expect(abs(mid.dx - 6) < 1e-9 && abs(mid.dy - 0) < 1e-9)
        let corner = field.displacement(x: -10, y: 100)
        #expect(corner.dx == 8 && corner.dy == -1)
        // Continuous: a small step moves the field a small amount.
        var worst = 0.0
        for i in 0..<400 {
            let x = Double(i) / 10
            let a = field.displacement(x: x, y: 12), b = field.displacement(x: x + 0.1, y: 12)
            worst = max(worst, abs(a.dx - b.dx))
        }
        #expect(worst <= 4.0 / 16 * 0.1 + 1e-9)
    }

    @Test("a frame of another size is refused")
    func sizeMismatch() throws {
        let aligner = try TileAligner(reference: Self.reference)
        #expect(throws: RegistrationError.self) { try aligner.align(Plane(width: 10, height: 10)) }
        #expect(throws: RegistrationError.self) { try TileAligner(reference: Plane(width: 20, height: 20)) }
    }
}
