/// Whole fields of a TIFF file's first directory: where a TIFF keeps its
/// ICC profile (tag 34675), XMP packet (700) and IPTC-IIM block (33723).
extension TIFFReader {
    /// The ICC profile tag.
    static let iccTag = 34675
    /// The XMP packet tag.
    static let xmpTag = 700
    /// The IPTC-IIM tag (Photoshop and others write it as LONGs or bytes).
    static let iptcTag = 33723

    /// The bytes of IFD0's entry `tag` (its count × the size of its type,
    /// inline when 4 bytes or fewer), or nil when there is none, it is out
    /// of bounds, or it is over `EmbeddedMetadata.maxBytes`.
    func field(_ tag: Int) -> [UInt8]? {
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        let entries = ifd + 2
        guard entries + 12 * count <= bytes.count else { return nil }
        for k in 0..<count {
            let e = entries + 12 * k
            guard u16(e) == tag, let type = u16(e + 2), let n = u32(e + 4) else { continue }
            // BYTE, ASCII, SHORT, LONG, RATIONAL, SBYTE, UNDEFINED, …: sizes by type number.
            let sizes = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8]
            guard type < sizes.count, sizes[type] > 0, n <= EmbeddedMetadata.maxBytes / sizes[type] else { return nil }
            let size = n * sizes[type]
            let start = size <= 4 ? e + 8 : (u32(e + 8) ?? -1)
            guard start >= 0, size <= bytes.count - start else { return nil }
            return EmbeddedMetadata.capped(Array(bytes[start..<(start + size)]))
        }
        return nil
    }

    /// The ICC profile, XMP packet and IPTC block of IFD0.
    var embedded: EmbeddedMetadata {
        EmbeddedMetadata(icc: field(Self.iccTag), xmp: field(Self.xmpTag), iptc: field(Self.iptcTag))
    }
}
