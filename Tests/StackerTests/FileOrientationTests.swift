import Foundation
import Testing
@testable import Stacker

/// TIFF's Orientation tag (274) and a PNG's eXIf orientation are applied on
/// reading, as Pillow's `exif_transpose` turns the same files
/// (Tests/Fixtures/orientation).
@Suite("Orientation of TIFF and PNG files")
struct FileOrientationTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/orientation").path

    @Test("TIFF tag 274 and PNG eXIf orientations 3, 6, 8 give Pillow's upright pixels, and the header its upright size", arguments: [3, 6, 8])
    func upright(orientation: Int) throws {
        let upright = try ImageFile.read(Self.folder + "/upright-\(orientation).png").image
        for name in ["tiff-orientation-\(orientation).tif", "png-exif-orientation-\(orientation).png"] {
            let path = Self.folder + "/" + name
            let decoded = try ImageFile.read(path)
            #expect(decoded.orientation == orientation, "\(name)")
            #expect(decoded.image.width == upright.width && decoded.image.height == upright.height, "\(name)")
            #expect(decoded.image.planes.map(\.pixels) == upright.planes.map(\.pixels), "\(name)")
            let header = try ImageFile.readHeader(path)
            #expect(header.width == upright.width && header.height == upright.height, "\(name)")
        }
    }

    @Test("a PNG's eXIf is found by walking chunk headers, bounds-checked: a lying length gives orientation 1, never a read past the end")
    func pngChunkWalk() throws {
        var bytes = try FileBytes.read((Self.folder + "/png-exif-orientation-6.png").filePath)
        #expect(EXIF.orientation(png: bytes) == 6)
        let at = try #require((8..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual(Array("eXIf".utf8)) })
        bytes[at - 4] = 0x7F  // the eXIf length now claims ~2 GB
        #expect(EXIF.orientation(png: bytes) == 1)
        for cut in 0..<bytes.count { _ = EXIF.orientation(png: Array(bytes[..<cut])) }
    }
}
