import Foundation
import Testing
import Registration
import SceneGen
@testable import Stacker

/// HEIF/AVIF images whose colour is an `nclx` box (H.273 code points), as
/// Android phones and AVIF encoders write them, instead of an ICC profile:
/// written by `avifenc` (Debian package libavif-bin, which `make deps`
/// installs) with `--cicp primaries/transfer/matrix`.
@Suite("HEIF nclx colour")
struct HEIFCodePointTests {
    static func avifenc(_ png: String, to output: String, cicp: String, extra: [String] = []) throws {
        try HEIFCodecTests.runEncoder("avifenc", package: "libavif-bin",
                                      arguments: ["-s", "10", "--min", "0", "--max", "10", "--cicp", cicp] + extra + [png, output],
                                      output: output)
    }

    @Test("Display P3, BT.2020 and sRGB nclx read as their profiles, XMP as its packet; PQ, which no matrix/shaper profile holds, as none; a P3 burst's output carries P3 and an sRGB frame among P3 ones is converted")
    func codePoints() throws {
        let folder = try HEIFCodecTests.folder("nclx")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var config = SceneConfig.street
        config.width = 96
        config.height = 64
        config.frameCount = 3
        config.seed = 21
        let scene = SceneGenerator.render(config)
        var pngs: [String] = []
        for (i, frame) in scene.frames.enumerated() {
            pngs.append("\(folder)/f\(i).png")
            try ImageFile.write(frame, to: pngs[i])
        }
        let cases: [(cicp: String, expected: [UInt8]?)] = [
            ("12/13/6", ColourProfile.displayP3.bytes),
            ("9/1/9", ColourProfile(chromaticities: .rec2020, transfer: .rec709)!.bytes),
            ("1/13/6", nil),
            ("9/16/9", nil),
        ]
        for (cicp, expected) in cases {
            let out = "\(folder)/one-\(cicp.replacingOccurrences(of: "/", with: "-")).avif"
            try Self.avifenc(pngs[0], to: out, cicp: cicp)
            #expect(try ImageFile.read(out).iccProfile == expected, "\(cicp)")
        }

        // An XMP packet travels as a `mime` item of type application/rdf+xml.
        let packet = Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'/></x:xmpmeta>".utf8)
        try Data(packet).write(to: URL(fileURLWithPath: "\(folder)/packet.xmp"))
        try Self.avifenc(pngs[0], to: "\(folder)/xmp.avif", cicp: "1/13/6", extra: ["--xmp", "\(folder)/packet.xmp"])
        #expect(try ImageFile.read("\(folder)/xmp.avif").xmp == packet)
        #expect(try ImageFile.read("\(folder)/one-12-13-6.avif").xmp == nil)

        var p3: [String] = []
        for (i, png) in pngs.enumerated() {
            p3.append("\(folder)/p3-\(i).avif")
            try Self.avifenc(png, to: p3[i], cicp: "12/13/6")
        }
        var options = StackOptions()
        options.threads = 2
        let burst = try stack(FrameSource.frames(in: p3), options: options)
        #expect(burst.metadata.iccProfile == ColourProfile.displayP3.bytes)
        #expect(burst.frames.allSatisfy { $0.colourConverted != true })

        let srgb = "\(folder)/srgb-1.avif"
        try Self.avifenc(pngs[1], to: srgb, cicp: "1/13/6")
        let mixed = try stack(FrameSource.frames(in: [p3[0], srgb, p3[2]]), options: options)
        #expect(mixed.metadata.iccProfile == ColourProfile.displayP3.bytes)
        #expect(mixed.frames.map { $0.colourConverted == true } == [false, true, false])
    }
}
