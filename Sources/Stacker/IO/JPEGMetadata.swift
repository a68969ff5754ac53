/// The metadata of a JPEG file, found in one walk over the segments before
/// its image data (SOS): the EXIF TIFF block (APP1 `Exif\0\0`), the ICC
/// profile (APP2 `ICC_PROFILE\0`, reassembled from its numbered pieces),
/// the XMP packet (APP1 `http://ns.adobe.com/xap/1.0/\0`) and the IPTC-IIM
/// block (APP13 `Photoshop 3.0\0`, image resource 0x0404).
///
/// The signatures are the writer's (`JPEGMetadataSegments`). Every read is
/// bounds-checked; a malformed segment structure ends the
/// walk (what was found before it is kept), and a malformed item is nil.
struct JPEGMetadata {
    /// The TIFF block of the first APP1 `Exif\0\0` segment, or nil.
    var exif: [UInt8]?
    /// The ICC profile, XMP packet and IPTC block.
    var embedded = EmbeddedMetadata()

    /// Walks `b` (a whole JPEG file, or its start).
    init(_ b: [UInt8]) {
        var iccPieces: [(sequence: Int, count: Int, data: ArraySlice<UInt8>)] = []
        var photoshop: [UInt8] = []
        JPEGMetadata.forEachSegment(b) { marker, payload in
            let data = b[payload]
            switch marker {
            case 0xE1 where data.starts(with: EXIF.header):
                if exif == nil { exif = Array(data.dropFirst(EXIF.header.count)) }
            case 0xE1 where data.starts(with: JPEGMetadataSegments.xmpHeader):
                if embedded.xmp == nil { embedded.xmp = EmbeddedMetadata.capped(Array(data.dropFirst(JPEGMetadataSegments.xmpHeader.count))) }
            case 0xE2 where data.count >= JPEGMetadataSegments.iccHeader.count + 2 && data.starts(with: JPEGMetadataSegments.iccHeader):
                let at = data.startIndex + JPEGMetadataSegments.iccHeader.count
                iccPieces.append((Int(data[at]), Int(data[at + 1]), data[(at + 2)...]))
            case 0xED where data.starts(with: JPEGMetadataSegments.photoshopHeader):
                if photoshop.count + data.count <= EmbeddedMetadata.maxBytes {
                    photoshop += data.dropFirst(JPEGMetadataSegments.photoshopHeader.count)
                }
            default: break
            }
        }
        embedded.icc = JPEGMetadata.assembleICC(iccPieces)
        embedded.iptc = EmbeddedMetadata.capped(JPEGMetadata.iptc(inPhotoshopResources: photoshop))
    }

    /// Calls `body` with the marker and payload range (after the 2-byte
    /// length) of every segment that has a length, from SOI to the first
    /// SOS or EOI. Stops at the first malformed segment.
    static func forEachSegment(_ b: [UInt8], _ body: (UInt8, Range<Int>) -> Void) {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return }
        var i = 2
        while i + 1 < b.count {
            guard b[i] == 0xFF else { return }
            var j = i + 1
            while j < b.count && b[j] == 0xFF { j += 1 }  // fill bytes
            guard j < b.count else { return }
            let marker = b[j]
            i = j + 1  // now just past the marker
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7: continue  // no length field
            case 0xD9, 0xDA: return  // end of image / start of scan
            default: break
            }
            guard i + 2 <= b.count else { return }
            let length = Int(b[i]) << 8 | Int(b[i + 1])
            guard length >= 2, i + length <= b.count else { return }
            body(marker, (i + 2)..<(i + length))
            i += length
        }
    }

    /// The profile made of `pieces` (sequence numbers 1…count, each once,
    /// all naming the same count), in sequence order; nil when a piece is
    /// missing, repeated or out of range, or the whole is over the cap.
    static func assembleICC(_ pieces: [(sequence: Int, count: Int, data: ArraySlice<UInt8>)]) -> [UInt8]? {
        guard let count = pieces.first?.count, count >= 1, pieces.count == count,
              pieces.allSatisfy({ $0.count == count && (1...count).contains($0.sequence) }) else { return nil }
        let ordered = pieces.sorted { $0.sequence < $1.sequence }
        guard ordered.enumerated().allSatisfy({ $0.element.sequence == $0.offset + 1 }),
              ordered.reduce(0, { $0 + $1.data.count }) <= EmbeddedMetadata.maxBytes else { return nil }
        return EmbeddedMetadata.capped(ordered.flatMap { $0.data })
    }

    /// The data of image resource 0x0404 (IPTC-IIM) in a Photoshop
    /// image-resource block (`8BIM`, 16-bit id, even-padded Pascal name,
    /// 32-bit size, data padded to an even length), or nil.
    static func iptc(inPhotoshopResources r: [UInt8]) -> [UInt8]? {
        var i = 0
        func u16(_ k: Int) -> Int { Int(r[k]) << 8 | Int(r[k + 1]) }
        while i + 7 <= r.count, r[i..<(i + 4)].elementsEqual(Array("8BIM".utf8)) {
            let id = u16(i + 4)
            let nameLength = Int(r[i + 6])
            let sizeAt = i + 6 + ((1 + nameLength + 1) & ~1)  // the name with its length byte, even
            guard sizeAt + 4 <= r.count else { return nil }
            let size = u16(sizeAt) << 16 | u16(sizeAt + 2)
            let start = sizeAt + 4
            guard size <= r.count - start else { return nil }
            if id == 0x0404 { return Array(r[start..<(start + size)]) }
            i = start + size + (size & 1)
        }
        return nil
    }
}
