/// Recognises camera RAW files from their first bytes, so they are refused
/// by name instead of being read as something else: most RAW formats are
/// TIFF underneath, and their first directory is a small preview (an 8 × 8
/// thumbnail in ExifTool's DNG sample), which libtiff would decode and the
/// run would stack with exit 0. RAW decoding itself (LibRaw) is not part of
/// `stack` yet.
enum CameraRaw {
    /// What the file is ("DNG raw", "Nikon NEF raw", "Canon CR3 raw", …) when
    /// its first bytes say it is a camera RAW file, else nil. Looks at the
    /// signature and, for TIFF-based files, at the first directory's
    /// entries: DNGVersion; NewSubfileType marking a reduced-resolution
    /// (preview) image; SubIFDs together with a camera maker's Make.
    static func kind(_ b: [UInt8]) -> String? {
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let t = Array(text.utf8)
            return b.count >= offset + t.count && b[offset..<(offset + t.count)].elementsEqual(t)
        }
        if starts("ftypcrx ", at: 4) { return "Canon CR3 raw" }
        if starts("HEAPCCDR", at: 6) { return "Canon CRW raw" }
        if starts("FUJIFILMCCD-RAW") { return "Fujifilm RAF raw" }
        if starts("\u{0}MRM") { return "Minolta MRW raw" }
        if starts("FOVb") { return "Sigma X3F raw" }
        if starts("IIRO") || starts("IIRS") || starts("MMOR") { return "Olympus ORF raw" }
        if starts("IIU\u{0}") { return "Panasonic RW2 raw" }
        guard starts("II*\u{0}") || starts("MM\u{0}*") else { return nil }
        if starts("II*\u{0}") && starts("CR", at: 8) { return "Canon CR2 raw" }
        return tiffBased(b)
    }

    /// The sentence an unreadable RAW file gets.
    static func reason(_ kind: String) -> String {
        "\(kind): camera RAW files are not read yet; convert them to 16-bit TIFF first (darktable, RawTherapee, dcraw -4 -T)"
    }

    /// The TIFF entries that make a TIFF a RAW file (see `kind`).
    private static func tiffBased(_ b: [UInt8]) -> String? {
        let little = b[0] == 0x49
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= b.count else { return nil }
            return little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
            return hi << 16 | lo
        }
        guard let ifd = u32(4), let count = u16(ifd), count < 4096 else { return nil }
        var reducedResolution = false, subIFDs = false, make = ""
        for i in 0..<count {
            let entry = ifd + 2 + 12 * i
            guard let tag = u16(entry), let type = u16(entry + 2), let n = u32(entry + 4) else { break }
            switch tag {
            case 0xC612: return "DNG raw"  // DNGVersion
            case 254:  // NewSubfileType: bit 0, a reduced-resolution image
                let value = type == 3 ? u16(entry + 8) : u32(entry + 8)
                reducedResolution = (value ?? 0) & 1 == 1
            case 330: subIFDs = true
            case 271 where type == 2 && n > 0 && n < 256:  // Make, ASCII
                let start = n <= 4 ? entry + 8 : (u32(entry + 8) ?? -1)
                if start >= 0, start + n <= b.count {
                    make = String(decoding: b[start..<(start + n)].prefix { $0 != 0 }, as: UTF8.self).uppercased()
                }
            default: break
            }
        }
        let makers: [(String, String)] = [("NIKON", "Nikon NEF raw"), ("SONY", "Sony ARW raw"), ("PENTAX", "Pentax PEF raw"),
                                          ("RICOH", "Pentax PEF raw"), ("CANON", "Canon raw"), ("OLYMPUS", "Olympus ORF raw"),
                                          ("SAMSUNG", "Samsung SRW raw"), ("LEICA", "Leica raw"), ("HASSELBLAD", "Hasselblad raw"),
                                          ("PHASE ONE", "Phase One IIQ raw"), ("KODAK", "Kodak raw"), ("EPSON", "Epson ERF raw")]
        let maker = makers.first { make.hasPrefix($0.0) }?.1
        if subIFDs, let maker { return maker }
        if reducedResolution { return maker ?? "camera raw (a TIFF whose first image is a preview)" }
        return nil
    }
}
