import Foundation
import Testing
import Stacker
import TestSupport

/// Past one machine (docs/cluster.md): `stack register` in slices, the
/// average as partial sums, robust modes in row bands, and `stack merge`
/// joining them, measured against one-shot runs of the same frames.
@Suite("stack register, --partial, --rows and stack merge")
struct ShardCLITests {
    /// Runs `stack` and requires exit 0.
    private func ok(_ arguments: [String]) throws {
        let run = try CLIHarness.run(arguments + ["-q"])
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
    }

    private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("register slices concatenate into the one-run file; stacking with them gives the same bytes")
    func registerSlices() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 6, width: 128, height: 96)
        let first = try CLIHarness.run(["register", "-q", "-o", "\(folder)/a.json", "--reference", "4", "--frames", "0:3"] + frames)
        #expect(first.status == 0, "\(first.stderr)")
        try ok(["register", "-o", "\(folder)/b.json", "--reference", "4", "--frames", "3:6"] + frames)
        try ok(["register", "-o", "\(folder)/all.json", "--reference", "4"] + frames)
        let joined = try TransformsFile.read(["\(folder)/b.json", "\(folder)/a.json"])
        let whole = try TransformsFile.read("\(folder)/all.json")
        #expect(joined == whole)
        #expect(whole.reference == 4 && whole.frames.count == 6)
        try ok(["--transforms", "\(folder)/a.json", "--transforms", "\(folder)/b.json", "-o", "\(folder)/sliced.png"] + frames)
        try ok(["--transforms", "\(folder)/all.json", "-o", "\(folder)/whole.png"] + frames)
        #expect(try bytes("\(folder)/sliced.png") == bytes("\(folder)/whole.png"))
        // A gap between slices is refused, naming the slice after it.
        try ok(["register", "-o", "\(folder)/c.json", "--reference", "4", "--frames", "4:6"] + frames)
        let gap = try CLIHarness.run(["--transforms", "\(folder)/a.json", "--transforms", "\(folder)/c.json",
                                      "-o", "\(folder)/gap.png"] + frames)
        #expect(gap.status == 1)
        #expect(gap.stderr.hasPrefix("stack: error: \(folder)/c.json: no slice holds the frames 3:4"), "\(gap.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/gap.png"))
    }

    @Test("average in 3 partial sums: merged equals one-shot within float rounding, for any order of the pieces")
    func averageMerge() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = SceneBurst.street(width: 128, height: 96, frames: 7, seed: 7)
        let png = try SceneBurst(config, format: .png, in: folder).paths
        // PNG frames: both sides average RGB; only the summation differs.
        let largest = try largestDifference(frames: png, folder: folder, name: "png", checkOrder: true)
        // Σ(mean·W)/ΣW against a running mean: a few float ulps of values ≤ 1 (2⁻²³ ≈ 1.2e-7).
        #expect(largest <= 1e-6, "PNG: largest difference \(largest)")
        // JPEG frames: the one-shot average works in Y, Cb, Cr, the partial sums in RGB.
        try FileManager.default.createDirectory(atPath: "\(folder)/jpeg", withIntermediateDirectories: true)
        let jpeg = try SceneBurst(config, format: .jpeg, in: "\(folder)/jpeg").paths
        let jpegLargest = try largestDifference(frames: jpeg, folder: folder, name: "jpeg", checkOrder: false)
        #expect(jpegLargest <= 1.0 / 255, "JPEG: largest difference \(jpegLargest), over one 8-bit level")
        print("ShardCLITests.averageMerge: largest |merged − one-shot|: PNG \(largest), JPEG \(jpegLargest)")
    }

    /// Registers `frames`, stacks them in 3 partial sums and one-shot (32-bit
    /// float FITS), merges, and gives the largest sample difference; with
    /// `checkOrder`, also that the pieces named in reverse merge to the same bytes.
    private func largestDifference(frames: [String], folder: String, name: String, checkOrder: Bool) throws -> Float {
        try ok(["register", "-o", "\(folder)/\(name).json", "--reference", "3"] + frames)
        let transforms = ["--transforms", "\(folder)/\(name).json", "--depth", "32f"]
        let pieces = ["0:2", "2:5", "5:7"].enumerated().map { "\(folder)/\(name)-part-\($0.offset).fits" }
        for (piece, slice) in zip(pieces, ["0:2", "2:5", "5:7"]) {
            try ok(transforms + ["--frames", slice, "--partial", piece] + frames)
        }
        try ok(transforms + ["-o", "\(folder)/\(name)-one.fits"] + frames)
        try ok(["merge", "-o", "\(folder)/\(name)-merged.fits"] + pieces)
        if checkOrder {
            // Sums are added in frame order whatever the order named: the same bytes.
            try ok(["merge", "-o", "\(folder)/\(name)-reversed.fits"] + pieces.reversed())
            #expect(try bytes("\(folder)/\(name)-merged.fits") == bytes("\(folder)/\(name)-reversed.fits"))
        }
        let one = try ImageFile.read("\(folder)/\(name)-one.fits").image
        let merged = try ImageFile.read("\(folder)/\(name)-merged.fits").image
        #expect(merged.width == one.width && merged.height == one.height && merged.channels == one.channels)
        var largest: Float = 0
        for c in 0..<min(one.channels, merged.channels) {
            for (a, b) in zip(one.planes[c].pixels, merged.planes[c].pixels) { largest = max(largest, abs(a - b)) }
        }
        return largest
    }

    @Test("median and sigma-clip in 5 row bands (not on strip or chroma rows): merged is byte-identical to one-shot")
    func bandsMerge() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 5, width: 128, height: 96)
        try ok(["register", "-o", "\(folder)/t.json"] + frames)
        // 96 rows in 5 bands: 0:19, 19:38, 38:57, 57:76, 76:96 (odd starts: chroma rows
        // of Y, Cb, Cr shared across bands); JPEG 8-bit, and a 16-bit PNG output.
        for (mode, output, extra) in [("median", "jpg", []), ("sigma-clip", "jpg", []), ("median", "png", ["--depth", "16"])] {
            let name = "\(mode)-\(output)"
            for i in 0..<5 {
                try ok(["--mode", mode, "--transforms", "\(folder)/t.json", "--rows", "\(i)/5",
                        "--partial", "\(folder)/\(name)-\(i).fits"] + extra + frames)
            }
            try ok(["--mode", mode, "--transforms", "\(folder)/t.json", "-o", "\(folder)/\(name)-one.\(output)"] + extra + frames)
            try ok(["merge", "-o", "\(folder)/\(name)-merged.\(output)"] + [2, 0, 4, 3, 1].map { "\(folder)/\(name)-\($0).fits" })
            #expect(try bytes("\(folder)/\(name)-merged.\(output)") == bytes("\(folder)/\(name)-one.\(output)"), "\(name)")
        }
    }

    @Test("merged pieces carry the reference's ICC profile, XMP, IPTC and FITS keywords and the shards' transfer curve: bands give the one-shot file byte for byte")
    func metadataCarried() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 4, width: 128, height: 96)
        let xmp = HandMadeMetadata.xmpPacket(orientation: 1, asElement: false)
        let iptc = HandMadeMetadata.iptcBlock([(5, "shard test"), (80, "stack")])
        let reference = [UInt8](try bytes(frames[0]))
        let segments: [(marker: UInt8, payload: [UInt8])] = HandMadeMetadata.iccPieces(ColourProfile.displayP3.bytes).map { (0xE2, $0) }
            + [(0xE1, HandMadeMetadata.xmpSegment(xmp)), (0xED, HandMadeMetadata.photoshopSegment(iptc: iptc))]
        try Data(HandMadeMetadata.inserting(segments, intoJPEG: reference)).write(to: URL(fileURLWithPath: frames[0]))
        try ok(["register", "--mode", "median", "-o", "\(folder)/t.json"] + frames)
        for i in 0..<3 {
            try ok(["--mode", "median", "--transforms", "\(folder)/t.json", "--rows", "\(i)/3", "--partial", "\(folder)/b-\(i).fits"] + frames)
        }
        try ok(["--mode", "median", "--transforms", "\(folder)/t.json", "-o", "\(folder)/one.jpg"] + frames)
        try ok(["merge", "-o", "\(folder)/merged.jpg"] + (0..<3).map { "\(folder)/b-\($0).fits" })
        #expect(try bytes("\(folder)/merged.jpg") == bytes("\(folder)/one.jpg"))
        let merged = try ImageFile.read("\(folder)/merged.jpg")
        #expect(merged.iccProfile == ColourProfile.displayP3.bytes)
        #expect(merged.xmp != nil && merged.iptc != nil)

        // Partial sums carry the same (their pixels differ from the one-shot's by rounding).
        try ok(["--transforms", "\(folder)/t.json", "--frames", "0:2", "--partial", "\(folder)/s-0.fits"] + frames)
        try ok(["--transforms", "\(folder)/t.json", "--frames", "2:4", "--partial", "\(folder)/s-1.fits"] + frames)
        try ok(["merge", "-o", "\(folder)/sums.jpg", "\(folder)/s-0.fits", "\(folder)/s-1.fits"])
        let one = try ImageFile.read("\(folder)/one.jpg"), sums = try ImageFile.read("\(folder)/sums.jpg")
        #expect(sums.iccProfile == one.iccProfile && sums.xmp == one.xmp && sums.iptc == one.iptc)

        // 16-bit FITS frames with keywords, stacked with --transfer srgb:
        // a FITS output keeps the keywords, a PNG the curve (the shards are
        // given the 16-bit depth the one-shot run takes from the reference).
        let keywords = [FITSKeyword(name: "EXPTIME", value: "30.0", kind: .float),
                        FITSKeyword(name: "OBJECT", value: "M 42", kind: .string)]
        let fits = try frames.enumerated().map { i, path in
            let out = "\(folder)/f\(i).fits"
            try ImageFile.write(try ImageFile.read(path).image, to: out, options: EncodeOptions(bitDepth: 16, keywords: keywords))
            return out
        }
        try ok(["register", "--mode", "median", "-o", "\(folder)/tf.json"] + fits)
        for output in ["fits", "png"] {
            for i in 0..<2 {
                try ok(["--mode", "median", "--transfer", "srgb", "--depth", "16", "--transforms", "\(folder)/tf.json", "--rows", "\(i)/2",
                        "--partial", "\(folder)/fb-\(output)-\(i).fits"] + fits)
            }
            try ok(["--mode", "median", "--transfer", "srgb", "--transforms", "\(folder)/tf.json", "-o", "\(folder)/fone.\(output)"] + fits)
            try ok(["merge", "-o", "\(folder)/fmerged.\(output)", "\(folder)/fb-\(output)-0.fits", "\(folder)/fb-\(output)-1.fits"])
            #expect(try bytes("\(folder)/fmerged.\(output)") == bytes("\(folder)/fone.\(output)"), "\(output)")
        }
        #expect(try ImageFile.read("\(folder)/fmerged.fits").keywords.map(\.name).contains("EXPTIME"))
    }

    @Test("merge refuses missing, duplicated and mismatched pieces, naming the file; a failed shard leaves nothing")
    func refusals() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 4, width: 64, height: 48)
        try ok(["register", "-o", "\(folder)/t.json"] + frames)
        func part(_ name: String, _ extra: [String]) throws {
            try ok(["--transforms", "\(folder)/t.json", "--partial", "\(folder)/\(name).fits"] + extra + frames)
        }
        try part("a", ["--frames", "0:2"])
        try part("b", ["--frames", "2:4"])
        try part("over", ["--frames", "1:4"])
        try part("cubic", ["--frames", "2:4", "--interpolation", "cubic"])
        try part("band0", ["--rows", "0/2", "--mode", "median"])
        let cases: [([String], String, String)] = [
            (["a"], "a", "no piece holds the frames 2:4"),
            (["a", "a"], "a", "named twice"),
            (["a", "over"], "over", "overlap those of"),
            (["a", "cubic"], "cubic", "other options than"),
            (["a", "band0"], "band0", "it holds a row band"),
            (["band0"], "band0", "band 1 of 2 is missing"),
        ]
        for (pieces, named, what) in cases {
            let run = try CLIHarness.run(["merge", "-o", "\(folder)/out.png"] + pieces.map { "\(folder)/\($0).fits" })
            #expect(run.status == 1, "\(pieces)")
            #expect(run.stderr.hasPrefix("stack: error: \(folder)/\(named).fits: "), "\(pieces): \(run.stderr)")
            #expect(run.stderr.contains(what), "\(pieces): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/out.png"))
        }
        // Another grid: a shard of frames of another size.
        try FileManager.default.createDirectory(atPath: "\(folder)/small", withIntermediateDirectories: true)
        let small = try CLIHarness.makeBurst(in: "\(folder)/small", frames: 4, width: 48, height: 32)
        try ok(["--frames", "2:4", "--partial", "\(folder)/small.fits"] + small)
        let grid = try CLIHarness.run(["merge", "-o", "\(folder)/out.png", "\(folder)/a.fits", "\(folder)/small.fits"])
        #expect(grid.status == 1 && grid.stderr.contains("small.fits: a piece of another grid"), "\(grid.stderr)")
        // A shard that fails (a frame cut short) writes no piece.
        let broken = "\(folder)/broken.jpg"
        let whole = try bytes(frames[1])
        try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: broken))
        let failed = try CLIHarness.run(["--partial", "\(folder)/failed.fits", "--frames", "0:2", frames[0], broken] + frames[2...])
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/failed.fits"))
        #expect(!CLIHarness.listing(folder).contains { $0.contains(".stack-") }, "a temporary file was left")
        // Usage errors: a robust mode without --rows, --rows without --partial.
        #expect(try CLIHarness.run(["--mode", "median", "--partial", "\(folder)/x.fits"] + frames).status == 2)
        #expect(try CLIHarness.run(["--rows", "0/2", "-o", "\(folder)/x.png"] + frames).status == 2)
    }
}
