/// The images after the first in a JPEG file with a Multi-Picture Format
/// index (CIPA DC-007: APP2 `MPF\0`, a TIFF-structured index whose
/// `MPEntry` tag lists each image's type, size and offset). An iPhone
/// portrait JPEG stores its disparity map and its portrait mattes this way,
/// as grayscale JPEGs after the photo (`MPFAuxiliaryImage` tells them apart).
enum MPFImages {
    /// `MPF\0`, which starts the index's APP2 payload.
    static let header: [UInt8] = Array("MPF".utf8) + [0]

    /// The byte ranges (in `jpeg`) of the images the index lists after the
    /// primary one, leaving out thumbnails (type 0x01000x), in index order.
    /// Every read is bounds-checked; a malformed index gives what was read
    /// before the fault, or nothing.
    static func secondaryImages(in jpeg: [UInt8]) -> [Range<Int>] {
        var index: Range<Int>?
        JPEGMetadata.forEachSegment(jpeg) { marker, payload in
            if index == nil, marker == 0xE2, jpeg[payload].starts(with: header) {
                index = (payload.lowerBound + header.count)..<payload.upperBound
            }
        }
        guard let tiff = index, tiff.count >= 8 else { return [] }
        let base = tiff.lowerBound
        let little: Bool
        switch (jpeg[base], jpeg[base + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return []
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, base + at + 2 <= tiff.upperBound else { return nil }
            let a = Int(jpeg[base + at]), b = Int(jpeg[base + at + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
            return hi << 16 | lo
        }
        guard let ifd = u32(4), let count = u16(ifd), count < 1000 else { return [] }
        var entries: (offset: Int, count: Int)?
        for k in 0..<count {
            let at = ifd + 2 + 12 * k
            guard let tag = u16(at) else { return [] }
            if tag == 0xB002, let n = u32(at + 4), let offset = u32(at + 8) { entries = (offset, n / 16) }
        }
        guard let entries else { return [] }
        var ranges: [Range<Int>] = []
        for k in 1..<max(1, entries.count) {
            let at = entries.offset + 16 * k
            guard let attributes = u32(at), let size = u32(at + 4), let offset = u32(at + 8) else { break }
            let type = attributes & 0xFF_FFFF
            // Offsets count from the index's TIFF header.
            let start = base + offset
            guard type & 0xFF_FFF0 != 0x01_0000, size > 0, offset > 0, start + size <= jpeg.count else { continue }
            ranges.append(start..<(start + size))
        }
        return ranges
    }
}
