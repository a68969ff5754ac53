import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// ICC profiles, XMP packets and IPTC blocks read from JPEG, PNG and TIFF
/// files built byte by byte after the formats' specifications, and from
/// real files of Pillow's test suite (Tests/Fixtures/real).
@Suite("Embedded metadata: ICC, XMP and IPTC on reading")
struct EmbeddedMetadataTests {
    /// A small RGB image with some structure.
    static let image: Image = {
        var image = Image(width: 24, height: 16, channels: 3)
        for c in 0..<3 {
            for k in image.planes[c].pixels.indices { image.planes[c].pixels[k] = Float((k * (c + 5)) % 200 + 20) / 255 }
        }
        return image
    }()

    /// A profile-sized byte string that is not a real profile: reading
    /// carries bytes, it does not interpret them.
    static func fakeProfile(_ count: Int, seed: UInt8) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 * 31 + Int(seed)) } }

    static let xmp = HandMadeMetadata.xmpPacket(orientation: 1, asElement: false)
    static let iptc = HandMadeMetadata.iptcBlock([(5, "Harbour"), (25, "boats"), (25, "dusk")])

    @Test("a JPEG's ICC profile in 3 APP2 pieces (stored out of order), XMP and IPTC are read by ImageFile and by both 8-bit fast paths")
    func jpegAllThree() throws {
        let profile = Self.fakeProfile(150_000, seed: 3)
        let pieces = HandMadeMetadata.iccPieces(profile)
        #expect(pieces.count == 3)
        let jpeg = HandMadeMetadata.inserting(
            [(0xE2, pieces[2]), (0xE1, HandMadeMetadata.xmpSegment(Self.xmp)), (0xE2, pieces[0]),
             (0xED, HandMadeMetadata.photoshopSegment(iptc: Self.iptc, name: "IPTC")), (0xE2, pieces[1])],
            intoJPEG: try ImageFile.encode(Self.image, format: .jpeg))
        let decoded = try ImageFile.decode(bytes: jpeg, path: "a.jpg")
        #expect(decoded.iccProfile == profile)
        #expect(decoded.xmp == Self.xmp)
        #expect(decoded.iptc == Self.iptc)
        let dir = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(dir) }
        try Data(jpeg).write(to: URL(fileURLWithPath: dir + "/a.jpg"))
        for form in [DecodedFrame.Form.bytes, .ycbcr(factor: nil), .floats] {
            let frame = try DecodedFrame.read(FilePath(dir + "/a.jpg"), maxPixels: 1 << 20, form: form)
            #expect(frame.iccProfile == profile, "\(form)")
            #expect(frame.xmp == Self.xmp, "\(form)")
            #expect(frame.iptc == Self.iptc, "\(form)")
        }
    }

    @Test("malformed ICC pieces give no profile and the pixels still decode: a piece missing, repeated, numbered 0 or past the count, or counts that disagree")
    func jpegMalformedICC() throws {
        let plain = try ImageFile.encode(Self.image, format: .jpeg)
        let reference = try ImageFile.decode(bytes: plain).image
        let pieces = HandMadeMetadata.iccPieces(Self.fakeProfile(10_000, seed: 9), pieceSize: 4000)
        #expect(pieces.count == 3)
        func renumbered(_ piece: [UInt8], sequence: UInt8, count: UInt8) -> [UInt8] {
            var p = piece
            p[12] = sequence
            p[13] = count
            return p
        }
        let malformed: [String: [[UInt8]]] = [
            "missing": [pieces[0], pieces[2]],
            "repeated": [pieces[0], pieces[1], pieces[1]],
            "numbered 0": [renumbered(pieces[0], sequence: 0, count: 3), pieces[1], pieces[2]],
            "past the count": [pieces[0], pieces[1], renumbered(pieces[2], sequence: 4, count: 3)],
            "counts disagree": [pieces[0], renumbered(pieces[1], sequence: 2, count: 4), pieces[2]],
            "empty header only": [Array("ICC_PROFILE\0".utf8)],
        ]
        for (name, segments) in malformed {
            let jpeg = HandMadeMetadata.inserting(segments.map { (0xE2, $0) }, intoJPEG: plain)
            let decoded = try ImageFile.decode(bytes: jpeg, path: "\(name).jpg")
            #expect(decoded.iccProfile == nil, "\(name)")
            #expect(decoded.image.planes.map(\.pixels) == reference.planes.map(\.pixels), "\(name)")
        }
        // A Photoshop block whose resource size runs past the segment: no IPTC.
        var ps = HandMadeMetadata.photoshopSegment(iptc: Self.iptc)
        ps[ps.count - Self.iptc.count - 2] = 0x7F
        let jpeg = HandMadeMetadata.inserting([(0xED, ps)], intoJPEG: plain)
        #expect(try ImageFile.decode(bytes: jpeg).iptc == nil)
        // Every cut of a file with all three reads without a crash or over-read.
        let full = HandMadeMetadata.inserting(pieces.map { (0xE2, $0) } + [(0xED, HandMadeMetadata.photoshopSegment(iptc: Self.iptc))],
                                              intoJPEG: plain)
        for cut in stride(from: 0, to: full.count, by: 7) { _ = JPEGMetadata(Array(full[..<cut])) }
    }

    @Test("a PNG's iCCP (zlib) and XMP iTXt (plain and compressed) are read; past the 4 MiB cap a profile is dropped, not the image")
    func pngProfileAndXMP() throws {
        let plain = try ImageFile.encode(Self.image, format: .png)
        let profile = Self.fakeProfile(3000, seed: 1)
        for compressed in [false, true] {
            let png = HandMadePNG.inserting([("iCCP", HandMadeMetadata.iCCP(profile)),
                                             ("iTXt", HandMadeMetadata.xmpITXt(Self.xmp, compressed: compressed))],
                                            afterIHDROf: plain)
            let decoded = try ImageFile.decode(bytes: png, path: "a.png")
            #expect(decoded.iccProfile == profile)
            #expect(decoded.xmp == Self.xmp)
        }
        let huge = HandMadePNG.inserting([("iCCP", HandMadeMetadata.iCCP(Self.fakeProfile(EmbeddedMetadata.maxBytes + 1, seed: 2)))],
                                         afterIHDROf: plain)
        let decoded = try ImageFile.decode(bytes: huge, path: "huge.png")
        #expect(decoded.iccProfile == nil)
        #expect(decoded.image.planes.map(\.pixels) == Self.image.planes.map { $0.pixels.map { ($0 * 255).rounded() / 255 } })
        // A corrupt zlib stream (its checksum changed): no profile.
        var bad = HandMadeMetadata.iCCP(profile)
        bad[bad.count - 1] ^= 0xFF
        #expect(try ImageFile.decode(bytes: HandMadePNG.inserting([("iCCP", bad)], afterIHDROf: plain)).iccProfile == nil)
    }

    @Test("inflating stops at the limit it is given: a stream of limit + 1 bytes gives nil, one of limit bytes its bytes")
    func inflateLimit() throws {
        let data = Self.fakeProfile(200_000, seed: 4)
        let z = HandMadePNG.zlibStored(data)
        #expect(PNGCodec.inflate(z[...], limit: 200_000) == data)
        #expect(PNGCodec.inflate(z[...], limit: 199_999) == nil)
        #expect(PNGCodec.inflate(z.dropLast(9), limit: 1 << 20) == nil)  // truncated
    }

    @Test("a PNG's XMP tiff:Orientation (attribute and element) turns the image upright when there is no eXIf, and eXIf wins over it",
          arguments: [false, true])
    func pngXMPOrientation(asElement: Bool) throws {
        let plain = try ImageFile.encode(Self.image, format: .png)
        let upright = try ImageFile.decode(bytes: plain).image
        let xmp = HandMadeMetadata.xmpPacket(orientation: 6, asElement: asElement)
        #expect(XMPOrientation.read(xmp) == 6)
        let png = HandMadePNG.inserting([("iTXt", HandMadeMetadata.xmpITXt(xmp))], afterIHDROf: plain)
        let decoded = try ImageFile.decode(bytes: png, path: "x.png")
        #expect(decoded.orientation == 6)
        #expect(decoded.image.planes.map(\.pixels) == Orientation.apply(6, to: upright).planes.map(\.pixels))
        let dir = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(dir) }
        try Data(png).write(to: URL(fileURLWithPath: dir + "/x.png"))
        let header = try ImageFile.readHeader(dir + "/x.png")
        #expect(header.width == upright.height && header.height == upright.width)
        // An eXIf chunk saying 1 overrides the XMP's 6.
        let exif: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
        let both = HandMadePNG.inserting([("eXIf", exif), ("iTXt", HandMadeMetadata.xmpITXt(xmp))], afterIHDROf: plain)
        #expect(try ImageFile.decode(bytes: both).orientation == 1)
    }

    @Test("XMP orientation: out of range, two digits, another tag and a missing value give nil")
    func xmpOrientationEdges() {
        for text in ["tiff:Orientation=\"9\"", "tiff:Orientation=\"16\"", "tiff:OrientationX=\"6\"", "tiff:Orientation",
                     "<tiff:Orientation></tiff:Orientation>", "exif:Orientation=\"6\""] {
            #expect(XMPOrientation.read(Array(text.utf8)) == nil, "\(text)")
        }
        #expect(XMPOrientation.read(Array("<tiff:Orientation> 8 </tiff:Orientation>".utf8)) == 8)
        #expect(XMPOrientation.read(Array("tiff:Orientation = '3'".utf8)) == 3)
    }

    @Test("a PNG's cHRM + gAMA make an RGB profile of those primaries; an sRGB chunk, or iCCP, takes precedence")
    func pngColourChunks() throws {
        let plain = try ImageFile.encode(Self.image, format: .png)
        let c = Chromaticities.displayP3
        let chrm = [c.white, c.red, c.green, c.blue].flatMap { [$0.x, $0.y] }.flatMap { HandMadePNG.bigEndian32(Int(($0 * 100_000).rounded())) }
        let gama = HandMadePNG.bigEndian32(45455)
        let tagged = try ImageFile.decode(bytes: HandMadePNG.inserting([("gAMA", gama), ("cHRM", chrm)], afterIHDROf: plain))
        let profile = try #require(tagged.iccProfile)
        #expect(ColourProfile(bytes: profile).isReadableRGB)
        #expect(profile == ColourProfile(chromaticities: c, transfer: .gamma(100_000.0 / 45455))?.bytes)
        let srgb = try ImageFile.decode(bytes: HandMadePNG.inserting([("sRGB", [0]), ("gAMA", gama), ("cHRM", chrm)], afterIHDROf: plain))
        #expect(srgb.iccProfile == nil)
        let icc = Self.fakeProfile(500, seed: 5)
        let both = try ImageFile.decode(bytes: HandMadePNG.inserting([("iCCP", HandMadeMetadata.iCCP(icc)), ("cHRM", chrm)], afterIHDROf: plain))
        #expect(both.iccProfile == icc)
        #expect(try ImageFile.decode(bytes: plain).iccProfile == nil)
    }

    @Test("a PNG's cICP (H.273 code points) outranks iCCP and sRGB: Display P3 + sRGB curve gives the P3 profile, sRGB none; PQ is left to the other chunks")
    func pngCICP() throws {
        let plain = try ImageFile.encode(Self.image, format: .png)
        let icc = Self.fakeProfile(400, seed: 8)
        func profile(_ cicp: [UInt8], _ others: [(String, [UInt8])] = []) throws -> [UInt8]? {
            try ImageFile.decode(bytes: HandMadePNG.inserting([("cICP", cicp)] + others, afterIHDROf: plain)).iccProfile
        }
        #expect(try profile([12, 13, 0, 1]) == ColourProfile.displayP3.bytes)
        #expect(try profile([12, 13, 0, 1], [("iCCP", HandMadeMetadata.iCCP(icc))]) == ColourProfile.displayP3.bytes)
        #expect(try profile([1, 13, 0, 1], [("iCCP", HandMadeMetadata.iCCP(icc))]) == nil)
        #expect(try profile([9, 1, 0, 1]) == ColourProfile(chromaticities: .rec2020, transfer: .rec709)?.bytes)
        #expect(try profile([9, 16, 0, 1], [("iCCP", HandMadeMetadata.iCCP(icc))]) == icc)  // PQ
        #expect(try profile([12, 13, 0, 0]) == nil)  // narrow range: not expressed, nothing else says anything
    }

    @Test("a TIFF's tags 34675 (ICC), 700 (XMP) and 33723 (IPTC, as LONGs) are read; a tag running past the file is dropped")
    func tiffTags() throws {
        let layout = HandMadeTIFF(width: 4, height: 3, samplesPerPixel: 3, bits: 8, photometric: 2)
        let plain = layout.bytes(samples: (0..<3).map { c in (0..<12).map { UInt32($0 * 20 + c) } })
        let profile = Self.fakeProfile(700, seed: 6)
        var iptc = Self.iptc
        while iptc.count % 4 != 0 { iptc.append(0) }
        let tiff = HandMadeMetadata.addingFields([(34675, 7, profile), (700, 1, Self.xmp), (33723, 4, iptc)], toTIFF: plain)
        let decoded = try ImageFile.decode(bytes: tiff, path: "a.tif")
        #expect(decoded.iccProfile == profile)
        #expect(decoded.xmp == Self.xmp)
        #expect(decoded.iptc == iptc)
        #expect(decoded.image.planes.map(\.pixels) == (try ImageFile.decode(bytes: plain).image.planes.map(\.pixels)))
        var cut = tiff
        let entry = try #require(TIFFReader(tiff).flatMap { r in
            (0..<(r.u16(r.u32(4)!)!)).map { r.u32(4)! + 2 + 12 * $0 }.first { r.u16($0) == 34675 } })
        cut.replaceSubrange((entry + 4)..<(entry + 8), with: [0xFF, 0xFF, 0xFF, 0x00])  // count far past the file
        #expect(try ImageFile.decode(bytes: cut).iccProfile == nil)
    }

    @Test("real files from Pillow's tests: JPEGs with EXIF, XMP, ICC and IPTC, a PNG with iCCP, a TIFF with tag 34675")
    func realFiles() throws {
        let jpeg = try ImageFile.read(TestFiles.realFixtures + "/pil_sample_rgb.jpg")
        let png = try ImageFile.read(TestFiles.realFixtures + "/icc_profile.png")
        let tiff = try ImageFile.read(TestFiles.realFixtures + "/hopper.iccprofile.tif")
        for (name, profile) in [("jpeg", jpeg.iccProfile), ("png", png.iccProfile), ("tiff", tiff.iccProfile)] {
            let p = try #require(profile, "\(name)")
            // An ICC header: its size field is its length, and `acsp` at 36.
            #expect(p.count >= 128 && Int(p[0]) << 24 | Int(p[1]) << 16 | Int(p[2]) << 8 | Int(p[3]) == p.count, "\(name)")
            #expect(p[36..<40].elementsEqual(Array("acsp".utf8)), "\(name)")
            #expect(ColourProfile(bytes: p).isReadableRGB, "\(name)")
        }
        #expect(jpeg.exif != nil)
        #expect(jpeg.iptc == nil)  // its Photoshop block has 22 resources, none of them 0x0404
        #expect(jpeg.xmp.map { String(decoding: $0, as: UTF8.self).contains("x:xmpmeta") } == true)
        // Pillow's IptcImagePlugin test reads City (2:90) "Budapest" and
        // Country (2:101) "Hungary" from this file.
        let iptc = try #require(try ImageFile.read(TestFiles.realFixtures + "/iptc.jpg").iptc)
        #expect(Self.iimDataset(90, in: iptc) == "Budapest")
        #expect(Self.iimDataset(101, in: iptc) == "Hungary")
    }

    /// The text of the first record-2 dataset `number` in an IIM block.
    static func iimDataset(_ number: UInt8, in iim: [UInt8]) -> String? {
        var i = 0
        while i + 5 <= iim.count, iim[i] == 0x1C {
            let size = Int(iim[i + 3]) << 8 | Int(iim[i + 4])
            guard i + 5 + size <= iim.count else { return nil }
            if iim[i + 1] == 2, iim[i + 2] == number { return String(decoding: iim[(i + 5)..<(i + 5 + size)], as: UTF8.self) }
            i += 5 + size
        }
        return nil
    }
}
