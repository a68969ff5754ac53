import Testing
@testable import Stacker

/// Camera RAW files are refused by name, never read as the TIFF preview
/// most of them start with.
@Suite("Camera RAW detection")
struct CameraRawDetectionTests {
    /// A little-endian TIFF whose first directory holds `entries`
    /// (tag, type, count, value or offset) and then `extra` bytes.
    static func tiff(_ entries: [(Int, Int, Int, Int)], extra: [UInt8] = []) -> [UInt8] {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var b: [UInt8] = [0x49, 0x49, 0x2A, 0] + le(8, 4) + le(entries.count, 2)
        for (tag, type, count, value) in entries { b += le(tag, 2) + le(type, 2) + le(count, 4) + le(value, 4) }
        return b + le(0, 4) + extra
    }

    @Test("DNGVersion, a preview first image, SubIFDs with a camera Make: each named; a plain exported TIFF is not RAW")
    func tiffBased() {
        #expect(CameraRaw.kind(Self.tiff([(256, 4, 1, 8), (0xC612, 1, 4, 0x0401)])) == "DNG raw")
        #expect(CameraRaw.kind(Self.tiff([(254, 4, 1, 1), (256, 4, 1, 160)])) == "camera raw (a TIFF whose first image is a preview)")
        // Make "NIKON CORPORATION" stored after the directory (8 + 2 + 3·12 + 4 = 50).
        let make = Array("NIKON CORPORATION\u{0}".utf8)
        #expect(CameraRaw.kind(Self.tiff([(254, 4, 1, 1), (271, 2, make.count, 50), (330, 4, 1, 0)], extra: make)) == "Nikon NEF raw")
        #expect(CameraRaw.kind(Self.tiff([(256, 4, 1, 8), (271, 2, make.count, 50), (330, 4, 1, 0)], extra: make)) == "Nikon NEF raw")
        // An exported TIFF keeps the camera's Make but has no preview or sub-directories.
        #expect(CameraRaw.kind(Self.tiff([(256, 4, 1, 8), (271, 2, make.count, 38)], extra: make)) == nil)
        // A directory offset past the end or a cut file: not recognised, no crash.
        #expect(CameraRaw.kind([0x49, 0x49, 0x2A, 0, 0xFF, 0xFF, 0, 0]) == nil)
        #expect(CameraRaw.kind(Array(Self.tiff([(0xC612, 1, 4, 0x0401)]).prefix(15))) == nil)
    }

    @Test("signatures: CR2, CR3, CRW, RAF, ORF, RW2, MRW, X3F")
    func signatures() {
        let cases: [([UInt8], String)] = [
            ([0x49, 0x49, 0x2A, 0, 0x10, 0, 0, 0] + Array("CR".utf8) + [2, 0], "Canon CR2 raw"),
            ([0, 0, 0, 0x18] + Array("ftypcrx ".utf8), "Canon CR3 raw"),
            (Array("II".utf8) + [0x1A, 0, 0, 0] + Array("HEAPCCDR".utf8), "Canon CRW raw"),
            (Array("FUJIFILMCCD-RAW 0201".utf8), "Fujifilm RAF raw"),
            (Array("IIRO".utf8) + [8, 0, 0, 0], "Olympus ORF raw"),
            (Array("IIU".utf8) + [0, 8, 0, 0, 0], "Panasonic RW2 raw"),
            ([0] + Array("MRM".utf8) + [0, 0, 0, 0], "Minolta MRW raw"),
            (Array("FOVb".utf8) + [0, 0, 0, 0], "Sigma X3F raw"),
        ]
        for (bytes, kind) in cases {
            #expect(CameraRaw.kind(bytes) == kind)
            let refused = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: bytes, path: "photo.raw") }
            #expect(refused?.path == "photo.raw")
            #expect(refused?.reason == CameraRaw.reason(kind), "\(kind)")
        }
    }

    @Test("a DNG is refused naming what it is and what to do, not decoded from its preview")
    func dngRefused() {
        let dng = Self.tiff([(254, 4, 1, 1), (256, 4, 1, 8), (0xC612, 1, 4, 0x0401)])
        let refused = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: dng, path: "IMG_0001.DNG") }
        #expect(refused?.reason == "DNG raw: camera RAW files are not read yet; convert them to 16-bit TIFF first (darktable, RawTherapee, dcraw -4 -T)")
    }
}
