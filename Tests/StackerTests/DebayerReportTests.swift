import Foundation
import Testing
@testable import Stacker
import TestSupport

/// The JSON report records how CFA mosaics became colour: `"debayer"` with
/// the method, the pattern and whether it came from the file or `--cfa`,
/// and the `--wb` choice; runs that debayer nothing have no such key.
@Suite("The report records the CFA options")
struct DebayerReportTests {
    /// The report of a 3-frame average of `paths` under `configure`, parsed.
    static func report(_ paths: [String], folder: String,
                       _ configure: (inout StackOptions) -> Void) throws -> (json: [String: Any], channels: Int) {
        var options = StackOptions()
        options.mode = .average
        options.alignment = .none
        options.threads = 2
        configure(&options)
        let result = try stack(paths.map { FrameSource.path($0) }, options: options)
        let text = result.report(output: folder + "/out.tif").json
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return (json, result.image.channels)
    }

    /// The `"debayer"` object's four fields, or nil when the key is absent.
    static func record(_ json: [String: Any]) -> [String: String]? {
        (json["debayer"] as? [String: Any])?.compactMapValues { $0 as? String }
    }

    @Test("DNG and Bayer FITS runs name method, pattern, its source and --wb; colour frames and --cfa none have no record")
    func recordsTheOptions() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let scene = RAWCodecTests.Scene(seed: 2571)
        let neutral: [Double] = [0.5, 1, 0.8]
        let dngs = try WhiteBalanceTests.burst(scene, shifts: [(0, 0), (0, 0), (0, 0)], response: neutral,
                                               asShot: [neutral, neutral, neutral], seed: 2572, in: folder)

        // The file's RGGB, RCD, grey-world balance: no as-shot multipliers.
        let a = try Self.report(dngs, folder: folder) { $0.debayer = .rcd; $0.whiteBalance = .auto }
        #expect(Self.record(a.json) == ["method": "rcd", "pattern": "RGGB", "patternSource": "file", "wb": "auto"])
        #expect(a.json["whiteBalance"] == nil && a.channels == 3)

        // --cfa overrides the file; --wb none.
        let b = try Self.report(dngs, folder: folder) {
            $0.cfa = .pattern(.grbg); $0.debayer = .bilinear; $0.whiteBalance = .none
        }
        #expect(Self.record(b.json) == ["method": "bilinear", "pattern": "GRBG", "patternSource": "option", "wb": "none"])
        #expect(b.channels == 3)

        // Defaults on a camera raw: bilinear, the file's pattern, the as-shot balance beside it.
        let c = try Self.report(dngs, folder: folder) { _ in }
        #expect(Self.record(c.json) == ["method": "bilinear", "pattern": "RGGB", "patternSource": "file", "wb": "camera"])
        #expect(c.json["whiteBalance"] != nil)

        // --cfa none: grey frames, no record.
        let d = try Self.report(dngs, folder: folder) { $0.cfa = .none }
        #expect(d.json["debayer"] == nil && d.channels == 1)

        // Bayer FITS (BAYERPAT = 'RGGB') with AHD; the same data without
        // BAYERPAT stays grey and has no record, unless --cfa names a pattern.
        let w = 64, h = 48
        let values = (0..<(w * h)).map { scene.value(BayerPattern.rggb.channel(x: $0 % w, y: $0 / w), Double($0 % w), Double($0 / w)) }
        let bayer = try (0..<3).map { try HandMadeFITS.writeCapture(values, width: w, to: folder + "/b\($0).fits", bayer: true) }
        let grey = try (0..<3).map { try HandMadeFITS.writeCapture(values, width: w, to: folder + "/g\($0).fits", bayer: false) }
        let e = try Self.report(bayer, folder: folder) { $0.debayer = .ahd }
        #expect(Self.record(e.json) == ["method": "ahd", "pattern": "RGGB", "patternSource": "file", "wb": "camera"])
        #expect(e.json["whiteBalance"] == nil && e.channels == 3)
        let f = try Self.report(grey, folder: folder) { _ in }
        #expect(f.json["debayer"] == nil && f.channels == 1)
        let g = try Self.report(grey, folder: folder) { $0.cfa = .pattern(.bggr); $0.debayer = .rcd }
        #expect(Self.record(g.json) == ["method": "rcd", "pattern": "BGGR", "patternSource": "option", "wb": "camera"])
    }
}
