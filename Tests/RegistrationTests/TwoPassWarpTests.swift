import Foundation
import Testing
@testable import Registration

/// The two-pass warp of near-identity projective transforms (`TwoPassWarp`)
/// against the general warp's 6 × 6 window and against the exact values of
/// a texture known at every real point.
@Suite("Two-pass warp")
struct TwoPassWarpTests {
    static let width = 384, height = 288

    /// A texture defined at every real point: 24 plane waves, half of them
    /// up to 0.15 cycles/px and half up to 0.3 (the detail of a sharp
    /// photo; Lanczos-3 passes up to about 0.35), seeded; within [0, 1]
    /// (24 amplitudes below 1/24).
    struct Waves {
        var waves: [(fx: Double, fy: Double, phase: Double, amplitude: Double)] = []
        init(seed: UInt64) {
            var state = seed | 1
            func next() -> Double {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Double(state >> 11) / Double(1 << 53)
            }
            for k in 0..<24 {
                let f = (k < 12 ? 0.15 : 0.3) * next().squareRoot(), angle = 2 * Double.pi * next()
                waves.append((f * cos(angle), f * sin(angle), 2 * Double.pi * next(), 0.5 / 36 * (0.5 + next())))
            }
        }
        func value(_ x: Double, _ y: Double) -> Double {
            waves.reduce(0.5) { $0 + $1.amplitude * cos(2 * Double.pi * ($1.fx * x + $1.fy * y) + $1.phase) }
        }
        func plane(width: Int, height: Int) -> Plane {
            Plane(width: width, height: height,
                  pixels: (0..<(width * height)).map { Float(value(Double($0 % width), Double($0 / width))) })
        }
    }

    /// A 12 MP frame's homography seen through a `width × height` window at
    /// `(ox, oy)` of it (frame and reference cropped alike): the same
    /// rotation, scale and perspective per pixel as at 4000 × 3000.
    static func cropped(_ t: Transform, ox: Double, oy: Double) -> Transform {
        Transform.translation(dx: -ox, dy: -oy).concatenating(t).concatenating(.translation(dx: ox, dy: oy))
    }

    /// Handheld homographies: 12 MP ones (corners moved by up to 12 px)
    /// seen through windows at the frame's corners and middle, and a
    /// rotation of 1° and of 3° with a 1 % zoom about the window's centre.
    static let transforms: [Transform] = {
        let big = ProjectiveSpanTests.homographies(width: 4000, height: 3000, jitter: 12, count: 4)
        let windows = [(0.0, 0.0), (Double(4000 - width), Double(3000 - height)), (1800.0, 1300.0), (0.0, 2600.0)]
        var ts = zip(big, windows).map { cropped($0, ox: $1.0, oy: $1.1) }
        for (degrees, zoom) in [(1.0, 1.0), (3.0, 1.01)] {
            let a = degrees * Double.pi / 180, (cx, cy) = (Double(width) / 2, Double(height) / 2)
            let r = Transform(matrix: [zoom * cos(a), -zoom * sin(a), 0, zoom * sin(a), zoom * cos(a), 0, 0, 0, 1])
            ts.append(cropped(r, ox: -cx + 0.37, oy: -cy - 0.21))
        }
        return ts
    }()

