/// Metadata containers built byte by byte: JPEG APP segments (ICC pieces,
/// XMP, Photoshop IPTC), PNG iCCP / iTXt / colour chunks, TIFF fields, so
/// that reading them is tested against what the formats' specifications
/// say, not against our own writer.
public enum HandMadeMetadata {
    /// `jpeg` with `segments` (marker, payload) inserted right after SOI.
    public static func inserting(_ segments: [(marker: UInt8, payload: [UInt8])], intoJPEG jpeg: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        for (marker, payload) in segments {
            let length = payload.count + 2
            precondition(length <= 65535, "a JPEG segment holds at most 65 533 bytes")
            out += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        return out + jpeg[2...]
    }

    /// APP2 payloads carrying `profile` in pieces of at most `pieceSize`
    /// bytes: `ICC_PROFILE\0`, sequence number from 1, count, data.
    public static func iccPieces(_ profile: [UInt8], pieceSize: Int = 65519) -> [[UInt8]] {
        let pieces = stride(from: 0, to: profile.count, by: pieceSize).map { Array(profile[$0..<min($0 + pieceSize, profile.count)]) }
        return pieces.enumerated().map { Array("ICC_PROFILE\0".utf8) + [UInt8($0.offset + 1), UInt8(pieces.count)] + $0.element }
    }

    /// An APP1 XMP payload.
    public static func xmpSegment(_ xmp: [UInt8]) -> [UInt8] { Array("http://ns.adobe.com/xap/1.0/\0".utf8) + xmp }

    /// An APP13 payload: `Photoshop 3.0\0`, a 0x0404 resource whose name is
    /// `name`, holding `iptc`, after an unrelated resource (0x0425, 16 bytes)
    /// so the reader has to walk past one.
    public static func photoshopSegment(iptc: [UInt8], name: String = "") -> [UInt8] {
        func resource(_ id: Int, _ data: [UInt8], name: [UInt8]) -> [UInt8] {
            var r = Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(name.count)] + name
            if (1 + name.count) % 2 == 1 { r.append(0) }
            r += HandMadePNG.bigEndian32(data.count) + data
            if data.count % 2 == 1 { r.append(0) }
            return r
        }
        return Array("Photoshop 3.0\0".utf8) + resource(0x0425, [UInt8](repeating: 7, count: 16), name: [])
            + resource(0x0404, iptc, name: Array(name.utf8))
    }

    /// An IPTC-IIM block of datasets (record 2: object name, keywords).
    public static func iptcBlock(_ values: [(dataset: UInt8, text: String)]) -> [UInt8] {
        values.flatMap { v -> [UInt8] in
            let t = Array(v.text.utf8)
            return [0x1C, 2, v.dataset, UInt8(t.count >> 8), UInt8(t.count & 0xFF)] + t
        }
    }

    /// A PNG iCCP chunk's data: name, NUL, method 0, the profile as zlib.
    public static func iCCP(_ profile: [UInt8], name: String = "ICC profile") -> [UInt8] {
        Array(name.utf8) + [0, 0] + HandMadePNG.zlibStored(profile)
    }

    /// A PNG iTXt chunk's data with keyword `XML:com.adobe.xmp`, the packet
    /// stored as is or as zlib.
    public static func xmpITXt(_ xmp: [UInt8], compressed: Bool = false) -> [UInt8] {
        Array("XML:com.adobe.xmp".utf8) + [0, compressed ? 1 : 0, 0, 0, 0] + (compressed ? HandMadePNG.zlibStored(xmp) : xmp)
    }

    /// A minimal XMP packet stating `tiff:Orientation`, as an attribute or
    /// as an element.
    public static func xmpPacket(orientation: Int, asElement: Bool) -> [UInt8] {
        let description = asElement
            ? "<rdf:Description rdf:about=\"\" xmlns:tiff=\"http://ns.adobe.com/tiff/1.0/\">\n"
                + "   <tiff:Orientation>\(orientation)</tiff:Orientation>\n  </rdf:Description>"
            : "<rdf:Description rdf:about=\"\" xmlns:tiff=\"http://ns.adobe.com/tiff/1.0/\"\n"
                + "    tiff:Orientation=\"\(orientation)\"/>"
        return Array(("<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
            + "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n  "
            + description + "\n </rdf:RDF>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>").utf8)
    }

    /// A little-endian TIFF (such as `HandMadeTIFF` writes) with `fields`
    /// (tag, type, raw bytes) added to its first directory: the directory
    /// is rewritten at the end of the file with the new entries in tag
    /// order, their values after it.
    public static func addingFields(_ fields: [(tag: Int, type: Int, data: [UInt8])], toTIFF tiff: [UInt8]) -> [UInt8] {
        precondition(tiff.starts(with: [0x49, 0x49, 0x2A, 0x00]), "little-endian TIFF only")
        func u16(_ i: Int) -> Int { Int(tiff[i]) | Int(tiff[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let ifd = u32(4), count = u16(ifd)
        var entries = (0..<count).map { k in (tag: u16(ifd + 2 + 12 * k), raw: Array(tiff[(ifd + 2 + 12 * k)..<(ifd + 14 + 12 * k)])) }
        var out = tiff
        if out.count % 2 == 1 { out.append(0) }
        let sizes = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8]
        for field in fields {
            var raw = le(field.tag, 2) + le(field.type, 2) + le(field.data.count / sizes[field.type], 4)
            if field.data.count <= 4 {
                raw += field.data + [UInt8](repeating: 0, count: 4 - field.data.count)
            } else {
                raw += le(out.count, 4)
                out += field.data
                if out.count % 2 == 1 { out.append(0) }
            }
            entries.append((field.tag, raw))
        }
        entries.sort { $0.tag < $1.tag }
        let newIFD = out.count
        out += le(entries.count, 2) + entries.flatMap(\.raw) + le(0, 4)
        out.replaceSubrange(4..<8, with: le(newIFD, 4))
        return out
    }
}
