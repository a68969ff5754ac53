import Foundation
import Testing
@testable import Stacker

/// Refusals by signature (`UnsupportedFormat`): what the file is, in one
/// line naming it, and never a decode of a raw's preview.
@Suite("Unsupported formats are named")
struct UnsupportedFormatTests {
    /// A little-endian TIFF header and IFD0 with `entries` (tag, type, count,
    /// value or offset), sorted as written, then `tail` bytes at offset
    /// 8 + 2 + 12·n + 4.
    static func tiff(_ entries: [(UInt16, UInt16, UInt32, UInt32)], tail: [UInt8] = [], cr2: Bool = false) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var b: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + u32(cr2 ? 16 : 8)
        if cr2 { b += [0x43, 0x52, 2, 0, 0, 0, 0, 0] }
        b += u16(UInt16(entries.count))
        for (tag, type, count, value) in entries { b += u16(tag) + u16(type) + u32(count) + u32(value) }
        b += u32(0) + tail
        return b
    }

    static func reason(_ bytes: [UInt8]) -> String? {
        do { _ = try ImageFile.decode(bytes: bytes, path: "x.raw"); return nil } catch let e as StackerError {
            #expect(e.path == "x.raw")
            return e.reason
        } catch { return "\(error)" }
    }

    @Test("JPEG XL (bare and boxed), gzip and the raw families with a signature of their own are named")
    func signatures() {
        let jxlBox: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0, 0, 0x14]
        #expect(Self.reason([0xFF, 0x0A, 0xFA, 0x7F, 1, 2, 3, 4]) == "JPEG XL is not supported yet: convert it first (djxl)")
        #expect(Self.reason(jxlBox) == "JPEG XL is not supported yet: convert it first (djxl)")
        #expect(Self.reason([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]) == "a gzip-compressed file, not an image: gunzip it first")
        // Raws go to LibRaw, which cannot read these few bytes: refused
        // naming the family (LibRaw's own reason follows in brackets).
        let raw = { (name: String) in "camera raw (\(name)) that LibRaw cannot read (" }
        #expect(Self.reason([0, 0, 0, 0x18] + Array("ftypcrx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8))?.hasPrefix(raw("Canon CR3")) == true)
        #expect(Self.reason(Array("FUJIFILMCCD-RAW 0201FF383501".utf8))?.hasPrefix(raw("Fujifilm RAF")) == true)
        #expect(Self.reason([0x49, 0x49, 0x1A, 0, 0, 0] + Array("HEAPCCDR".utf8) + [0, 0])?.hasPrefix(raw("Canon CRW")) == true)
        #expect(Self.reason([0, 0x4D, 0x52, 0x4D, 0, 0, 0, 0])?.hasPrefix(raw("Minolta MRW")) == true)
        #expect(Self.reason(Array("FOVb".utf8) + [0, 0, 0, 0])?.hasPrefix(raw("Sigma X3F")) == true)
        #expect(Self.reason([0x49, 0x49, 0x52, 0x4F, 8, 0, 0, 0])?.hasPrefix(raw("Olympus ORF")) == true)
        #expect(Self.reason([0x49, 0x49, 0x55, 0x00, 0x18, 0, 0, 0])?.hasPrefix(raw("Panasonic RW2")) == true)
        #expect(Self.reason(Self.tiff([(256, 3, 1, 8)], cr2: true))?.hasPrefix(raw("Canon CR2")) == true)
    }

    @Test("TIFF-structured raws are named from IFD0 (DNGVersion, CFA, a camera maker with SubIFDs) and go to LibRaw; a plain TIFF with a Make is read")
    func tiffStructuredRaws() throws {
        #expect(UnsupportedFormat.rawName(Self.tiff([(256, 3, 1, 8), (50706, 1, 4, 0x0401)])) == "DNG")
        #expect(UnsupportedFormat.rawName(Self.tiff([(262, 3, 1, 32803)])) == "CFA TIFF")
        // "NIKON CORPORATION\0" (18 bytes) stored after the IFD: 8 + 2 + 3·12 + 4 = 50.
        let nikon = Array("NIKON CORPORATION".utf8) + [0]
        #expect(UnsupportedFormat.rawName(Self.tiff([(254, 4, 1, 1), (271, 2, 18, 50), (330, 4, 1, 0)], tail: nikon)) == "Nikon NEF")
        let sony = Array("SONY".utf8) + [0]  // 5 bytes, stored after the IFD: 8 + 2 + 2·12 + 4 = 38
        #expect(UnsupportedFormat.rawName(Self.tiff([(271, 2, 5, 38), (330, 4, 1, 0)], tail: sony)) == "Sony ARW")
        // Such a header without sensor data is refused by LibRaw, never read as a TIFF.
        #expect(Self.reason(Self.tiff([(271, 2, 5, 38), (330, 4, 1, 0)], tail: sony))?.hasPrefix("camera raw (Sony ARW) that LibRaw cannot read") == true)
        // Phase One IIQ: a TIFF header with "IIII" at byte 8.
        #expect(UnsupportedFormat.rawName([0x49, 0x49, 0x2A, 0, 8, 0x0A, 0, 0] + Array("IIIICwaR".utf8)) == "Phase One IIQ")
        // A scanner's TIFF names its maker too, with no preview structure: not a raw.
        #expect(UnsupportedFormat.rawName(Self.tiff([(271, 2, 18, 26)], tail: nikon)) == nil)
        // Our own TIFF, PNG and JPEG are not touched.
        let image = IOFixtures.smooth(width: 16, height: 8, channels: 3, seed: 1)
        for format in [ImageFormat.tiff, .png, .jpeg, .fits] {
            #expect(UnsupportedFormat.reason(for: try ImageFile.encode(image, format: format)) == nil)
        }
        // Cut short anywhere: never a crash or an over-read.
        let nef = Self.tiff([(254, 4, 1, 1), (271, 2, 18, 50), (330, 4, 1, 0)], tail: nikon)
        for cut in 0..<nef.count { _ = UnsupportedFormat.reason(for: Array(nef[..<cut])) }
    }

    @Test("the CLI's message names the file and the format, on one line")
    func oneLine() throws {
        let folder = NSTemporaryDirectory() + "stack-unsupported-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/IMG_0001.CR3"
        _ = FileManager.default.createFile(atPath: path, contents: Data([0, 0, 0, 0x18] + Array("ftypcrx ".utf8) + [0, 0, 0, 1]))
        do {
            _ = try ImageFile.read(path)
            Issue.record("a CR3 was read")
        } catch let e as StackerError {
            #expect(e.description.hasPrefix("\(path): camera raw (Canon CR3) that LibRaw cannot read (") && !e.description.contains("\n"))
        }
        do {
            _ = try ImageFile.readHeader(path)
            Issue.record("a CR3 header was read")
        } catch let e as StackerError {
            #expect(e.reason.hasPrefix("camera raw (Canon CR3)"))
        }
    }
}
