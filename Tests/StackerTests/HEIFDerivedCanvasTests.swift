import Foundation
import Testing
import TestSupport
@testable import Stacker

/// `HEIFDerivedCanvas`: grid and overlay canvases read from the boxes of real
/// files, and crafted canvases refused before libheif allocates them.
@Suite("HEIF derived-image canvases")
struct HEIFDerivedCanvasTests {
    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A 876-byte fuzz finding: grid item 2 announces 8 × 8 (`ispe`) and
    /// declares a 28005 × 29793 canvas; libheif 1.15 allocated 4.9 GB for it.
    static let craftedGrid = TestFiles.packageRoot + "/Fuzz/regressions/heif-decode-4.9gb-876-bytes.heic"

    @Test("real files' grids read as their announced size: pillow-heif's collection (32, 16, 32 px) and an iPhone portrait (4032 × 3024)")
    func realGridsMatchTheirImages() throws {
        let collection = HEIFDerivedCanvas.items(try Self.bytes(TestFiles.realFixtures + "/pillow-heif-collection.heic"))
        #expect(collection.map(\.id) == [3, 5, 8])
        #expect(collection.map(\.type) == ["grid", "grid", "grid"])
        #expect(collection.map { [$0.canvas.width, $0.canvas.height] } == [[32, 32], [16, 16], [32, 32]])
        #expect(collection.map { $0.declared.map { [$0.width, $0.height] } } == [[32, 32], [16, 16], [32, 32]])
        let portrait = HEIFDerivedCanvas.items(try Self.bytes(TestFiles.realFixtures + "/pillow-heif-portrait-depth.heic"))
        #expect(portrait.count == 1)
        #expect(portrait.first.map { [$0.canvas.width, $0.canvas.height] } == [4032, 3024])
        #expect(portrait.first?.declared.map { [$0.width, $0.height] } == [4032, 3024])
        // A file without derived images has none, and nothing is refused.
        #expect(HEIFDerivedCanvas.items(try Self.bytes(TestFiles.realFixtures + "/pillow-heif-nokia-burst.heic")).isEmpty)
        for name in ["pillow-heif-collection.heic", "pillow-heif-portrait-depth.heic", "pillow-heif-rotated-270.heic"] {
            try HEIFDerivedCanvas.check(try Self.bytes(TestFiles.realFixtures + "/" + name), path: name)
        }
    }

    @Test("a grid canvas larger than its ispe is refused in one line naming the file, before any decoding, in well under a second")
    func craftedCanvasIsRefused() throws {
        let crafted = try Self.bytes(Self.craftedGrid)
        let items = HEIFDerivedCanvas.items(crafted)
        #expect(items.first.map { [$0.canvas.width, $0.canvas.height] } == [28005, 29793])
        let start = Date()
        do {
            _ = try ImageFile.read(Self.craftedGrid)
            Issue.record("the crafted grid was decoded")
        } catch let error as StackerError {
            let text = error.description
            #expect(text.contains("heif-decode-4.9gb-876-bytes.heic"))
            #expect(text.contains("28005×29793 canvas for a 8×8 image"))
            #expect(!text.contains("\n"))
        }
        #expect(Date().timeIntervalSince(start) < 1.0)
    }

    @Test("a grid that declares no ispe, or whose canvas overflows, is refused; truncations and byte flips never trap")
    func damagedBoxes() throws {
        let crafted = try Self.bytes(Self.craftedGrid)
        // Every prefix of the file: the walk stops where boxes no longer fit.
        for length in 0...crafted.count {
            _ = HEIFDerivedCanvas.items(crafted.prefix(length))
        }
        // Deterministic byte flips (a linear congruential sequence).
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var refused = 0
        for _ in 0..<2000 {
            var copy = crafted
            for _ in 0..<3 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                copy[Int(state >> 33) % copy.count] = UInt8(truncatingIfNeeded: state >> 17)
            }
            if (try? HEIFDerivedCanvas.check(copy, path: "x")) == nil { refused += 1 }
        }
        // Most flips leave the oversized grid readable, and it stays refused.
        #expect(refused > 1000)

        // The collection with its ispe properties renamed.
        var collection = try Self.bytes(TestFiles.realFixtures + "/pillow-heif-collection.heic")
        let before = HEIFDerivedCanvas.items(collection)
        #expect(before.first?.declared != nil)
        let ispe = Array("ispe".utf8)
        let boxes = (0..<(collection.count - 4)).filter { Array(collection[$0..<($0 + 4)]) == ispe }
        #expect(boxes.count >= 3)
        for at in boxes { collection[at] = UInt8(ascii: "x") }  // no property is an ispe now
        let stripped = HEIFDerivedCanvas.items(collection)
        #expect(stripped.count == 3)
        #expect(stripped.allSatisfy { $0.declared == nil })
        #expect(throws: StackerError.self) { try HEIFDerivedCanvas.check(collection, path: "collection.heic") }
    }
}
