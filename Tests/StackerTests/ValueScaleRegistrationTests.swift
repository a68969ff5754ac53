import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// Registration does not depend on the scale of the values (issue 22, item 5):
/// the same real CCD frame stored as 16-bit integers, as 32-bit integers
/// (read as v / (2³² − 1), ~1e-7 of the scale) and as floats in ADU × 1e-12
/// registers to the same shift with a high score. Before `RegistrationScale`,
/// the 32-bit and float forms scored 0 and were refused.
@Suite("Registration is invariant to the value scale")
struct ValueScaleRegistrationTests {
    /// The real frames (a crop of NGC 1316 from astropy's test data, see
    /// Tests/Fixtures/real/README-registration.md) in three value scales.
    static let fixtures = ["ngc1316-int16.fits", "ngc1316-int32.fits", "ngc1316-float-1e-12.fits"]
    static let folder = TestFiles.realFixtures

    /// Two 240×160 crops of the frame, the second 7 px right and 5 px up of
    /// the first: frame(x, y) = reference(x + 7, y − 5).
    static func pair(_ name: String) throws -> (reference: Plane, frame: Plane) {
        let plane = try ImageFile.read(folder + "/" + name).image.planes[0]
        return (plane.cropped(x: 12, y: 10, width: 240, height: 160), plane.cropped(x: 19, y: 5, width: 240, height: 160))
    }

    @Test("int16, int32 and float × 1e-12 forms of one real frame register alike")
    func sameShiftAtEveryScale() throws {
        var shifts: [(dx: Double, dy: Double)] = []
        for name in Self.fixtures {
            let (reference, frame) = try Self.pair(name)
            let registrar = try FrameRegistrar(reference: reference, alignment: .translation,
                                               minimumScore: TranslationOptions.defaultMinimumScore)
            let e = try registrar.estimate(.floats(frame))
            let (dx, dy) = e.transform.translation
            print("\(name): dx \(dx) dy \(dy) score \(e.score) accepted \(e.isAccepted ?? false)")
            #expect(e.isAccepted == true, "\(name)")
            #expect(e.score > 0.5, "\(name): score \(e.score)")
            #expect(abs(dx - 7) < 0.05 && abs(dy + 5) < 0.05, "\(name): (\(dx), \(dy))")
            shifts.append((dx, dy))
        }
        for s in shifts.dropFirst() {
            #expect(abs(s.dx - shifts[0].dx) < 0.01 && abs(s.dy - shifts[0].dy) < 0.01, "\(s) vs \(shifts[0])")
        }
    }

    @Test("the homography and star models see the rescaled frame too")
    func homographyAtTinyScale() throws {
        let (reference, frame) = try Self.pair("ngc1316-float-1e-12.fits")
        let registrar = try FrameRegistrar(reference: reference, alignment: .homography,
                                           minimumScore: TranslationOptions.defaultMinimumScore)
        let e = try registrar.estimate(.floats(frame))
        let (dx, dy) = e.transform.translation
        #expect(e.isAccepted == true)
        #expect(abs(dx - 7) < 0.1 && abs(dy + 5) < 0.1, "(\(dx), \(dy))")
    }

    @Test("planes spanning at least 1/1000 of the scale, every non-constant 8-bit plane among them, are left as they are")
    func ordinaryPlanesUntouched() {
        // The smallest 8-bit contrast: one step of 1/255.
        var plane = Plane(width: 64, height: 64, repeating: 100 / 255)
        plane[5, 7] = 101 / 255
        #expect(RegistrationScale.map(for: plane) == nil)
        #expect(RegistrationScale.map(for: Plane(width: 8, height: 8, repeating: 0.5)) == nil)
        // 16-bit counts in 32-bit integers: rescaled, median to 0.5.
        var tiny = Plane(width: 64, height: 64, repeating: 0)
        for i in tiny.pixels.indices { tiny.pixels[i] = Float(300 + i % 17) / 4_294_967_295 }
        let map = try? #require(RegistrationScale.map(for: tiny))
        if let map {
            let median = Float(308) / 4_294_967_295
            #expect(abs(map.gain * median + map.offset - 0.5) < 1e-3)
        }
    }

    @Test("a frame using less than 1/1000 of the scale is warned about once, with how to keep it; a 16-bit one is not")
    func tinyScaleWarning() throws {
        let folder = try TestFiles.temporaryFolder("value-scale")
        defer { TestFiles.remove(folder) }
        for name in ["ngc1316-int32.fits", "ngc1316-int16.fits"] {
            let paths = (0..<2).map { "\(folder)/\($0)-\(name)" }
            for p in paths { try FileManager.default.copyItem(atPath: Self.folder + "/" + name, toPath: p) }
            let result = try StackPipeline.run(paths: paths, options: StackOptions())
            let lines = result.warnings.filter { $0.contains("1/1000") }
            if name.contains("int32") {
                #expect(lines.count == 1, "\(result.warnings)")
                #expect(lines.first?.contains("--depth 32f") == true && lines.first?.contains("and 1 more frame") == true,
                        "\(lines)")
                #expect(result.frames.allSatisfy { $0.used })
            } else {
                #expect(lines.isEmpty, "\(result.warnings)")
            }
        }
    }
}
