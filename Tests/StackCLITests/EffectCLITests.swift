import Foundation
import Registration
@testable import Stacker
import Testing
import TestSupport

/// `stack effect`: a batch of portrait photos, some without depth, written
/// into a folder with the photos' metadata; warnings, --strict, the report
/// and usage errors.
@Suite("stack effect")
struct EffectCLITests {
    static let scene = PortraitScene(width: 96, height: 72)

    /// Writes an MPF portrait, a GDepth portrait and a plain JPEG into `folder`.
    static func photos(in folder: String) throws -> (mpf: String, gdepth: String, plain: String) {
        let names = (folder + "/mpf.jpg", folder + "/gdepth.jpg", folder + "/plain.jpg")
        try Data(try scene.mpfJPEG()).write(to: URL(fileURLWithPath: names.0))
        try Data(try scene.gDepthJPEG()).write(to: URL(fileURLWithPath: names.1))
        try Data(try scene.plainJPEG()).write(to: URL(fileURLWithPath: names.2))
        return names
    }

    @Test("a batch into a folder: photos with depth are written with their effect, one without is skipped with a warning naming it")
    func batch() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let p = try Self.photos(in: folder)
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: false)
        let run = try CLIHarness.run(["effect", "spotlight", "--focus", "auto", "-o", folder + "/out/",
                                      "--report", folder + "/report.json", p.mpf, p.gdepth, p.plain])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: \(p.plain): no depth data; skipped"), "\(run.stderr)")
        #expect(CLIHarness.listing(folder + "/out") == ["gdepth-spotlight.jpg", "mpf-spotlight.jpg"])
        // The subject is kept (JPEG round trip aside), the background darkened to a quarter.
        let original = try ImageFile.read(p.mpf).image
        let out = try ImageFile.read(folder + "/out/mpf-spotlight.jpg").image
        let inside = Self.scene.region(inside: true, margin: 4), outside = Self.scene.region(inside: false, margin: 4)
        func mean(_ image: Image, _ pixels: [Int]) -> Float {
            pixels.reduce(Float(0)) { $0 + image.planes[2].pixels[$1] } / Float(pixels.count)
        }
        #expect(abs(mean(out, inside) - mean(original, inside)) < 2 / 255, "subject \(mean(original, inside)) → \(mean(out, inside))")
        let ratio = mean(out, outside) / mean(original, outside)
        #expect(abs(ratio - 0.25) < 0.03, "background × \(ratio)")
        let report = try String(contentsOfFile: folder + "/report.json", encoding: .utf8)
        #expect(report.contains("\"maskSource\": \"MPF disparity image\"") && report.contains("\"maskSource\": \"GDepth XMP\""), "\(report)")
        #expect(report.contains("\"skipped\": \"no depth data\""), "\(report)")
        // --quiet: no warning, no summary.
        let quiet = try CLIHarness.run(["effect", "spotlight", "-q", "-o", folder + "/out/", p.mpf, p.plain])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    @Test("--strict turns a photo without depth into an error (exit 1); bad options are usage errors (exit 2)")
    func strictAndUsage() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let p = try Self.photos(in: folder)
        let strict = try CLIHarness.run(["effect", "--effect", "blur", "--strict", "-o", folder + "/", p.mpf, p.plain])
        #expect(strict.status == 1, "\(strict.stderr)")
        #expect(strict.stderr.contains("error: \(p.plain): no depth data"), "\(strict.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/mpf-blur.jpg"))
        for bad in [["effect", "--effect", "sparkle", p.mpf], ["effect", "--focus", "2", p.mpf],
                    ["effect", "--matte", "ears", p.mpf], ["effect", "blur"],
                    ["effect", "--depth-map", p.plain, p.mpf, p.gdepth]] {
            let run = try CLIHarness.run(bad)
            #expect(run.status == 2, "\(bad): \(run.status) \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").first?.hasPrefix("stack effect: error: ") == true, "\(run.stderr)")
        }
        let unreadable = try CLIHarness.run(["effect", "mask", "-o", folder + "/m.png", folder + "/missing.jpg"])
        #expect(unreadable.status == 1 && unreadable.stderr.contains("missing.jpg"), "\(unreadable.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/m.png"))
    }

    @Test("outputs in a folder never replace a file: a taken name and two photos of the same name get -2, -3 …; a missing folder is made")
    func neverReplaces() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let p = try Self.photos(in: folder)
        for sub in ["a", "b", "out"] { try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: false) }
        try FileManager.default.copyItem(atPath: p.mpf, toPath: folder + "/a/x.jpg")
        try FileManager.default.copyItem(atPath: p.gdepth, toPath: folder + "/b/x.jpg")
        let kept = Data("not a photo".utf8)
        try kept.write(to: URL(fileURLWithPath: folder + "/out/x-spotlight.jpg"))
        let run = try CLIHarness.run(["effect", "spotlight", "-q", "--report", folder + "/report.json", "-o", folder + "/out/",
                                      folder + "/a/x.jpg", folder + "/b/x.jpg"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(CLIHarness.listing(folder + "/out") == ["x-spotlight-2.jpg", "x-spotlight-3.jpg", "x-spotlight.jpg"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/out/x-spotlight.jpg")) == kept)
        // In input order: a/x.jpg (the MPF photo) got -2, b/x.jpg (GDepth) -3.
        let report = try String(contentsOfFile: folder + "/report.json", encoding: .utf8)
        let second = try #require(report.range(of: "x-spotlight-2.jpg")), third = try #require(report.range(of: "x-spotlight-3.jpg"))
        let mpfSource = try #require(report.range(of: "MPF disparity image")), gdepthSource = try #require(report.range(of: "GDepth XMP"))
        #expect(second.lowerBound < third.lowerBound && (mpfSource.lowerBound < gdepthSource.lowerBound), "\(report)")
        for name in ["x-spotlight-2.jpg", "x-spotlight-3.jpg"] {
            let image = try ImageFile.read(folder + "/out/" + name).image
            #expect(image.width == Self.scene.width && image.height == Self.scene.height)
        }
        // A second run adds -4 and -5; a folder that does not exist yet is made.
        let again = try CLIHarness.run(["effect", "spotlight", "-q", "-o", folder + "/out/", folder + "/a/x.jpg", folder + "/b/x.jpg"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(CLIHarness.listing(folder + "/out").count == 5 && FileManager.default.fileExists(atPath: folder + "/out/x-spotlight-5.jpg"))
        let made = try CLIHarness.run(["effect", "spotlight", "-q", "-o", folder + "/new/", p.mpf])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(CLIHarness.listing(folder + "/new") == ["mpf-spotlight.jpg"])
    }

    @Test("--depth-map: one side-car per photo; the mask written to a named file is the subject (IoU ≥ 0.9)")
    func sideCarMask() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let p = try Self.photos(in: folder)
        let d = Self.scene.disparity()
        try ImageFile.write(Image(width: d.width, height: d.height, planes: [d]), to: folder + "/depth.png")
        let run = try CLIHarness.run(["effect", "mask", "--depth-map", folder + "/depth.png", "-o", folder + "/mask.png", p.plain])
        #expect(run.status == 0, "\(run.stderr)")
        let mask = try ImageFile.read(folder + "/mask.png").image
        #expect(mask.channels == 1)
        #expect(Self.scene.intersectionOverUnion(mask.planes[0]) >= 0.9)
    }
}
