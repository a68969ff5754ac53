import Testing
@testable import Stacker

/// Large JPEGs are compressed in strips on several threads and joined with
/// restart markers (`JPEGStrips`).
@Suite("JPEG strips")
struct JPEGStripTests {
    /// The image compressed in one piece, as before strips existed.
    static func onePiece(_ image: Image, quality: Int) throws -> [UInt8] {
        try JPEGCodec.encode(image, quality: quality, path: "", onePiece: true)
    }

    /// True when `jpeg` has a DRI segment (so it was joined from strips).
    static func hasRestarts(_ jpeg: [UInt8]) -> Bool {
        zip(jpeg, jpeg.dropFirst()).contains { $0 == 0xFF && $1 == 0xDD }
    }

    @Test("joined strips decode to the same pixels as one piece; 4:4:4, 4:2:0 and gray; any thread count gives the same bytes",
          arguments: [(3, 95), (3, 80), (1, 90)])
    func samePixels(_ c: (channels: Int, quality: Int)) throws {
        // 1500 × 1001: two or three strips, the last one not a whole MCU row high.
        let image = IOFixtures.smooth(width: 1500, height: 1001, channels: c.channels, seed: 11)
        let joined = try JPEGCodec.encode(image, quality: c.quality, path: "", threads: 2)
        #expect(Self.hasRestarts(joined))
        #expect(try JPEGCodec.encode(image, quality: c.quality, path: "", threads: 1) == joined)
        #expect(try JPEGCodec.encode(image, quality: c.quality, path: "", threads: 3) == joined)
        let whole = try Self.onePiece(image, quality: c.quality)
        #expect(!Self.hasRestarts(whole))
        let a = try ImageFile.decode(bytes: joined), b = try ImageFile.decode(bytes: whole)
        #expect(a.image.width == 1500 && a.image.height == 1001)
        #expect(a.image == b.image)
    }

    @Test("small images stay one piece")
    func smallImage() throws {
        let image = IOFixtures.smooth(width: 640, height: 480, channels: 3, seed: 12)
        #expect(try JPEGCodec.encode(image, quality: 95, path: "", threads: 2) == Self.onePiece(image, quality: 95))
    }

    @Test("strip layout: whole MCU rows, about 1 MP, the restart interval within DRI's 16 bits")
    func layout() throws {
        let rows = try #require(JPEGStrips.rowsPerStrip(width: 4000, height: 3000, mcuWidth: 8, mcuHeight: 8))
        #expect(rows % 8 == 0 && rows * 4000 <= JPEGStrips.targetPixels && rows * 4000 > JPEGStrips.targetPixels / 2)
        // A very wide image: one MCU row is 8125 MCUs, so at most 8 rows per strip.
        let wide = try #require(JPEGStrips.rowsPerStrip(width: 65_000, height: 4000, mcuWidth: 8, mcuHeight: 8))
        #expect(JPEGStrips.restartInterval(width: 65_000, rows: wide, mcuWidth: 8, mcuHeight: 8) <= 65_535)
        #expect(JPEGStrips.rowsPerStrip(width: 1000, height: 1000, mcuWidth: 16, mcuHeight: 16) == nil)
    }

    @Test("strips that do not share their tables are not joined")
    func mismatchedTables() throws {
        let image = IOFixtures.smooth(width: 64, height: 32, channels: 3, seed: 13)
        let a = try Self.onePiece(image, quality: 95), b = try Self.onePiece(image, quality: 94)
        #expect(JPEGStrips.join([a, b], height: 64, interval: 32) == nil)
        #expect(JPEGStrips.join([a, a], height: 64, interval: 32) != nil)
        #expect(JPEGStrips.join([a, Array(a.dropLast())], height: 64, interval: 32) == nil)
    }
}
