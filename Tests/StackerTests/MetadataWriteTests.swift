import Foundation
import Testing
import Registration
import SceneGen
import TestSupport
@testable import Stacker

/// The writing side of colour profiles and metadata (issue 24): what the
/// reference carries (`CarriedMetadata` → `EncodeOptions`) ends up, byte
/// for byte, in JPEG, PNG, TIFF and HEIC outputs. Every file is read back by
/// parsing it here (JPEG segments, PNG chunks, TIFF directories, libheif's
/// `colr` box) and, where it is installed, by `exiftool` (Debian package
/// libimage-exiftool-perl, which `make deps` installs).
@Suite("Metadata writing")
struct MetadataWriteTests {
    // MARK: Fixtures

    /// `Tests/Fixtures/icc/<name>`, made by `make_display_p3.py` there.
    static func profile(_ name: String) throws -> [UInt8] {
        let path = TestFiles.packageRoot + "/Tests/Fixtures/icc/" + name
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The 596-byte Display P3 profile (one JPEG segment).
    static var smallP3: [UInt8] { get throws { try profile("display-p3.icc") } }
    /// The 197 144-byte Display P3 profile (four JPEG segments).
    static var largeP3: [UInt8] { get throws { try profile("display-p3-large.icc") } }

    static let xmp = Array("""
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">\
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
        xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Harbour at dusk\
        </rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """.utf8)

    /// IPTC-IIM: record 2 version, then 2:120 Caption-Abstract (odd length,
    /// so the 8BIM resource needs its padding byte).
    static let iptc: [UInt8] = {
        let caption = Array("Stacked harbour".utf8)
        return [0x1C, 0x02, 0x00, 0x00, 0x02, 0x00, 0x04,
                0x1C, 0x02, 0x78, 0x00, UInt8(caption.count)] + caption
    }()

    /// A little-endian EXIF TIFF block as a camera writes it: IFD0 with
    /// Make, Model, Orientation 1, ImageWidth/ImageLength (SHORT) and the
    /// EXIF IFD pointer; the EXIF IFD with exposure, f-number, ISO, date,
    /// focal length, lens model and PixelXDimension (SHORT) /
    /// PixelYDimension (LONG), all stating the stored size `width` × `height`.
    static func cameraEXIF(width: Int, height: Int) -> [UInt8] {
        typealias Entry = (tag: Int, type: Int, count: Int, value: [UInt8])
        func short(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func long(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        func ascii(_ s: String) -> (Int, [UInt8]) { let b = Array(s.utf8) + [0]; return (b.count, b) }
        func rational(_ n: Int, _ d: Int) -> [UInt8] { long(n) + long(d) }
        let make = ascii("Canon"), model = ascii("EOS R6"), date = ascii("2026:12:05 21:14:03")
        let lens = ascii("RF24-105mm F4 L IS USM")
        let ifd0: [Entry] = [(0x0100, 3, 1, short(width)), (0x0101, 3, 1, short(height)),
                             (0x010F, 2, make.0, make.1), (0x0110, 2, model.0, model.1),
                             (0x0112, 3, 1, short(1)), (0x0132, 2, date.0, date.1),
                             (0x8769, 4, 1, long(0))]
        let exifIFD: [Entry] = [(0x829A, 5, 1, rational(1, 125)), (0x829D, 5, 1, rational(28, 10)),
                                (0x8827, 3, 1, short(400)), (0x9003, 2, date.0, date.1),
                                (0x920A, 5, 1, rational(50, 1)), (0xA002, 3, 1, short(width)),
                                (0xA003, 4, 1, long(height)), (0xA434, 2, lens.0, lens.1)]
        // Layout: header, IFD0, its values, the EXIF IFD, its values.
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + long(8)
        func write(_ entries: [Entry], at start: Int, patchExif: Int? = nil) -> Int {
            let valuesStart = start + 2 + 12 * entries.count + 4
            var values: [UInt8] = []
            var ifd = short(entries.count)
            for e in entries {
                var field = e.value
                if e.tag == 0x8769, let patchExif { field = long(patchExif) }
                ifd += short(e.tag) + short(e.type) + long(e.count)
                if field.count <= 4 {
                    ifd += field + [UInt8](repeating: 0, count: 4 - field.count)
                } else {
                    ifd += long(valuesStart + values.count)
                    values += field
                    if values.count % 2 == 1 { values.append(0) }
                }
            }
            out += ifd + long(0) + values
            return out.count
        }
        // IFD0's values have a known size, so the EXIF IFD's offset is known first.
        let ifd0Values = ifd0.filter { $0.value.count > 4 }.reduce(0) { $0 + ($1.value.count + 1) / 2 * 2 }
        let exifStart = 8 + 2 + 12 * ifd0.count + 4 + ifd0Values
        _ = write(ifd0, at: 8, patchExif: exifStart)
        #expect(out.count == exifStart)
        _ = write(exifIFD, at: exifStart)
        return out
    }

    static func folder(_ name: String) throws -> String { try TestFiles.temporaryFolder("meta-" + name) }

    // MARK: Reading the files back, here

    /// The marker segments of a JPEG before its scan data: (marker, payload).
    static func jpegSegments(_ b: [UInt8]) -> [(marker: UInt8, payload: [UInt8])] {
        var found: [(UInt8, [UInt8])] = []
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF, b[i + 1] != 0xDA {
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { break }
            found.append((b[i + 1], Array(b[(i + 4)..<(i + 2 + length)])))
            i += 2 + length
        }
        return found
    }

    /// The ICC profile reassembled from a JPEG's APP2 segments (in the
    /// order of their sequence numbers), and how many there were.
    static func jpegICC(_ b: [UInt8]) -> (profile: [UInt8], segments: Int)? {
        let header = JPEGMetadataSegments.iccHeader
        let pieces = jpegSegments(b).filter { $0.marker == 0xE2 && $0.payload.starts(with: header) }
        guard !pieces.isEmpty else { return nil }
        let counts = Set(pieces.map { $0.payload[header.count + 1] })
        guard counts == [UInt8(pieces.count)] else { return nil }
        let ordered = pieces.sorted { $0.payload[header.count] < $1.payload[header.count] }
        guard ordered.map({ Int($0.payload[header.count]) }) == Array(1...pieces.count) else { return nil }
        return (ordered.flatMap { $0.payload.dropFirst(header.count + 2) }, pieces.count)
    }

    /// The chunks of a PNG: (type, data).
    static func pngChunks(_ b: [UInt8]) -> [(type: String, data: [UInt8])] {
        var found: [(String, [UInt8])] = []
        var i = 8
        while i + 12 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard i + 12 + length <= b.count else { break }
            found.append((String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self), Array(b[(i + 8)..<(i + 8 + length)])))
            i += 12 + length
        }
        return found
    }

    /// The value bytes of `tag` in the TIFF directory at `ifd`, or nil.
    static func tiffValue(_ file: [UInt8], tag: Int, ifd: Int? = nil) -> [UInt8]? {
        guard let reader = TIFFReader(file), let start = ifd ?? reader.u32(4),
              let entry = reader.entries(ofIFDAt: start).first(where: { $0.tag == tag }) else { return nil }
        let size = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 10: 8][entry.type] ?? 1
        guard let at = reader.valueOffset(entry, elementSize: size) else { return nil }
        return Array(file[at..<(at + entry.count * size)])
    }

