/// The caps readers put on what a file carries beside its pixels.
///
/// Every reader of these (`JPEGMetadata`, `PNGMetadata`, the TIFF tags of
/// `TIFFReader`) drops an ICC profile, XMP packet or IPTC block larger than
/// `maxBytes`, and decompresses (PNG iCCP, compressed iTXt) no further than
/// that, so no file makes us allocate more than a few megabytes for its
/// metadata whatever lengths it claims. Malformed metadata is dropped (nil),
/// never an error: the pixels are still read. Readers leave `exif` nil
/// (EXIF has its own path, `EXIF.read`).
extension EmbeddedMetadata {
    /// The largest profile, packet or block kept: 4 MiB. ICC profiles of
    /// cameras and phones are under 4 KB, LUT-based printer profiles reach
    /// a few hundred KB; XMP packets are a few KB.
    static let maxBytes = 4 << 20

    /// `bytes` when it is non-empty and within `maxBytes`, else nil.
    static func capped(_ bytes: [UInt8]?) -> [UInt8]? {
        guard let bytes, !bytes.isEmpty, bytes.count <= maxBytes else { return nil }
        return bytes
    }
}
