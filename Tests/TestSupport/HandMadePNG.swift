/// PNG files and chunks built byte by byte, for what our encoder does not
/// write: other colour types and depths, extra chunks, damaged headers.
public enum HandMadePNG {
    /// CRC-32 with PNG's (and zlib's) polynomial, by table.
    public static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        ~bytes.reduce(UInt32.max) { c, b in crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    /// `v` as 4 big-endian bytes.
    public static func bigEndian32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }

    /// One chunk: length, type, data and the CRC of type + data.
    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian32(data.count) + body + bigEndian32(Int(crc32(body)))
    }

    /// A PNG built from already-packed rows (each gets filter byte 0), its
    /// IDAT a zlib stream of "stored" (uncompressed) blocks: any colour type
    /// and depth, with an optional PLTE and tRNS.
    public static func file(width: Int, height: Int, bitDepth: Int, colorType: Int,
                            rows: [[UInt8]], palette: [UInt8]? = nil, trns: [UInt8]? = nil) -> [UInt8] {
        var raw = [UInt8]()
        for r in rows { raw += [0] + r }
        let z = zlibStored(raw)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian32(width) + bigEndian32(height) + [UInt8(bitDepth), UInt8(colorType), 0, 0, 0])
        if let palette { png += chunk("PLTE", palette) }
        if let trns { png += chunk("tRNS", trns) }
        png += chunk("IDAT", z)
        png += chunk("IEND", [])
        return png
    }

    /// `bytes` as a zlib stream of stored (uncompressed) deflate blocks.
    public static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var z: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, bytes.count - offset)
            let last: UInt8 = offset + n == bytes.count ? 1 : 0
            z += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            z += bytes[offset..<(offset + n)]
            offset += n
        } while offset < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return z + bigEndian32(Int(b << 16 | a))
    }

    /// `png` with `chunks` (type, data) inserted right after its IHDR.
    public static func inserting(_ chunks: [(String, [UInt8])], afterIHDROf png: [UInt8]) -> [UInt8] {
        let ihdrEnd = 8 + 4 + 4 + 13 + 4
        return Array(png[..<ihdrEnd]) + chunks.flatMap { chunk($0.0, $0.1) } + Array(png[ihdrEnd...])
    }
}