    /// Thresholds: the output is quantised to 8 bits, so a difference under
    /// a quarter step changes a stored sample by at most one step, and only
    /// where it sits near a rounding boundary; measured (384 × 288, the
    /// 12 MP windows / 1° / 3° + 1 %): max 0.011 / 0.053 / 0.134 of a step,
    /// RMS 0.0018 / 0.0043 / 0.0127, error against the truth within 0.1 % of
    /// the general warp's (and below it for the rotations).
    @Test("handheld homographies: the general warp's coverage exactly, its samples within 1/4 of an 8-bit step (RMS 1/50), as close to the truth",
          arguments: 0..<6)
    func matchesTheGeneralWarp(_ which: Int) throws {
        let t = Self.transforms[which]
        let (w, h) = (Self.width, Self.height)
        let waves = Waves(seed: 26 + UInt64(which))
        let floats = waves.plane(width: w, height: h)
        let bytes = BytePlane(width: w, height: h, pixels: floats.pixels.map { UInt8(($0 * 255).rounded()) })
        let general = try #require(RowWarper([bytes], by: t, width: w, height: h))
        let twoPass = general.resamplingInTwoPasses()
        #expect(twoPass.resamplesInTwoPasses, "transform \(which) is admissible")
        let a = ByteWarpTests.warpAll(general), b = ByteWarpTests.warpAll(twoPass)
        #expect(a.coverage == b.coverage, "coverage differs at \(zip(a.coverage, b.coverage).filter { $0 != $1 }.count) pixels")
        let covered = a.coverage.filter { $0 > 0 }.count
        #expect(covered > w * h / 2)
        var worst: Float = 0, squares = 0.0
        for i in a.coverage.indices where a.coverage[i] > 0 {
            let d = abs(a.planes[0][i] - b.planes[0][i])
            worst = max(worst, d)
            squares += Double(d * d)
        }
        let rms = (squares / Double(covered)).squareRoot()
        // Against the truth: the float frame's warps and the texture at the
        // exact positions, away from the frame's edges (where both clamp).
        let m = try #require(t.inverse).matrix
        let ga = ByteWarpTests.warpAll(try #require(RowWarper([floats], by: t, width: w, height: h)))
        let gb = ByteWarpTests.warpAll(try #require(RowWarper([floats], by: t, width: w, height: h)).resamplingInTwoPasses())
        var errorA = 0.0, errorB = 0.0, n = 0
        for y in 0..<h { for x in 0..<w {
            let d = m[6] * Double(x) + m[7] * Double(y) + m[8]
            let X = (m[0] * Double(x) + m[1] * Double(y) + m[2]) / d, Y = (m[3] * Double(x) + m[4] * Double(y) + m[5]) / d
            guard X >= 4, X <= Double(w - 5), Y >= 4, Y <= Double(h - 5) else { continue }
            let truth = waves.value(X, Y), i = y * w + x
            errorA += pow(Double(ga.planes[0][i]) - truth, 2)
            errorB += pow(Double(gb.planes[0][i]) - truth, 2)
            n += 1
        } }
        let (rmsA, rmsB) = ((errorA / Double(n)).squareRoot() * 255, (errorB / Double(n)).squareRoot() * 255)
        print("TwoPassWarp \(which): against the general warp max \(worst * 255)/255, RMS \(rms * 255)/255 over \(covered) px; against the truth RMS general \(rmsA)/255, two-pass \(rmsB)/255")
        #expect(worst * 255 <= 0.25, "max difference \(worst * 255)/255")
        #expect(rms * 255 <= 0.02, "RMS difference \(rms * 255)/255")
        #expect(rmsB <= 1.01 * rmsA, "two-pass \(rmsB)/255 against the general warp's \(rmsA)/255")
    }

    @Test("near the admissible bounds, and on grids larger and smaller than the frame: the general warp's coverage, samples within 1/2 of an 8-bit step",
          arguments: [(7.0, 1.0, 240, 180), (-7.0, 1.0, 160, 120), (2.0, 1.11, 200, 150), (-1.0, 0.9, 240, 120)])
    func nearTheBounds(_ c: (degrees: Double, zoom: Double, width: Int, height: Int)) throws {
        let (fw, fh) = (200, 150)
        let floats = Waves(seed: 11).plane(width: fw, height: fh)
        let bytes = BytePlane(width: fw, height: fh, pixels: floats.pixels.map { UInt8(($0 * 255).rounded()) })
        let a = c.degrees * Double.pi / 180
        let t = Transform(matrix: [c.zoom * cos(a), -c.zoom * sin(a), 7.3, c.zoom * sin(a), c.zoom * cos(a), -4.6,
                                   1e-6, -2e-6, 1])
        let general = try #require(RowWarper([bytes], by: t, width: c.width, height: c.height))
        let twoPass = general.resamplingInTwoPasses()
        #expect(twoPass.resamplesInTwoPasses)
        let x = ByteWarpTests.warpAll(general), y = ByteWarpTests.warpAll(twoPass)
        #expect(x.coverage == y.coverage)
        #expect(x.coverage.contains(0) && x.coverage.contains(1), "the grid shows the frame's edges")
        let worst = zip(x.planes[0], y.planes[0]).map { abs($0 - $1) }.max() ?? 0
        print("TwoPassWarp near the bounds \(c): max difference \(worst * 255)/255")
        #expect(worst * 255 <= 0.5, "max difference \(worst * 255)/255")
        // The runs it reports are its coverage, row by row, and without a
        // coverage buffer it writes the same samples.
        #expect(twoPass.knowsCoveredColumns && !general.knowsCoveredColumns)
        for row in 0..<c.height {
            let run = try #require(twoPass.coveredColumns(row: row))
            let covered = (0..<c.width).filter { y.coverage[row * c.width + $0] > 0 }
            #expect(Array(run) == covered, "row \(row): \(run) against \(covered.first ?? -1)…\(covered.last ?? -1)")
        }
        var samples = [Float](repeating: -1, count: c.width * c.height)
        samples.withUnsafeMutableBufferPointer { twoPass.warp(rows: 0..<c.height, into: [$0.baseAddress!], coverage: nil) }
        #expect(samples == y.planes[0])
    }

    /// Measured (384 × 288, transform 2, tiles 16 px apart, a third of them
    /// displaced in runs of 5): 22 % of the pixels in two passes, the same
    /// coverage, max difference 0.0063/255 (the parts through the field are
    /// the general warp's, but for where their spans start).
    @Test("with a displacement field: the parts of a row where it is 0 in two passes, the rest as the general field warp; same coverage, samples within 1/4 of an 8-bit step")
    func fieldParts() throws {
        let (w, h) = (Self.width, Self.height)
        let floats = Waves(seed: 5).plane(width: w, height: h)
        let bytes = BytePlane(width: w, height: h, pixels: floats.pixels.map { UInt8(($0 * 255).rounded()) })
        var field = DisplacementField(columns: w / 16, rows: h / 16, spacing: 16, originX: 7.5, originY: 7.5)
        var u: UInt64 = 3
        for i in field.dx.indices {
            u = u &* 6364136223846793005 &+ 1442695040888963407
            // Displaced tiles in runs along the rows, the rest exactly 0.
            if (i / 5) % 3 == 0 {
                field.dx[i] = Float(Double(u >> 40) / Double(1 << 24) - 0.5) * 3
                field.dy[i] = Float(Double((u >> 16) & 0xFFFFFF) / Double(1 << 24) - 0.5) * 3
            }
        }
        let general = try #require(RowWarper([bytes], by: Self.transforms[2], field: field, width: w, height: h))
        let hybrid = general.resamplingInTwoPasses()
        #expect(hybrid.resamplesInTwoPasses && !general.resamplesInTwoPasses && !hybrid.knowsCoveredColumns)
        let a = ByteWarpTests.warpAll(general), b = ByteWarpTests.warpAll(hybrid)
        let coverageDiffers = zip(a.coverage, b.coverage).filter { $0 != $1 }.count
        var worst: Float = 0, same = 0, covered = 0
        for i in a.coverage.indices where a.coverage[i] > 0 && b.coverage[i] > 0 {
            let d = abs(a.planes[0][i] - b.planes[0][i])
            worst = max(worst, d)
            covered += 1
            if d == 0 { same += 1 }
        }
        // The parts in two passes: how many pixels they hold.
        var inTwoPasses = 0
        for y in 0..<h {
            inTwoPasses += field.row(Double(y)).zeroParts(width: w, minimum: TwoPassWarp.minimumFieldPart)
                .reduce(0) { $0 + $1.count }
        }
        print("field parts: \(inTwoPasses) of \(w * h) px in two passes; coverage differs at \(coverageDiffers) px; max difference \(worst * 255)/255; \(same) of \(covered) samples identical")
        #expect(inTwoPasses > w * h / 8 && inTwoPasses < w * h * 7 / 8, "both kinds of part are exercised")
        #expect(coverageDiffers == 0)
        #expect(worst * 255 <= 0.25, "max difference \(worst * 255)/255")
    }

    @Test("zero parts of a field's row: where it is exactly 0, at least the minimum long")
    func zeroParts() {
        var field = DisplacementField(columns: 6, rows: 1, spacing: 10, originX: 5, originY: 5)
        // Centres at 5, 15, …, 55; non-zero at 25 and 45.
        field.dx = [0, 0, 0.5, 0, -1, 0]
        let row = field.row(5)
        #expect(row.zeroParts(width: 70, minimum: 1) == [0..<16, 35..<36, 55..<70])
        #expect(row.zeroParts(width: 70, minimum: 2) == [0..<16, 55..<70])
        #expect(FieldRow.complement(of: [0..<16, 55..<70], width: 70) == [16..<55])
        for part in row.zeroParts(width: 70, minimum: 1) {
            for x in part { #expect(row.displacement(x: Double(x)) == (0, 0), "x \(x)") }
        }
        #expect(row.displacement(x: 16).dx != 0 && row.displacement(x: 54).dx != 0)
    }

    @Test("any split into bands of rows gives the same bytes")
    func bandsMatchWhole() throws {
        let (w, h) = (Self.width, Self.height)
        let floats = Waves(seed: 7).plane(width: w, height: h)
        let bytes = BytePlane(width: w, height: h, pixels: floats.pixels.map { UInt8(($0 * 255).rounded()) })
        let warper = try #require(RowWarper([bytes, bytes], by: Self.transforms[2], width: w, height: h)).resamplingInTwoPasses()
        #expect(warper.resamplesInTwoPasses)
        let whole = ByteWarpTests.warpAll(warper)
        for rowsPerBand in [1, 5, 8] {
            var first = [Float](repeating: 0, count: w * h), second = first, coverage = first
            first.withUnsafeMutableBufferPointer { p0 in
                second.withUnsafeMutableBufferPointer { p1 in
                    coverage.withUnsafeMutableBufferPointer { c in
                        for y0 in stride(from: 0, to: h, by: rowsPerBand) {
                            let rows = y0..<min(h, y0 + rowsPerBand)
                            warper.warp(rows: rows, into: [p0.baseAddress! + y0 * w, p1.baseAddress! + y0 * w],
                                        coverage: c.baseAddress! + y0 * w)
                        }
                    }
                }
            }
            #expect([first, second] == whole.planes && coverage == whole.coverage, "bands of \(rowsPerBand) rows")
        }
    }

    @Test("outside the admissible set, and for translations and .nearest, the general warp stays")
    func admissibleSet() throws {
        let plane = BytePlane(width: 64, height: 48, pixels: [UInt8](repeating: 9, count: 64 * 48))
        func twoPass(_ t: Transform, _ interpolation: Interpolation = .lanczos3) throws -> Bool {
            try #require(RowWarper([plane], by: t, width: 64, height: 48, interpolation: interpolation))
                .resamplingInTwoPasses().resamplesInTwoPasses
        }
        func rotation(_ degrees: Double, zoom: Double = 1) -> Transform {
            let a = degrees * Double.pi / 180
            return Transform(matrix: [zoom * cos(a), -zoom * sin(a), 3, zoom * sin(a), zoom * cos(a), -2, 0, 0, 1])
        }
        #expect(try twoPass(rotation(5)))
        #expect(try twoPass(rotation(5), .bicubic))
        #expect(try !twoPass(rotation(5), .nearest))
        #expect(try !twoPass(rotation(8)), "|β| = tan 8° > 1/8")
        #expect(try !twoPass(rotation(0, zoom: 1.2)), "scale 1.2")
        #expect(try !twoPass(.translation(dx: 0.5, dy: 0.25)), "a translation keeps the separable path")
        // A strong perspective: the denominator changes by 20 % across the grid.
        #expect(try !twoPass(Transform(matrix: [1, 0, 0, 0, 1, 0, 0.004, 0, 1])))
    }
}
