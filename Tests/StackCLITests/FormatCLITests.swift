import Foundation
import Testing
import Stacker

@Suite("stack CLI: TIFF and FITS outputs")
struct FormatCLITests {
    /// The street burst written as 16-bit FITS frames, frame i with
    /// EXPTIME = 30 + i and the same DATE-OBS, so the reference is recognisable.
    static func fitsBurst(in folder: String, frames: Int = 4) throws -> [String] {
        let jpegs = try CLIHarness.makeBurst(in: folder, frames: frames, width: 160, height: 120, seed: 21)
        return try jpegs.enumerated().map { i, jpeg in
            let path = folder + String(format: "/light_%03d.fits", i)
            let keywords = [FITSKeyword(name: "EXPTIME", value: "\(30 + i).0", comment: "[s]", kind: .float),
                            FITSKeyword(name: "DATE-OBS", value: "2024-03-01T22:14:05", kind: .string)]
            try ImageFile.write(ImageFile.read(jpeg).image, to: path, options: EncodeOptions(bitDepth: 16, keywords: keywords))
            return path
        }
    }

    @Test("--depth 32f needs a TIFF or FITS output, and other depths are refused: exit 2", arguments: [
        ["--depth", "32f", "-o", "x.png", "a.jpg", "b.jpg"], ["--depth", "32f", "a.jpg", "b.jpg"],
        ["--depth", "32", "-o", "x.tif", "a.jpg", "b.jpg"], ["--depth", "16", "-o", "x.jpg", "a.jpg", "b.jpg"],
        ["--depth", "12", "-o", "x.fits", "a.fits", "b.fits"],
    ])
    func depthUsage(arguments: [String]) throws {
        let r = try CLIHarness.run(arguments)
        #expect(r.status == 2, "\(arguments): status \(r.status)")
        #expect(r.stderr.hasPrefix("stack: error: --depth"), "\(arguments): \(r.stderr)")
    }

    @Test("stacking FITS lights gives a 16-bit FITS by default carrying the reference's EXPTIME and DATE-OBS; --depth 32f gives float")
    func fitsOutput() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try Self.fitsBurst(in: dir)
        let r = try CLIHarness.run(["--reference", "2", "-o", "\(dir)/out.fits", "--quiet"] + frames)
        #expect(r.status == 0, "\(r.stderr)")
        let out = try ImageFile.read("\(dir)/out.fits")
        #expect(out.bitDepth == 16)
        #expect(out.image.width == 160 && out.image.height == 120 && out.image.channels == 3)
        #expect(out.keywords.first { $0.name == "EXPTIME" }?.value == "32.0")
        #expect(out.keywords.first { $0.name == "DATE-OBS" }?.value == "2024-03-01T22:14:05")

        let f = try CLIHarness.run(["--depth", "32f", "-o", "\(dir)/out.tif", "--quiet"] + frames)
        #expect(f.status == 0, "\(f.stderr)")
        #expect(try ImageFile.read("\(dir)/out.tif").bitDepth == 32)
        // A float reference gives the nearest a PNG holds: 16 bits.
        let p = try CLIHarness.run(["-o", "\(dir)/float-ref.png", "--quiet", "\(dir)/out.tif", frames[0]])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(try ImageFile.read("\(dir)/float-ref.png").bitDepth == 16)
    }

    @Test("the pipeline hands the reference frame's FITS keywords to the caller")
    func pipelineKeywords() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try Self.fitsBurst(in: dir, frames: 3)
        var options = StackOptions()
        options.referenceIndex = 1
        options.threads = 2
        let result = try stack(frames.map { .path($0) }, options: options)
        #expect(result.referenceBitDepth == 16)
        #expect(result.referenceKeywords.map(\.name) == ["EXPTIME", "DATE-OBS"])
        #expect(result.referenceKeywords.first?.value == "31.0")
    }
}
