/// What an encoder embeds beside the pixels, as the file formats store it:
/// each codec writes the parts its format can hold and ignores the rest
/// (see `ImageFile.encode` for which goes where).
struct EmbeddedMetadata: Sendable {
    /// The EXIF TIFF block, already stating the output's size (see
    /// `EXIF.withDimensions`), or nil.
    var exif: [UInt8]?
    /// The ICC profile, byte for byte, or nil.
    var icc: [UInt8]?
    /// The XMP packet (the XML alone), or nil.
    var xmp: [UInt8]?
    /// The IPTC-IIM block, or nil.
    var iptc: [UInt8]?

    /// Drops empty parts, so a codec only has to test for nil.
    init(exif: [UInt8]? = nil, icc: [UInt8]? = nil, xmp: [UInt8]? = nil, iptc: [UInt8]? = nil) {
        self.exif = exif?.isEmpty == false ? exif : nil
        self.icc = icc?.isEmpty == false ? icc : nil
        self.xmp = xmp?.isEmpty == false ? xmp : nil
        self.iptc = iptc?.isEmpty == false ? iptc : nil
    }
}