    /// The unsigned value of `tag` in the directory at `ifd` (IFD0 when nil).
    static func tiffNumber(_ file: [UInt8], tag: Int, ifd: Int? = nil) -> Int? {
        guard let reader = TIFFReader(file), let start = ifd ?? reader.u32(4),
              let entry = reader.entries(ofIFDAt: start).first(where: { $0.tag == tag }) else { return nil }
        return reader.unsigned(entry)
    }

    /// The chroma format (1 = 4:2:0, 3 = 4:4:4) and luma bit depth a HEIC
    /// file's HEVC configuration (`hvcC` box) states, or nil.
    static func hevcConfiguration(_ b: [UInt8]) -> (chroma: Int, lumaBits: Int)? {
        let type = Array("hvcC".utf8)
        guard let at = (4..<max(4, b.count - 24)).first(where: { b[$0..<($0 + 4)].elementsEqual(type) }) else { return nil }
        let p = at + 4  // version, profile (1 + 1 + 4 + 6 bytes), level, segmentation (2), parallelism, chroma, bit depths
        return (Int(b[p + 16] & 3), Int(b[p + 17] & 7) + 8)
    }

    // MARK: Reading the files back, with other tools

    /// The path of `name` when installed.
    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `tool` with `arguments`; its standard output.
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw StackerError.writeFailed(path: tool, reason: "exited with \(p.terminationStatus) for \(arguments)")
        }
        return data
    }

    /// `exiftool -s -s -s -TAG…` of `file`: one value per line, in order.
    static func exiftool(_ file: String, _ tags: [String]) throws -> [String]? {
        guard let tool = tool("exiftool") else { return nil }
        let text = String(decoding: try run(tool, ["-s", "-s", "-s", "-n"] + tags.map { "-" + $0 } + [file]), as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }

    /// The ICC profile exiftool extracts from `file`, byte for byte.
    static func exiftoolICC(_ file: String) throws -> [UInt8]? {
        guard let tool = tool("exiftool") else { return nil }
        return [UInt8](try run(tool, ["-b", "-ICC_Profile", file]))
    }

    // MARK: EXIF dimensions

    @Test("EXIF.withDimensions sets ImageWidth/Length and PixelX/YDimension, widens a SHORT that cannot hold the size, and changes nothing else")
    func exifDimensions() throws {
        let original = Self.cameraEXIF(width: 6000, height: 4000)
        let fields = EXIFFields(tiff: original)
        #expect(fields.pixelX == 6000 && fields.pixelY == 4000 && fields.iso == 400 && fields.make == "Canon")

        let rewritten = EXIF.withDimensions(original, width: 4000, height: 6000)
        let after = EXIFFields(tiff: rewritten)
        #expect(after.pixelX == 4000 && after.pixelY == 6000)
        #expect(Self.tiffNumber(rewritten, tag: 0x0100) == 4000 && Self.tiffNumber(rewritten, tag: 0x0101) == 6000)
        // Everything but the four values is the same, byte for byte.
        var changed = [Int]()
        for k in original.indices where original[k] != rewritten[k] { changed.append(k) }
        #expect(changed.count <= 8, "bytes changed at \(changed)")
        #expect(rewritten.count == original.count)
        var unchanged = after
        unchanged.pixelX = 6000; unchanged.pixelY = 4000
        #expect(unchanged == fields)

        // 70 000 does not fit the SHORT entries: they become LONGs.
        let wide = EXIF.withDimensions(original, width: 70_000, height: 3)
        #expect(EXIFFields(tiff: wide).pixelX == 70_000)
        #expect(Self.tiffNumber(wide, tag: 0x0100) == 70_000 && Self.tiffNumber(wide, tag: 0x0101) == 3)

        // forOutput also sets the orientation to 1, and only that besides the sizes.
        let turned = IOFixtures.tiff(orientation: 6, littleEndian: true)
        #expect(EXIF.orientation(tiffFile: EXIF.forOutput(turned, width: 5, height: 5)) == 1)
        #expect(EXIF.forOutput(turned, width: 5, height: 5) == EXIF.forOutput(EXIF.read(jpeg: IOFixtures.splicingAPP1(
            EXIF.header + turned, into: try ImageFile.encode(IOFixtures.smooth(width: 8, height: 8, channels: 1, seed: 2),
                                                             format: .jpeg))).tiff!, width: 5, height: 5))
        #expect(EXIF.forOutput(original, width: 4000, height: 6000) == rewritten)

        // A block without an EXIF IFD, a malformed one and garbage come back as they were.
        let plain = IOFixtures.tiff(orientation: 1, littleEndian: false)
        #expect(EXIF.withDimensions(plain, width: 10, height: 10) == plain)
        let truncated = Array(original.prefix(30))
        #expect(EXIF.withDimensions(truncated, width: 10, height: 10).count == 30)
        #expect(EXIF.withDimensions([1, 2, 3], width: 10, height: 10) == [1, 2, 3])
    }

    // MARK: JPEG

    @Test("JPEG output: APP1 EXIF, APP1 XMP, APP2 ICC (one segment, and four for a 197 KB profile), APP13 IPTC, in that order, byte for byte; the same bytes strip-parallel or not")
    func jpegSegments() throws {
        let image = IOFixtures.smooth(width: 64, height: 48, channels: 3, seed: 3)
        for (name, profile, expectedSegments) in [("small", try Self.smallP3, 1), ("large", try Self.largeP3, 4)] {
            var options = EncodeOptions(quality: 92, exif: Self.cameraEXIF(width: 64, height: 48))
            options.iccProfile = profile
            options.xmp = Self.xmp
            options.iptc = Self.iptc
            let jpeg = try ImageFile.encode(image, format: .jpeg, options: options)
            let segments = Self.jpegSegments(jpeg)
            // Our four kinds come first, in the documented order; then TurboJPEG's APP0.
            let kinds = segments.prefix(3 + expectedSegments).map { s -> String in
                if s.marker == 0xE1 && s.payload.starts(with: EXIF.header) { return "exif" }
                if s.marker == 0xE1 && s.payload.starts(with: JPEGMetadataSegments.xmpHeader) { return "xmp" }
                if s.marker == 0xE2 && s.payload.starts(with: JPEGMetadataSegments.iccHeader) { return "icc" }
                if s.marker == 0xED && s.payload.starts(with: JPEGMetadataSegments.photoshopHeader) { return "iptc" }
                return "other"
            }
            #expect(kinds == ["exif", "xmp"] + Array(repeating: "icc", count: expectedSegments) + ["iptc"], "\(name)")
            let icc = try #require(Self.jpegICC(jpeg))
            #expect(icc.segments == expectedSegments)
            #expect(icc.profile == profile, "\(name): the reassembled profile differs")
            #expect(segments[1].payload.dropFirst(JPEGMetadataSegments.xmpHeader.count).elementsEqual(Self.xmp))
            // APP13: Photoshop 3.0, 8BIM 0x0404, empty name, size, data, padding.
            let app13 = segments[2 + expectedSegments].payload.dropFirst(JPEGMetadataSegments.photoshopHeader.count)
            let resource = Array(app13)
            #expect(resource.starts(with: Array("8BIM".utf8) + [0x04, 0x04, 0, 0]))
            let size = resource[8..<12].reduce(0) { $0 << 8 | Int($1) }
            #expect(size == Self.iptc.count)
            #expect(resource[12..<(12 + size)].elementsEqual(Self.iptc))
            #expect(resource.count == 12 + size + size % 2)
            // The pixels are untouched.
            let decoded = try ImageFile.decode(bytes: jpeg)
            #expect(ImageMetrics.psnr(decoded.image, image) > 35)

            let folder = try Self.folder("jpeg")
            defer { TestFiles.remove(folder) }
            let path = folder + "/out.jpg"
            try ImageFile.write(image, to: path, options: options)
            if let tags = try Self.exiftool(path, ["ProfileDescription", "Title", "Caption-Abstract", "Make", "ISO"]) {
                #expect(tags == ["Display P3", "Harbour at dusk", "Stacked harbour", "Canon", "400"], "\(name): exiftool read \(tags)")
                #expect(try Self.exiftoolICC(path) == profile)
            }
        }

        // A 2 MP image goes through JPEGStrips: the same bytes on 1 and 3 threads, segments included.
        let big = IOFixtures.smooth(width: 1800, height: 1200, channels: 3, seed: 4)
        var options = EncodeOptions(quality: 95, exif: Self.cameraEXIF(width: 1800, height: 1200), threads: 1)
        options.iccProfile = try Self.largeP3
        options.xmp = Self.xmp
        options.iptc = Self.iptc
        let one = try ImageFile.encode(big, format: .jpeg, options: options)
        options.threads = 3
        let three = try ImageFile.encode(big, format: .jpeg, options: options)
        #expect(one == three)
        #expect(Self.jpegICC(three)?.profile == options.iccProfile)
        #expect(Self.jpegSegments(three).contains { $0.marker == 0xDD }, "no restart interval: the strip path did not run")
    }

    @Test("JPEG output drops an XMP or IPTC block too large for one segment, and still writes the image and the rest")
    func jpegOversizedBlocks() throws {
        let image = IOFixtures.smooth(width: 32, height: 32, channels: 3, seed: 5)
        var options = EncodeOptions(quality: 90)
        options.xmp = [UInt8](repeating: 0x20, count: 65_505)  // one byte over
        options.iptc = [UInt8](repeating: 0x1C, count: 65_507)  // one byte over, with its padding
        options.iccProfile = try Self.smallP3
        let jpeg = try ImageFile.encode(image, format: .jpeg, options: options)
        let segments = Self.jpegSegments(jpeg)
        #expect(!segments.contains { $0.marker == 0xE1 || $0.marker == 0xED })
        #expect(Self.jpegICC(jpeg)?.profile == options.iccProfile)
        // An ICC profile is split into 65 519-byte pieces, at most 255 of them.
        let chunk = JPEGMetadataSegments.iccChunkSize
        #expect(chunk == 65_519)
        let split = JPEGMetadataSegments.iccSegments([UInt8](repeating: 9, count: 2 * chunk + 1))
        #expect(Self.jpegICC([0xFF, 0xD8] + split + [0xFF, 0xDA])?.segments == 3)
        #expect(JPEGMetadataSegments.iccSegments([UInt8](repeating: 9, count: 255 * chunk)).count == 255 * chunk + 255 * 18)
        #expect(JPEGMetadataSegments.iccSegments([UInt8](repeating: 9, count: 255 * chunk + 1)).isEmpty)
        // The largest that fit are kept.
        options.xmp = [UInt8](repeating: 0x20, count: 65_504)
        options.iptc = [UInt8](repeating: 0x1C, count: 65_506)
        let fits = Self.jpegSegments(try ImageFile.encode(image, format: .jpeg, options: options))
        #expect(fits.filter { $0.marker == 0xE1 }.count == 1 && fits.filter { $0.marker == 0xED }.count == 1)
    }

    // MARK: PNG

    @Test("PNG output: iCCP (the identical profile), eXIf with orientation 1 and the output's size, iTXt XML:com.adobe.xmp")
    func pngChunks() throws {
        let image = IOFixtures.smooth(width: 40, height: 30, channels: 3, seed: 6)
        let folder = try Self.folder("png")
        defer { TestFiles.remove(folder) }
        for depth in [8, 16] {
            var options = EncodeOptions(bitDepth: depth, exif: Self.cameraEXIF(width: 3000, height: 4000))
            options.iccProfile = try Self.smallP3
            options.xmp = Self.xmp
            let path = folder + "/out\(depth).png"
            try ImageFile.write(image, to: path, options: options)
            let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let chunks = Self.pngChunks(png)
            let iccp = try #require(chunks.first { $0.type == "iCCP" })
            #expect(iccp.data.starts(with: Array("ICC Profile".utf8) + [0, 0]))  // name, NUL, deflate
            let exif = try #require(chunks.first { $0.type == "eXIf" }).data
            #expect(EXIF.orientation(png: png) == 1)
            #expect(EXIFFields(tiff: exif).pixelX == 40 && EXIFFields(tiff: exif).pixelY == 30)
            #expect(Self.tiffNumber(exif, tag: 0x0100) == 40 && Self.tiffNumber(exif, tag: 0x0101) == 30)
            let itxt = try #require(chunks.first { $0.type == "iTXt" }).data
            let key = Array("XML:com.adobe.xmp".utf8)
            // keyword, NUL, compression flag 0, method 0, empty language, NUL, empty translated keyword, NUL, text.
            #expect(itxt == key + [0, 0, 0, 0, 0] + Self.xmp)
            // The pixels are untouched.
            #expect(try ImageFile.read(path).image.planes.map(\.pixels) ==
                    ImageFile.decode(bytes: try ImageFile.encode(image, format: .png, options: EncodeOptions(bitDepth: depth))).image.planes.map(\.pixels))
            let tags = try Self.exiftool(path, ["ProfileDescription", "Orientation", "ExifImageWidth", "ExifImageHeight", "Make", "Title"])
            if let tags {
                #expect(tags == ["Display P3", "1", "40", "30", "Canon", "Harbour at dusk"], "exiftool read \(tags)")
                #expect(try Self.exiftoolICC(path) == options.iccProfile)
            } else {
                throw StackerError.invalidInput(path: "exiftool", reason: "not installed (apt-get install libimage-exiftool-perl): the iCCP profile cannot be inflated here")
            }
        }
        // An RGB profile on a gray image is left out (libpng refuses the pair), the image still written.
        var options = EncodeOptions()
        options.iccProfile = try Self.smallP3
        let gray = try ImageFile.encode(IOFixtures.smooth(width: 8, height: 8, channels: 1, seed: 1), format: .png, options: options)
        #expect(!Self.pngChunks(gray).contains { $0.type == "iCCP" })
        #expect(try ImageFile.decode(bytes: gray).image.channels == 1)
    }

    // MARK: TIFF

    @Test("TIFF output: tags 34675 (identical ICC), 700 (XMP), 33723 (IPTC), Make/Model/DateTime and an EXIF IFD with exposure, ISO and the output's size")
    func tiffTags() throws {
        let image = IOFixtures.smooth(width: 50, height: 20, channels: 3, seed: 8)
        let folder = try Self.folder("tiff")
        defer { TestFiles.remove(folder) }
        for depth in [8, 16, 32] {
            var options = EncodeOptions(bitDepth: depth, exif: Self.cameraEXIF(width: 6000, height: 4000))
            options.iccProfile = try Self.largeP3
            options.xmp = Self.xmp
            options.iptc = Self.iptc
            let path = folder + "/out\(depth).tif"
            try ImageFile.write(image, to: path, options: options)
            let tiff = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(Self.tiffValue(tiff, tag: 34675) == options.iccProfile)
            #expect(Self.tiffValue(tiff, tag: 700) == Self.xmp)
            let iptc = try #require(Self.tiffValue(tiff, tag: 33723))
            #expect(iptc == Self.iptc)
            #expect(EXIF.orientation(tiffFile: tiff) == 1)
            // The main directory's EXIF entries and the EXIF directory it points at.
            let fields = EXIFFields(tiff: tiff)
            #expect(fields.make == "Canon" && fields.model == "EOS R6" && fields.dateTime == "2026:12:05 21:14:03")
            #expect(fields.pixelX == 50 && fields.pixelY == 20)
            // libtiff keeps EXIF rationals as single-precision floats: 7 digits.
            func close(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) <= 1e-6 * b } ?? false }
            #expect(fields.iso == 400 && close(fields.exposureTime, 1.0 / 125) && close(fields.fNumber, 2.8)
                    && close(fields.focalLength, 50))
            #expect(fields.dateTimeOriginal == "2026:12:05 21:14:03" && fields.lensModel == "RF24-105mm F4 L IS USM")
            // The pixels are untouched.
            let back = try ImageFile.read(path)
            #expect(back.bitDepth == depth && back.image.width == 50 && back.image.height == 20)
            #expect(back.image.planes.map(\.pixels) == (try ImageFile.decode(bytes: ImageFile.encode(image, format: .tiff, options: EncodeOptions(bitDepth: depth)))).image.planes.map(\.pixels))
            if let tags = try Self.exiftool(path, ["ProfileDescription", "Orientation", "ExifImageWidth", "ExifImageHeight",
                                                    "ISO", "FocalLength", "LensModel", "Title", "Caption-Abstract"]) {
                #expect(tags == ["Display P3", "1", "50", "20", "400", "50", "RF24-105mm F4 L IS USM", "Harbour at dusk", "Stacked harbour"],
                        "exiftool read \(tags)")
                #expect(try Self.exiftoolICC(path) == options.iccProfile)
            }
        }
        // Without metadata: no EXIF directory, no profile.
        let plain = try ImageFile.encode(image, format: .tiff, options: EncodeOptions(bitDepth: 8))
        #expect(Self.tiffValue(plain, tag: 34675) == nil && Self.tiffValue(plain, tag: 34665) == nil)
    }

    // MARK: HEIC

    @Test("HEIC output at quality 90 decodes with our reader and heif-convert, within a stated PSNR of the input, with the identical ICC profile and the EXIF")
    func heicRoundTrip() throws {
        let image = IOFixtures.smooth(width: 96, height: 64, channels: 3, seed: 9)
        let folder = try Self.folder("heic")
        defer { TestFiles.remove(folder) }
        var options = EncodeOptions(quality: 90, exif: Self.cameraEXIF(width: 96, height: 64))
        options.iccProfile = try Self.smallP3
        options.xmp = Self.xmp
        let path = folder + "/out.heic"
        try ImageFile.write(image, to: path, options: options)
        let decoded = try ImageFile.read(path)
        #expect(decoded.bitDepth == 8 && decoded.image.width == 96 && decoded.image.height == 64)
        #expect(decoded.iccProfile == options.iccProfile)
        let exif = try #require(decoded.exif)
        #expect(EXIFFields(tiff: exif).make == "Canon" && EXIFFields(tiff: exif).pixelX == 96)
        let psnr = ImageMetrics.psnr(decoded.image, image)
        print("HEIC q90 4:4:4 8-bit: \(psnr) dB against the input")
        #expect(psnr > 40, "\(psnr) dB")

        // libheif's own tool agrees with our reader.
        if let convert = Self.tool("heif-convert") {
            let png = folder + "/converted.png"
            _ = try Self.run(convert, [path, png])
            let theirs = try ImageFile.read(png).image
            let error = IOFixtures.error(theirs, decoded.image)
            print("HEIC q90: heif-convert against our reader: max \(error.max * 255) levels")
            #expect(error.max * 255 <= 1)
        }
        if let tags = try Self.exiftool(path, ["ProfileDescription", "Make", "ExifImageWidth", "Title"]) {
            #expect(tags == ["Display P3", "Canon", "96", "Harbour at dusk"], "exiftool read \(tags)")
            #expect(try Self.exiftoolICC(path) == options.iccProfile)
        }
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Self.hevcConfiguration(written)! == (3, 8), "quality 90: 4:4:4, 8-bit")
        // Quality is honoured: a lower quality gives a smaller file and a lower PSNR.
        options.quality = 50
        let low = try ImageFile.encode(image, format: .heif, options: options)
        #expect(Self.hevcConfiguration(low)! == (1, 8), "quality 50: 4:2:0")
        let lowPSNR = ImageMetrics.psnr(try ImageFile.decode(bytes: low).image, image)
        let size = try Data(contentsOf: URL(fileURLWithPath: path)).count
        print("HEIC q50 4:2:0: \(lowPSNR) dB, \(low.count) bytes against \(size) at q90")
        #expect(low.count < size && lowPSNR < psnr)
    }

    @Test("HEIC output at --depth 16 is 10-bit and reads back as 16-bit, finer than the 8-bit one; a gray image comes back gray in R, G and B")
    func heicTenBit() throws {
        let image = IOFixtures.smooth(width: 64, height: 64, channels: 3, seed: 10)
        let eightBytes = try ImageFile.encode(image, format: .heif, options: EncodeOptions(quality: 95, bitDepth: 8))
        let tenBytes = try ImageFile.encode(image, format: .heif, options: EncodeOptions(quality: 95, bitDepth: 16))
        #expect(Self.hevcConfiguration(eightBytes)! == (3, 8) && Self.hevcConfiguration(tenBytes)! == (3, 10))
        let low = try ImageFile.encode(image, format: .heif, options: EncodeOptions(quality: 60, bitDepth: 16))
        #expect(Self.hevcConfiguration(low)! == (1, 10), "quality 60 at depth 16: 4:2:0, 10-bit")
        #expect(try ImageFile.decode(bytes: low).bitDepth == 16)
        let eight = try ImageFile.decode(bytes: eightBytes)
        let ten = try ImageFile.decode(bytes: tenBytes)
        #expect(eight.bitDepth == 8 && ten.bitDepth == 16)
        let p8 = ImageMetrics.psnr(eight.image, image), p10 = ImageMetrics.psnr(ten.image, image)
        print("HEIC q95: 8-bit \(p8) dB, 10-bit \(p10) dB against the input")
        #expect(p10 > 40 && p8 > 40)
        // 10-bit samples: values off the 8-bit grid.
        let offGrid = ten.image.planes[1].pixels.filter { v in abs(v * 255 - (v * 255).rounded()) > 0.1 }.count
        #expect(offGrid > ten.image.planes[1].pixels.count / 2)

        let gray = IOFixtures.smooth(width: 32, height: 32, channels: 1, seed: 11)
        let back = try ImageFile.decode(bytes: ImageFile.encode(gray, format: .heif, options: EncodeOptions(quality: 95)))
        #expect(back.image.channels == 3)
        #expect(ImageMetrics.psnr(Image(width: 32, height: 32, planes: [back.image.planes[1]]), gray) > 40)
    }

    @Test("HEIC output refuses a quality outside 1…100 with a one-line error naming the file; .heic, .heif and .hif name the format")
    func heicBadInput() throws {
        let image = IOFixtures.smooth(width: 16, height: 16, channels: 3, seed: 12)
        #expect(ImageFormat.fromExtension(of: "a.HEIC") == .heif && ImageFormat.fromExtension(of: "a.hif") == .heif
                && ImageFormat.fromExtension(of: "a.heif") == .heif && ImageFormat.fromExtension(of: "a.avif") == nil)
        #expect(ImageFormat.heif.bitDepth(nearestTo: 32) == 16)
        let folder = try Self.folder("heic-bad")
        defer { TestFiles.remove(folder) }
        do {
            try ImageFile.write(image, to: folder + "/x.heic", options: EncodeOptions(quality: 0))
            Issue.record("quality 0 was accepted")
        } catch let error as StackerError {
            #expect("\(error)".contains("x.heic") && "\(error)".contains("quality") && !"\(error)".contains("\n"))
        }
        #expect(TestFiles.listing(folder).isEmpty, "a failed write left \(TestFiles.listing(folder))")
    }

    // MARK: End to end

    @Test("a Display P3 HEIC burst keeps the identical profile (596 B, and 197 KB: four JPEG segments) in JPEG, PNG, TIFF and HEIC outputs, and the EXIF with orientation 1 and the output's size",
          arguments: ["display-p3.icc", "display-p3-large.icc"])
    func burstKeepsProfile(profileName: String) throws {
        var config = SceneConfig.street
        config.width = 160; config.height = 120; config.frameCount = 4; config.seed = 31
        let scene = SceneGenerator.render(config)
        let folder = try Self.folder("burst")
        defer { TestFiles.remove(folder) }
        let profile = try Self.profile(profileName)
        // The burst, written by our HEIC encoder with the profile and a camera's EXIF.
        var options = EncodeOptions(quality: 95, exif: Self.cameraEXIF(width: 4000, height: 3000))
        options.iccProfile = profile
        let paths = try scene.frames.enumerated().map { k, frame -> String in
            let path = folder + "/frame\(k).heic"
            try ImageFile.write(frame, to: path, options: options)
            return path
        }
        var stackOptions = StackOptions()
        stackOptions.threads = 2
        let result = try stack(paths.map { FrameSource.path($0) }, options: stackOptions)
        #expect(result.metadata.iccProfile == profile)
        for ext in ["jpg", "png", "tif", "heic"] {
            let out = folder + "/stacked." + ext
            try result.write(to: out)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
            let written: [UInt8]?
            var exif: [UInt8]? = nil
            switch ext {
            case "jpg": written = Self.jpegICC(bytes)?.profile; exif = EXIF.payload(inJPEG: bytes)
            case "png": written = try Self.exiftoolICC(out); exif = Self.pngChunks(bytes).first { $0.type == "eXIf" }?.data
            case "tif": written = Self.tiffValue(bytes, tag: 34675); exif = bytes
            default: let d = try ImageFile.read(out); written = d.iccProfile; exif = d.exif
            }
            #expect(written == profile, "\(ext): the profile differs")
            let fields = EXIFFields(tiff: try #require(exif, "\(ext): no EXIF"))
            #expect(fields.pixelX == result.image.width && fields.pixelY == result.image.height, "\(ext): \(fields)")
            #expect(fields.make == "Canon", "\(ext)")
            if let tags = try Self.exiftool(out, ["ProfileDescription", "Orientation", "ExifImageWidth", "ExifImageHeight"]) {
                #expect(tags == ["Display P3", "1", "\(result.image.width)", "\(result.image.height)"], "\(ext): exiftool read \(tags)")
            }
        }
    }

    @Test("a stack's result writes the reference's XMP and IPTC into a JPEG, and its EXIF into PNG and TIFF, none of it into FITS")
    func resultCarriesEverything() throws {
        var config = SceneConfig.street
        config.width = 96; config.height = 64; config.frameCount = 3; config.seed = 5
        let scene = SceneGenerator.render(config)
        var options = StackOptions()
        options.threads = 2
        var result = try stack(scene.frames.map { FrameSource.image($0) }, options: options)
        result.metadata = CarriedMetadata(exif: Self.cameraEXIF(width: 4000, height: 3000), bitDepth: 8,
                                          iccProfile: try Self.smallP3, xmp: Self.xmp, iptc: Self.iptc)
        let jpeg = result.encodeOptions(for: "a.jpg")
        #expect(jpeg.exif != nil && jpeg.xmp == Self.xmp && jpeg.iptc == Self.iptc && jpeg.iccProfile != nil)
        for ext in ["png", "tif", "tiff", "heic"] {
            #expect(result.encodeOptions(for: "a." + ext).exif == result.metadata.exif, "\(ext)")
        }
        #expect(result.encodeOptions(for: "a.fits").exif == nil)
        let folder = try Self.folder("result")
        defer { TestFiles.remove(folder) }
        try result.write(to: folder + "/a.jpg")
        let segments = Self.jpegSegments([UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/a.jpg"))))
        #expect(segments.contains { $0.marker == 0xE1 && $0.payload.starts(with: JPEGMetadataSegments.xmpHeader) })
        #expect(segments.contains { $0.marker == 0xED })
        try result.write(to: folder + "/a.fits")
        #expect(try ImageFile.read(folder + "/a.fits").image.width == 96)
    }
}
