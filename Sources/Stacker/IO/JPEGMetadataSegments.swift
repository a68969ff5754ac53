/// The metadata segments a JPEG output carries, built as bytes and inserted
/// right after SOI of an encoded file, in this order:
///
/// 1. APP1 `Exif\0\0` + the EXIF TIFF block;
/// 2. APP1 `http://ns.adobe.com/xap/1.0/\0` + the XMP packet;
/// 3. APP2 `ICC_PROFILE\0` + sequence number + count + a piece of the ICC
///    profile, as many segments as the profile needs (ICC.1, annex B.4);
/// 4. APP13 `Photoshop 3.0\0` + one 8BIM resource 0x0404 holding the IPTC-IIM
///    block.
///
/// Insertion works on the finished file, so a JPEG compressed in one piece
/// and one joined from strips (`JPEGStrips`) get the same segments.
///
/// Limits: a segment holds at most 65 533 bytes after its marker and length.
/// EXIF, XMP and IPTC must each fit one segment (EXIF 65 527, XMP 65 504,
/// IPTC 65 506 bytes); a larger one is dropped without an error (the image
/// is still written; Adobe's "extended XMP" spread over several segments
/// is not written). The ICC profile is split over up to 255 segments of
/// 65 519 bytes, so a profile of up to 16 707 345 bytes is kept whole; a
/// larger one is dropped.
enum JPEGMetadataSegments {
    /// The most bytes a segment holds after its 2-byte length field.
    static let segmentPayloadLimit = 65535 - 2
    /// `http://ns.adobe.com/xap/1.0/\0`, which starts an XMP APP1 payload.
    static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    /// `ICC_PROFILE\0`, which starts each ICC APP2 payload.
    static let iccHeader: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
    /// `Photoshop 3.0\0`, which starts an APP13 payload.
    static let photoshopHeader: [UInt8] = Array("Photoshop 3.0".utf8) + [0]
    /// Profile bytes one APP2 segment carries (after the header, sequence
    /// number and count).
    static let iccChunkSize = segmentPayloadLimit - iccHeader.count - 2

    /// `jpeg` with the segments for `metadata`'s EXIF, XMP, ICC profile and
    /// IPTC (each may be nil or empty) inserted after SOI, in the order of
    /// the type's comment. Returns `jpeg` unchanged when nothing fits or it
    /// does not start with SOI.
    static func insert(_ metadata: EmbeddedMetadata, intoJPEG jpeg: [UInt8]) -> [UInt8] {
        guard jpeg.count >= 2, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return jpeg }
        var segments: [UInt8] = []
        if let exif = metadata.exif { segments += segment(marker: 0xE1, header: EXIF.header, body: exif) ?? [] }
        if let xmp = metadata.xmp { segments += segment(marker: 0xE1, header: xmpHeader, body: xmp) ?? [] }
        if let icc = metadata.icc { segments += iccSegments(icc) }
        if let iptc = metadata.iptc, let resource = photoshopResource(iptc: iptc) {
            segments += segment(marker: 0xED, header: photoshopHeader, body: resource) ?? []
        }
        guard !segments.isEmpty else { return jpeg }
        var out = [UInt8]()
        out.reserveCapacity(jpeg.count + segments.count)
        out += jpeg[0..<2]
        out += segments
        out += jpeg[2...]
        return out
    }

    /// One marker segment: `FF marker`, the big-endian length (counting
    /// itself), `header`, `body`; nil when `body` is empty or the whole does
    /// not fit one segment.
    static func segment(marker: UInt8, header: [UInt8], body: [UInt8]) -> [UInt8]? {
        let payload = header.count + body.count
        guard !body.isEmpty, payload <= segmentPayloadLimit else { return nil }
        let length = payload + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + header + body
    }

    /// The APP2 segments of an ICC profile, numbered from 1; empty when the
    /// profile is empty or needs more than 255 segments.
    static func iccSegments(_ profile: [UInt8]) -> [UInt8] {
        let count = (profile.count + iccChunkSize - 1) / iccChunkSize
        guard count >= 1, count <= 255 else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(profile.count + count * (4 + iccHeader.count + 2))
        for k in 0..<count {
            let piece = Array(profile[(k * iccChunkSize)..<min(profile.count, (k + 1) * iccChunkSize)])
            out += segment(marker: 0xE2, header: iccHeader + [UInt8(k + 1), UInt8(count)], body: piece) ?? []
        }
        return out
    }

    /// An 8BIM image resource 0x0404 (IPTC-NAA) holding `iptc`: signature,
    /// resource ID, an empty Pascal name padded to 2 bytes, the 4-byte size,
    /// the data padded to an even length. Nil for an empty block.
    static func photoshopResource(iptc: [UInt8]) -> [UInt8]? {
        guard !iptc.isEmpty, iptc.count <= Int(UInt32.max) else { return nil }
        let n = iptc.count
        var out = Array("8BIM".utf8) + [0x04, 0x04, 0x00, 0x00]
        out += [UInt8(truncatingIfNeeded: n >> 24), UInt8(truncatingIfNeeded: n >> 16),
                UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
        out += iptc
        if n % 2 == 1 { out.append(0) }
        return out
    }
}
